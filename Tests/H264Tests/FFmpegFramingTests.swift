import Foundation
import Testing
import TestSupport
@testable import H264

/// Framing checked against FFmpeg on the shared corpus (skipped without the corpus or ffmpeg).
@Suite struct FFmpegFramingTests {
    static let enabled = CorpusFiles.isPresent && Support.hasFFmpeg

    /// `nal_ref_idc` and `nal_unit_type` of every NAL unit of every packet (extradata
    /// excluded), from the syntax element lines of FFmpeg's `trace_headers` (its one-line NAL
    /// summaries skip repeats of the same type, so they cannot be counted).
    static func ffmpegNALHeaders(_ path: String, format: [String]) throws -> [[Int]] {
        let text = try Support.run("ffmpeg", ["-hide_banner", "-nostats", "-v", "trace"] + format
            + ["-i", path, "-map", "0:v:0", "-c", "copy", "-copyinkf", "-bsf:v", "trace_headers", "-f", "null", "-"]).stderr
        var out: [[Int]] = []
        var inPackets = false
        var ref = -1
        for line in text.split(separator: "\n") where line.contains("[trace_headers") {
            if line.contains("] Packet: ") { inPackets = true; continue }
            guard inPackets else { continue }
            let fields = line.split(separator: " ")
            // "[trace_headers @ 0x...] <bit> <name> <bits> = <value>"
            guard fields.count >= 7, fields[fields.count - 2] == "=", let value = Int(fields[fields.count - 1]) else { continue }
            let name = fields[fields.count - 4]
            if name == "nal_ref_idc" { ref = value }
            if name == "nal_unit_type" { out.append([value, ref]) }
        }
        return out
    }

    static func temporaryPath(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("swift-h264-framing-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name.replacingOccurrences(of: "/", with: "_")).path
    }

    @Test(.enabled(if: enabled, "needs ../shared/corpus and ffmpeg"), arguments: CorpusFiles.annexBStreams)
    func splitFindsFFmpegsNALUnits(_ path: String) throws {
        let bytes = try CorpusFiles.read(path)
        let ours: [[Int]]
        do {
            ours = try AnnexB.split(bytes, leadingData: .skip).map { [Int($0.type.rawValue), Int($0.nalRefIdc)] }
        } catch {
            Issue.record("split failed: \(error)")
            return
        }
        let theirs = try Self.ffmpegNALHeaders(CorpusFiles.url(path).path, format: ["-f", "h264"])
        if theirs.isEmpty { return }  // FFmpeg makes no packets (e.g. no base-layer slice)
        #expect(ours.count == theirs.count)
        if let i = (0..<min(ours.count, theirs.count)).first(where: { ours[$0] != theirs[$0] }) {
            Issue.record("NAL unit \(i): ours \(ours[i]), FFmpeg \(theirs[i])")
        }
    }

    /// The avcC built from the parameter sets of the first access unit equals the one FFmpeg
    /// writes when remuxing to MP4, except for FFmpeg 5.1's trailing zero byte at the end of a
    /// parameter set followed by a 4-byte start code (a NAL unit never ends in 00, 7.4.1).
    @Test(.enabled(if: enabled, "needs ../shared/corpus and ffmpeg"), arguments: CorpusFiles.annexBStreams)
    func avcCMatchesFFmpeg(_ path: String) throws {
        let bytes = try CorpusFiles.read(path)
        // The first access unit's bytes: up to the end of the first slice.
        var splitter = AnnexB.Splitter(bytes[...], leadingData: .skip)
        var end = bytes.count
        var sawSPS = false
        while let unit = try splitter.next() {
            if unit.type == .sps { sawSPS = true }
            if unit.type.isVCL && sawSPS { end = unit.bytes.endIndex; break }
        }
        guard sawSPS else { return }
        let ours = try FormatConversion.annexBToAVCC(bytes[..<end], leadingData: .skip).configuration

        let mp4 = Self.temporaryPath(path + ".mp4")
        defer { try? FileManager.default.removeItem(atPath: mp4) }
        _ = try Support.run("ffmpeg", ["-hide_banner", "-v", "error", "-y", "-f", "h264", "-i", CorpusFiles.url(path).path,
                                           "-map", "0:v:0", "-c", "copy", "-frames:v", "1", mp4])
        // No file when FFmpeg cannot remux the stream (no base-layer slice).
        guard let box = AVCCBox.find(in: Support.readFile(mp4)) else { return }
        let theirBytes = Array(box)
        if try ours.serialized() == theirBytes { return }
        // Normalise FFmpeg 5.1's trailing zero bytes, then compare again.
        var theirs = try AVCDecoderConfigurationRecord(parsing: theirBytes)
        let trim: (NALUnit) -> NALUnit = { u in
            var b = u.bytes
            while b.count > 1 && b.last == 0 { b = b.dropLast() }
            return (try? NALUnit(b)) ?? u
        }
        let hadTrailingZero = (theirs.sequenceParameterSets + theirs.pictureParameterSets).contains { $0.bytes.last == 0 }
        theirs.sequenceParameterSets = theirs.sequenceParameterSets.map(trim)
        theirs.pictureParameterSets = theirs.pictureParameterSets.map(trim)
        #expect(hadTrailingZero, "differs without FFmpeg's trailing-zero bug")
        #expect(try ours.serialized() == theirs.serialized(), "ours \((try? ours.serialized())?.count ?? 0) bytes, FFmpeg \(theirBytes.count)")
    }

    /// For the MP4 files: our AVCC -> Annex-B gives the NAL units of FFmpeg's
    /// `h264_mp4toannexb`, access unit by access unit, as multisets (the parameter sets sit at
    /// a different place inside an IDR access unit: see FormatConversion.avccToAnnexB).
    @Test(.enabled(if: enabled, "needs ../shared/corpus and ffmpeg"), arguments: CorpusFiles.mp4Files)
    func avccToAnnexBMatchesFFmpeg(_ path: String) throws {
        let input = CorpusFiles.url(path).path
        guard let box = AVCCBox.find(in: try CorpusFiles.read(path)) else { return }
        let configuration = try AVCDecoderConfigurationRecord(parsing: box)
        let avccPath = Self.temporaryPath(path + ".avcc"), annexBPath = Self.temporaryPath(path + ".264")
        defer {
            try? FileManager.default.removeItem(atPath: avccPath)
            try? FileManager.default.removeItem(atPath: annexBPath)
        }
        _ = try Support.run("ffmpeg", ["-hide_banner", "-v", "error", "-y", "-i", input, "-map", "0:v:0", "-c", "copy", "-f", "data", avccPath])
        let log = try Support.run("ffmpeg", ["-hide_banner", "-v", "error", "-y", "-i", input, "-map", "0:v:0", "-c:v", "copy",
                                                      "-bsf:v", "h264_mp4toannexb", "-f", "h264", annexBPath]).stderr
        let avcc = Support.readFile(avccPath), reference = Support.readFile(annexBPath)
        guard !avcc.isEmpty, FileManager.default.fileExists(atPath: annexBPath) else { return }  // no samples (init segment)
        let converted: [UInt8]
        do {
            converted = try FormatConversion.avccToAnnexB(avcc[...], configuration: configuration)
        } catch {
            // Damaged samples: a typed error from us, and FFmpeg complains too.
            #expect([H264Error.Code.lengthPastEnd, .truncated, .emptyNALUnit].contains(error.code))
            #expect(log.contains("Invalid NAL unit size"), "\(error)")
            return
        }
        let ours = try AnnexB.split(converted)
        let theirs = try AnnexB.split(reference)
        let a = Self.accessUnits(ours), b = Self.accessUnits(theirs)
        #expect(a.count == b.count)
        if let i = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) {
            Issue.record("access unit \(i) differs: ours \(a[i].count) NAL units, FFmpeg \(b[i].count)")
        }
    }

    /// NAL units grouped into access units, each as a sorted list of byte arrays.
    static func accessUnits(_ units: [NALUnit]) -> [[[UInt8]]] {
        groupedAccessUnits(units).map { $0.map { Array($0.bytes) }.sorted { $0.lexicographicallyPrecedes($1) } }
    }
}
