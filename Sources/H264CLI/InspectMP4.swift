import CommandLineSupport
import H264
import MP4

/// `h264 inspect IN.mp4`: the box tree, the tracks with their sample descriptions and edit
/// lists, and the samples of the first video track (text, or JSON Lines with `--json`).
enum MP4Inspection {
    static func run(path: String, json: Bool) throws {
        let file = try MP4File(readingAtPath: path)
        defer { file.close() }
        let reader = try MP4Reader(file)
        let boxes = try MP4BoxTree.nodes(in: file)
        for node in boxes {
            if json {
                var o = JSONObject()
                o.add("box", node.header.type.description)
                o.add("offset", Int(clamping: node.offset))
                o.add("size", Int(clamping: node.header.size))
                o.add("depth", node.depth)
                Output.line(o.rendered)
            } else {
                let name = String(repeating: "  ", count: node.depth) + node.header.type.description
                let cols: [String] = [name.padding(toLength: max(name.count, 20), withPad: " ", startingAt: 0),
                                      InspectCommand.pad(Int(clamping: node.offset), 12),
                                      InspectCommand.pad(Int(clamping: node.header.size), 12)]
                Output.line(cols.joined())
            }
        }
        if !json { Output.line("") }
        if let t = reader.fileType {
            let brands = t.compatibleBrands.map(\.description).joined(separator: " ")
            if json {
                var o = JSONObject()
                o.add("major_brand", t.majorBrand.description)
                o.add("minor_version", Int(t.minorVersion))
                o.add("compatible_brands", t.compatibleBrands.map(\.description))
                var w = JSONObject()
                w.add("file_type", o)
                Output.line(w.rendered)
            } else {
                Output.line("file type      \(t.majorBrand) (minor \(t.minorVersion)): \(brands)")
            }
        }
        if !json {
            Output.line("layout         \(reader.isFragmented ? "fragmented" : layoutName(boxes))"
                        + (reader.hasTruncatedTail ? ", cut short (the last box is incomplete)" : ""))
        }
        for track in reader.tracks { describe(track, json: json) }
        guard let track = reader.tracks.first(where: { $0.handlerType == "vide" }) else { return }
        if !json {
            Output.line("")
            Output.line("  index       offset      size  sync dep       dts       pts  duration  desc")
        }
        var it = reader.samples(of: track)
        var sync = 0, count = 0
        while let info = try it.next() {
            count += 1
            if info.flags.isSync { sync += 1 }
            if json {
                var o = JSONObject()
                o.add("track", Int(track.trackID))
                o.add("index", info.index)
                o.add("offset", Int(clamping: info.offset))
                o.add("size", info.size)
                o.add("sync", info.flags.isSync)
                o.add("depends_on", Int(info.flags.dependsOn.rawValue))
                o.add("is_depended_on", Int(info.flags.isDependedOn.rawValue))
                o.add("dts", info.decodeTime)
                o.add("pts", info.presentationTime)
                o.add("duration", info.duration)
                o.add("description", info.descriptionIndex + 1)
                Output.line(o.rendered)
            } else {
                let cols: [String] = [
                    InspectCommand.pad(info.index, 7), InspectCommand.pad(Int(clamping: info.offset), 13),
                    InspectCommand.pad(info.size, 10), InspectCommand.pad(info.flags.isSync ? "S" : ".", 6),
                    InspectCommand.pad(Int(info.flags.dependsOn.rawValue), 4), InspectCommand.pad(String(info.decodeTime), 10),
                    InspectCommand.pad(String(info.presentationTime), 10), InspectCommand.pad(String(info.duration), 10),
                    InspectCommand.pad(info.descriptionIndex + 1, 6),
                ]
                Output.line(cols.joined())
            }
        }
        if json {
            var s = JSONObject()
            s.add("samples", count)
            s.add("sync_samples", sync)
            s.add("fragmented", reader.isFragmented)
            s.add("truncated", reader.hasTruncatedTail)
            var o = JSONObject()
            o.add("summary", s)
            Output.line(o.rendered)
        } else {
            Output.line("")
            Output.line("samples        \(count) (\(sync) sync)")
        }
    }

    /// Fast start when `moov` comes before `mdat`.
    static func layoutName(_ boxes: [MP4BoxTree.Node]) -> String {
        let top = boxes.filter { $0.depth == 0 }.map { $0.header.type }
        guard let moov = top.firstIndex(of: "moov"), let mdat = top.firstIndex(of: "mdat") else { return "progressive" }
        return moov < mdat ? "progressive, fast start (moov before mdat)" : "progressive, media first (moov after mdat)"
    }

    static func describe(_ track: MP4Track, json: Bool) {
        let seconds = Double(track.mediaDuration) / Double(max(1, track.timescale))
        if json {
            var o = JSONObject()
            o.add("track_id", Int(track.trackID))
            o.add("handler", track.handlerType.description)
            o.add("timescale", Int(track.timescale))
            o.add("duration", Int(clamping: track.mediaDuration))
            o.add("samples", track.sampleCount)
            o.add("presentation_offset", track.presentationOffset)
            o.add("decode_delay", track.decodeDelay)
            o.add("encrypted", track.isEncrypted)
            o.add("descriptions", track.descriptions.map(\.format.description))
            o.add("codecs", track.descriptions.compactMap(\.codecString))
            var w = JSONObject()
            w.add("track", o)
            Output.line(w.rendered)
            return
        }
        Output.line("track \(track.trackID)        \(track.handlerType), timescale \(track.timescale), \(track.sampleCount) samples, "
                    + "media duration \(track.mediaDuration) (\(String(format: seconds))) s")
        for edit in track.edits {
            Output.line("  edit         segment_duration \(edit.segmentDuration), media_time \(edit.mediaTime)"
                        + (edit.mediaRate != 0x10000 ? ", media_rate \(edit.mediaRate)" : ""))
        }
        if track.presentationOffset != 0 || track.decodeDelay != 0 {
            Output.line("  times        presentation offset \(track.presentationOffset), decode delay \(track.decodeDelay)")
        }
        if track.orientation != .identity {
            Output.line("  orientation  \(track.orientation.map { "\($0) (tkhd matrix)" } ?? "tkhd matrix not a quarter turn")")
        }
        for (k, d) in track.descriptions.enumerated() {
            var parts = ["\(d.format)"]
            if d.width > 0 { parts.append("\(d.width)x\(d.height)") }
            if let c = d.codecString { parts.append(c) }
            if let r = d.decoderConfiguration {
                parts.append("length size \(r.nalUnitLengthSize), \(r.sequenceParameterSets.count) SPS, \(r.pictureParameterSets.count) PPS")
            }
            if let p = d.pixelAspectRatio { parts.append("pasp \(p.horizontalSpacing):\(p.verticalSpacing)") }
            if let c = d.colour {
                parts.append(c.colourType == "nclx" || c.colourType == "nclc"
                             ? "colr \(c.colourType) \(c.colourPrimaries)/\(c.transferCharacteristics)/\(c.matrixCoefficients)\(c.fullRange ? " full" : "")"
                             : "colr \(c.colourType)")
            }
            if let o = d.originalFormat { parts.append("encrypted (\(o))") }
            Output.line("  description \(k + 1)  " + parts.joined(separator: ", "))
        }
    }
}

private extension String {
    /// Seconds with three decimals.
    init(format seconds: Double) {
        let ms = Int((seconds * 1000).rounded())
        let frac = String(ms % 1000)
        self = "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }
}
