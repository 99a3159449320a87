import Foundation
import H264
import MP4
import TestSupport

/// Checks of MP4 files against FFmpeg (ffprobe, ffmpeg) and GStreamer (qtdemux): each returns
/// the disagreements found, as lines (empty when all agree).
enum FFmpegComparison {
    /// `ffprobe -show_packets` of the first video stream: position, size, key flag, DTS, PTS.
    struct Packet {
        var pos: Int64?
        var size: Int
        var key: Bool
        var dts: Int64?
        var pts: Int64?
    }

    static func packets(_ path: String) throws -> (packets: [Packet], timeBase: (Int64, Int64), errors: String) {
        let r = try Support.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                            "packet=pos,size,flags,dts,pts:stream=time_base", "-of", "compact=p=0:nk=0", path])
        var out: [Packet] = []
        var timeBase: (Int64, Int64) = (1, 1)
        for line in String(decoding: r.stdout, as: UTF8.self).split(separator: "\n") {
            var fields: [Substring: Substring] = [:]
            for part in line.split(separator: "|") {
                guard let eq = part.firstIndex(of: "=") else { continue }
                fields[part[..<eq]] = part[part.index(after: eq)...]
            }
            if let tb = fields["time_base"] {
                let p = tb.split(separator: "/")
                if p.count == 2 { timeBase = (Int64(p[0]) ?? 1, Int64(p[1]) ?? 1) }
                continue
            }
            guard let size = fields["size"].flatMap({ Int($0) }) else { continue }
            out.append(Packet(pos: fields["pos"].flatMap { Int64($0) }, size: size, key: fields["flags"]?.hasPrefix("K") ?? false,
                              dts: fields["dts"].flatMap { Int64($0) }, pts: fields["pts"].flatMap { Int64($0) }))
        }
        return (out, timeBase, r.stderr)
    }

    /// The NAL units of an Annex-B byte range, parameter sets left out.
    static func pictureUnits(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var splitter = AnnexB.Splitter(bytes, leadingData: .skip)
        var out: [ArraySlice<UInt8>] = []
        while let unit = try? splitter.next() {
            if unit.type.isParameterSet && unit.type != .subsetSPS { continue }
            out.append(unit.bytes)
        }
        return out
    }

    /// Our MP4 of an Annex-B source against FFmpeg: the same packets as ffprobe of the source
    /// (count, NAL units, so sizes, key flags), DTS/PTS as ffprobe reads them from our file and
    /// presentation order as FFmpeg's decoder outputs the frames, a clean decode, and the NAL
    /// units back through `h264_mp4toannexb`.
    static func muxed(source: String, mp4: String) throws -> [String] {
        var problems: [String] = []
        let sourceBytes = Support.readFile(source)
        let src = try packets(source)
        let reader = try MP4Reader(try MP4File(readingAtPath: mp4))
        guard let track = reader.videoTrack else { return ["no H.264 track in our file"] }
        let infos = try reader.sampleInfos(of: track)
        if src.packets.count != infos.count { problems.append("ffprobe source: \(src.packets.count) packets, ours \(infos.count)") }
        for (k, (p, info)) in zip(src.packets, infos).enumerated() {
            guard let pos = p.pos.flatMap({ Int(exactly: $0) }), pos + p.size <= sourceBytes.count else { continue }
            // The same NAL units but parameter sets (ours are in the avcC, repeated in band at a format change).
            let expected = pictureUnits(sourceBytes[pos..<(pos + p.size)])
            let ours = try AVCC.split(reader.sample(info).data).filter { !$0.type.isParameterSet || $0.type == .subsetSPS }
            if ours.map(\.bytes) != expected {
                problems.append("packet \(k): \(expected.count) NAL units in the source, \(ours.count) in our sample, or other bytes")
            }
            if p.key != info.flags.isSync { problems.append("packet \(k): source key \(p.key), ours \(info.flags.isSync)") }
            if problems.count > 8 { return problems }
        }
        // ffprobe of our file: DTS/PTS as we wrote them, in our timescale (edit list applied by both).
        let ours = try packets(mp4)
        if !ours.errors.isEmpty { problems.append("ffprobe of ours: \(ours.errors)") }
        if ours.timeBase != (1, Int64(track.timescale)) { problems.append("time base \(ours.timeBase), timescale \(track.timescale)") }
        for (k, (p, info)) in zip(ours.packets, infos).enumerated() where p.dts != info.decodeTime || p.pts != info.presentationTime {
            problems.append("packet \(k): ffprobe dts/pts \(p.dts ?? -1)/\(p.pts ?? -1), ours \(info.decodeTime)/\(info.presentationTime)")
            if problems.count > 8 { return problems }
        }
        // Presentation order: FFmpeg's decoder outputs the source's frames in our PTS order.
        let order = try outputOrder(source)
        if order.count == infos.count {
            let ranks = infos.indices.sorted { (infos[$0].presentationTime, $0) < (infos[$1].presentationTime, $1) }
            var ourOrder = Array(repeating: 0, count: infos.count)
            for (rank, i) in ranks.enumerated() { ourOrder[i] = rank }
            if ourOrder != order { problems.append("presentation order differs from FFmpeg's output order") }
        }
        // A clean decode: no error our file adds to those of the source.
        let decodeSource = try FFmpeg.decode(source)
        let decodeOurs = try Support.run("ffmpeg", ["-v", "error", "-i", mp4, "-f", "framecrc", "-"])
        if decodeSource.stderr.isEmpty && !decodeOurs.stderr.isEmpty { problems.append("ffmpeg decode: \(decodeOurs.stderr.prefix(300))") }
        if decodeOurs.status != 0 { problems.append("ffmpeg decode exit status \(decodeOurs.status)") }
        // The NAL units back through h264_mp4toannexb.
        // -copyinkf: ffmpeg drops the packets before the first keyframe otherwise (streams whose IDR is lost).
        let back = try Support.run("ffmpeg", ["-v", "error", "-i", mp4, "-map", "0:v", "-c", "copy", "-copyinkf",
                                              "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-"])
        if pictureUnits(back.stdout[...]) != pictureUnits(sourceBytes[...]) {
            problems.append("h264_mp4toannexb returns other NAL units than the source's")
        }
        return problems
    }

    /// For each frame of an Annex-B stream in decoding order, its index in FFmpeg's output order.
    /// FFmpeg numbers pictures with `coded_picture_number`, which also counts the frames it
    /// invents for a `frame_num` gap (damaged streams) without outputting them: decoding
    /// indices are the ranks of the numbers it outputs.
    static func outputOrder(_ path: String) throws -> [Int] {
        let r = try Support.run("ffprobe", ["-v", "error", "-show_entries", "frame=coded_picture_number", "-of", "csv=p=0", path])
        let coded = String(decoding: r.stdout, as: UTF8.self).split(whereSeparator: \.isNewline)
            .compactMap { Int($0.filter(\.isNumber)) }
        var rank: [Int: Int] = [:]
        for (k, n) in Set(coded).sorted().enumerated() { rank[n] = k }
        var order = Array(repeating: 0, count: coded.count)
        for (output, n) in coded.enumerated() { if let d = rank[n], d < order.count { order[d] = output } }
        return order
    }

    /// GStreamer demuxes (qtdemux) and decodes our file without error.
    static func gstreamer(_ mp4: String) throws -> [String] {
        let r = try Support.run("gst-launch-1.0", ["-q", "filesrc", "location=\(mp4)", "!", "qtdemux", "!", "h264parse", "!",
                                                   "avdec_h264", "!", "fakesink"])
        return r.status == 0 ? [] : ["gst-launch-1.0 exit status \(r.status): \(r.stderr.prefix(300))"]
    }

    /// gst-launch-1.0 with qtdemux, h264parse and avdec_h264 (checked once).
    static let hasGStreamer: Bool = Support.gstLaunch(with: ["qtdemux", "h264parse", "avdec_h264"]) != nil

    /// Our reader against ffprobe on any MP4 file: the first video track's samples, sizes,
    /// DTS/PTS (edit list applied) and key flags. Where composition offsets are negative, FFmpeg
    /// moves presentation times of fragments later by ``MP4Track/decodeDelay`` where we move
    /// decoding times earlier (as FFmpeg does in progressive files): that rule is applied first.
    static func read(_ path: String, track pick: (MP4Reader) -> MP4Track?) throws -> [String] {
        let probe = try packets(path)
        let reader = try MP4Reader(try MP4File(readingAtPath: path))
        guard let track = pick(reader) else { return ["no video track"] }
        let infos = try reader.sampleInfos(of: track)
        var problems: [String] = []
        if probe.packets.count != infos.count { problems.append("ffprobe \(probe.packets.count) packets, ours \(infos.count)") }
        if probe.timeBase != (1, Int64(track.timescale)) { problems.append("time base \(probe.timeBase), timescale \(track.timescale)") }
        for (k, (p, info)) in zip(probe.packets, infos).enumerated() {
            // FFmpeg's key flag: stss in moov; in fragments, not non-sync and not depending on others.
            let key = track.isFragmented ? info.flags.isKeyframe : info.flags.isSync
            let later = track.isFragmented ? track.decodeDelay : 0
            if p.size != info.size || p.dts != info.decodeTime + later || p.pts != info.presentationTime + later || p.key != key
                || (p.pos.map { UInt64($0) != info.offset } ?? false) {
                problems.append("packet \(k): ffprobe pos \(p.pos ?? -1) size \(p.size) dts \(p.dts ?? -1) pts \(p.pts ?? -1) key \(p.key); "
                                + "ours offset \(info.offset) size \(info.size) dts \(info.decodeTime) pts \(info.presentationTime) key \(key)")
                if problems.count > 8 { break }
            }
        }
        return problems
    }
}
