import H264

/// `h264 inspect`: stream summary and access units.
enum InspectCommand: CLICommand {
    static let name = "inspect"
    static let summary = "summarise a stream and list its access units"
    static let usage = """
    usage: h264 inspect FILE|- [--json] [--fps N/D] [--lenient]
           h264 inspect FILE.mp4 [--json]

    A stream summary (profile, level, RFC 6381 codec string and SDP profile-level-id, size after cropping, chroma format, bit depth,
    frame/field/MBAFF, frame rate, SAR, colour, access units, keyframes, GOP lengths,
    bitrate) and a table of access units in decoding order with their POC, DTS and PTS.

      --json      JSON Lines: one object per access unit (index, offset, size, keyframe, idr,
                  nal_types, slice_types, frame_num, poc, dts, pts), then {"summary": {...}}
      --fps N/D   frame rate for timestamps when the stream has no VUI timing (default 25)
      --lenient   skip bytes before the first start code instead of failing

    An MP4 file (recognised by its first bytes) is listed as its boxes, its tracks (sample
    descriptions, edit lists) and the samples of its video track (offset, size, sync,
    sample_depends_on, DTS and PTS with the edit list applied, description).
    """

    static func run(_ args: inout Arguments) throws {
        let json = args.flag("--json")
        let lenient = args.flag("--lenient")
        var timing = TimestampAssigner.Configuration()
        if let fps = try args.rateOption("--fps") { timing.frameRate = fps }
        let path = try args.positionals(min: 1, max: 1)[0]
        if MP4Conversion.isMP4(path: path) { return try MP4Inspection.run(path: path, json: json) }
        let leading: AnnexB.LeadingDataPolicy = lenient ? .skip : .reject
        let input = try ChunkedInput(path)
        var report = Report(json: json)
        var warnings: [H264Error] = []
        var warningCount = 0
        let warn = { (e: H264Error) in
            warningCount += 1
            if warnings.count < 5 { warnings.append(e) }
        }
        if input.isRewindable {
            // A file: one pass with a presentation delay of 0 measures the delay the stream needs
            // (the timestamps of a whole-stream assignment are those PTS plus that delay) while
            // its lines are held, PTS left out, and printed at the end. Past
            // `Report.maximumHeldBytes` of lines the pass goes on counting only, and a second
            // pass prints the rest.
            timing.presentationDelay = 0
            var parser = AccessUnitParser(timing: timing, leadingData: leading)
            var summary = SummarySPS()
            var count = 0
            var firstError: H264Error?
            report.mode = .holding
            try parser.run(read: input.read, problem: {
                firstError = firstError ?? $0
                warn($0)
            }, body: { au in
                count += 1
                summary.add(au)
                report.add(au)
            })
            if count == 0, let firstError { throw firstError }
            let delay = parser.requiredPresentationDelay
            let totalBytes = input.bytesRead
            report.closeLast(totalBytes: totalBytes)
            report.printHeld(presentationDelay: delay)
            if let from = report.unprintedFrom {
                timing.presentationDelay = delay
                try input.rewind()
                var second = AccessUnitParser(timing: timing, leadingData: leading)
                report.mode = .printing(from: from)
                try second.run(read: input.read, problem: { _ in }, body: { report.add($0) })
                report.closeLast(totalBytes: totalBytes)
            }
            report.finish(totalBytes: totalBytes, sps: summary.sps, timeBase: report.firstTimeBase)
        } else {
            // A pipe: one pass, the reorder depth from the SPS.
            var parser = AccessUnitParser(timing: timing, leadingData: leading)
            try parser.run(read: input.read, problem: warn, body: { report.add($0) })
            report.closeLast(totalBytes: input.bytesRead)
            report.finish(totalBytes: input.bytesRead, sps: parser.store.activeSPS ?? firstSPS(parser.store), timeBase: parser.timeBase)
        }
        for e in warnings { Output.error("warning: \(e.code): \(e.reason)") }
        if warningCount > warnings.count { Output.error("warning: \(warningCount) problems in all") }
    }

    /// Prints access units as they come, one behind (an access unit's size is known when the
    /// next one begins), and the summary at the end; or holds their lines until the
    /// presentation delay is known (``Mode/holding``).
    struct Report {
        /// What happens to an access unit's line.
        enum Mode {
            /// Printed, from the access unit with index `from` on (those before it were printed
            /// by an earlier pass).
            case printing(from: Int)
            /// Held (PTS before the delay) until ``printHeld(presentationDelay:)``.
            case holding
            /// Counted in the statistics only (the held lines reached ``maximumHeldBytes``).
            case counting
        }

        /// The cap on held lines: about 450,000 access units of JSON. A longer file is read a
        /// second time for the lines past it.
        static let maximumHeldBytes = 64 << 20

        let json: Bool
        var mode = Mode.printing(from: 0)
        var held: AccessUnit?
        var stats = StreamStatistics()
        /// The time base of the first access unit.
        var firstTimeBase: TimeBase?
        private var heldText: [UInt8] = []
        /// Per held line: where its text before the PTS ends, where the line ends, its PTS.
        private var heldLines: [(ptsAt: Int, end: Int, pts: Int64?)] = []
        private var stoppedHolding = false
        /// The number of lines held so far (printed or not).
        private var heldCount = 0

        init(json: Bool) {
            self.json = json
            if !json {
                Output.line("  index     offset     size  type  key idr  frame_num       poc       dts       pts  slices")
            }
        }

        /// The index of the first access unit whose line is neither printed nor held, when
        /// holding stopped at ``maximumHeldBytes``.
        var unprintedFrom: Int? { stoppedHolding ? heldCount : nil }

        mutating func add(_ au: AccessUnit) {
            if held == nil && stats.accessUnits == 0 && heldLines.isEmpty { firstTimeBase = au.timeBase }
            if let previous = held { emit(previous, end: au.byteOffset) }
            held = au
        }

        /// Emits the last access unit, which ends where the stream does.
        mutating func closeLast(totalBytes: Int) {
            if let last = held { emit(last, end: totalBytes) }
            held = nil
        }

        /// Prints the held lines, each PTS plus `delay`.
        mutating func printHeld(presentationDelay delay: Int64) {
            var start = 0
            var text: [UInt8] = []
            for line in heldLines {
                text.removeAll(keepingCapacity: true)
                text.append(contentsOf: heldText[start..<line.ptsAt])
                appendPTS(line.pts.map { $0 &+ delay }, to: &text)
                text.append(contentsOf: heldText[line.ptsAt..<line.end])
                Output.bytesLine(text)
                start = line.end
            }
            heldText = []
            heldLines = []
        }

        mutating func finish(totalBytes: Int, sps: SequenceParameterSet?, timeBase: TimeBase?) {
            let summary = stats.summary(sps: sps, timeBase: timeBase, totalBytes: totalBytes)
            if json {
                var o = JSONObject()
                o.add("summary", summary.json)
                Output.line(o.rendered)
            } else {
                Output.line("")
                for line in summary.lines { Output.line(line) }
            }
        }

        /// Appends the PTS column or member value.
        private func appendPTS(_ pts: Int64?, to out: inout [UInt8]) {
            if json {
                if let pts { JSONObject.appendDecimal(pts, to: &out) } else { out.append(contentsOf: "null".utf8) }
            } else {
                out.append(contentsOf: InspectCommand.pad(pts.map(String.init) ?? "-", 10).utf8)
            }
        }

        private mutating func emit(_ au: AccessUnit, end: Int?) {
            let offset = au.byteOffset ?? 0
            let size = max((end ?? offset) - offset, 0)
            switch mode {
            case .printing(let from):
                // A second pass: the statistics were counted by the first.
                guard au.index >= from else { return }
                if from == 0 { stats.add(au, size: size) }
                var text: [UInt8] = []
                Self.appendLine(au, json: json, offset: offset, size: size, to: &text, ptsAt: { text, _ in appendPTS(au.pts, to: &text) })
                Output.bytesLine(text)
            case .holding:
                stats.add(au, size: size)
                var ptsAt = 0
                // (A static function: a method of `self` taking `&heldText` would copy `self`, and
                // with it the held text, for the call.)
                Self.appendLine(au, json: json, offset: offset, size: size, to: &heldText, ptsAt: { _, at in ptsAt = at })
                heldLines.append((ptsAt, heldText.count, au.pts))
                heldCount &+= 1
                if heldText.count >= Self.maximumHeldBytes {
                    mode = .counting
                    stoppedHolding = true
                }
            case .counting:
                stats.add(au, size: size)
            }
        }

        /// Appends the access unit's line to `out` (no newline), JSON or a table row; where the
        /// PTS goes, calls `ptsAt` with the text and the position.
        private static func appendLine(_ au: AccessUnit, json: Bool, offset: Int, size: Int, to out: inout [UInt8],
                                ptsAt: (inout [UInt8], Int) -> Void) {
            if json {
                var o = JSONObject()
                o.add("index", au.index)
                o.add("offset", offset)
                o.add("size", size)
                o.add("keyframe", au.isRandomAccessPoint)
                o.add("idr", au.flags.isSync)
                o.add("nal_types") { text in
                    text.append(UInt8(ascii: "["))
                    for (i, unit) in au.nalUnits.enumerated() {
                        if i > 0 { text.append(UInt8(ascii: ",")) }
                        JSONObject.appendDecimal(Int64(unit.type.rawValue), to: &text)
                    }
                    text.append(UInt8(ascii: "]"))
                }
                o.add("slice_types") { text in
                    text.append(UInt8(ascii: "["))
                    for (i, kind) in au.sliceTypes.enumerated() {
                        if i > 0 { text.append(UInt8(ascii: ",")) }
                        text.append(UInt8(ascii: "\""))
                        text.append(contentsOf: Self.sliceLetters[Int(kind.rawValue)].utf8)
                        text.append(UInt8(ascii: "\""))
                    }
                    text.append(UInt8(ascii: "]"))
                }
                o.add("frame_num", au.frameNum)
                if let poc = au.poc { o.add("poc", poc) } else { o.addNull("poc") }
                if let dts = au.dts { o.add("dts", dts) } else { o.addNull("dts") }
                o.addKey("pts")
                out.append(contentsOf: o.bytes)
                ptsAt(&out, out.count)
                var rest = JSONObject.continuation()
                if let r = au.flags.recoveryFrameCount { rest.add("recovery_frame_cnt", r) }
                if au.flags.isIntraOnlyWithoutIDR { rest.add("intra_only_non_idr", true) }
                if au.formatChange != nil { rest.add("format_change", true) }
                out.append(contentsOf: rest.bytes)
                out.append(UInt8(ascii: "}"))
                return
            }
            let kind = au.flags.isSync ? "IDR" : (au.flags.isRandomAccess ? "RAP" : (au.flags.hasNoPicture ? "-" : "non"))
            let cols: [String] = [
                pad(au.index, 7), pad(offset, 11), pad(size, 9), pad(kind, 6),
                pad(au.isRandomAccessPoint ? "K" : ".", 5), pad(au.flags.isSync ? "1" : "0", 4),
                pad(au.frameNum, 11), pad(au.poc.map(String.init) ?? "-", 10),
                pad(au.dts.map(String.init) ?? "-", 10),
            ]
            out.append(contentsOf: cols.joined().utf8)
            ptsAt(&out, out.count)
            out.append(contentsOf: ("  " + au.sliceTypeLetters.joined(separator: ",")).utf8)
        }

        /// ``AccessUnit/sliceTypeLetters`` by slice kind.
        private static let sliceLetters = ["P", "B", "I", "SP", "SI"]
    }

    /// The SPS the summary describes: the id of the first SPS in the stream, with the content
    /// it last had; gathered access unit by access unit.
    struct SummarySPS {
        private var store = ParameterSetStore()
        private var firstID: Int?

        mutating func add(_ au: AccessUnit) {
            for unit in au.nalUnits where unit.type == .sps {
                guard (try? store.ingest(unit)) != nil, let id = unit.parameterSetID else { continue }
                if firstID == nil { firstID = id }
            }
        }

        var sps: SequenceParameterSet? { firstID.flatMap { store.sps(id: $0) } }
    }

    private static func firstSPS(_ store: ParameterSetStore) -> SequenceParameterSet? {
        (0..<32).lazy.compactMap { store.sps(id: $0) }.first
    }

    static func pad(_ v: Int, _ w: Int) -> String { pad(String(v), w) }
    static func pad(_ s: String, _ w: Int) -> String {
        s.count >= w ? s + " " : String(repeating: " ", count: w - s.count) + s
    }
}

/// The summary of `h264 inspect`: the core's ``AccessUnitStatistics``, printed.
struct StreamStatistics {
    var counts = AccessUnitStatistics()

    var accessUnits: Int { counts.accessUnits }

    mutating func add(_ au: AccessUnit, size: Int) { counts.add(au) }

    struct Summary {
        var lines: [String]
        var json: JSONObject
    }

    func summary(sps: SequenceParameterSet?, timeBase: TimeBase?, totalBytes: Int) -> Summary {
        var lines: [String] = []
        var o = JSONObject()
        var all = counts
        all.finish()
        let gops = all.gopLengths
        let seconds = timeBase.map { $0.seconds(all.presentationSpan) } ?? 0
        if let sps {
            let structure = sps.frameMbsOnlyFlag ? "frames" : (sps.mbAdaptiveFrameFieldFlag ? (all.fields > 0 ? "fields+MBAFF" : "MBAFF") : (all.fields > 0 ? "fields" : "frames (field-capable)"))
            lines.append("profile        \(sps.profileName) (profile_idc \(sps.profileIDC)), level \(sps.levelName) (level_idc \(sps.levelIDC))")
            let codec = ProfileLevel(sps)
            lines.append("codec          \(codec.codecString()), profile-level-id \(codec.profileLevelID)")
            lines.append("size           \(sps.width)x\(sps.height) (coded \(sps.codedWidth)x\(sps.codedHeight))")
            lines.append("chroma         chroma_format_idc \(sps.chromaFormat.rawValue), bit depth \(Int(sps.bitDepthLumaMinus8) + 8)/\(Int(sps.bitDepthChromaMinus8) + 8)")
            lines.append("structure      \(structure)")
            if let r = sps.frameRate {
                let g = gcd(r.numerator, r.denominator)
                lines.append("frame rate     \(r.numerator / g)/\(r.denominator / g) (VUI)")
            }
            if let sar = sps.sampleAspectRatio { lines.append("SAR            \(sar.width):\(sar.height)") }
            if sps.vuiParametersPresentFlag && sps.vui.colourDescriptionPresentFlag {
                let v = sps.vui
                lines.append("colour         primaries \(v.colourPrimaries), transfer \(v.transferCharacteristics), matrix \(v.matrixCoefficients), full range \(v.videoFullRangeFlag ? 1 : 0)")
            }
            o.add("profile_idc", Int(sps.profileIDC))
            o.add("level_idc", Int(sps.levelIDC))
            o.add("codec", codec.codecString())
            o.add("profile_level_id", codec.profileLevelID)
            o.add("width", sps.width)
            o.add("height", sps.height)
            o.add("chroma_format_idc", Int(sps.chromaFormat.rawValue))
            o.add("bit_depth_luma", Int(sps.bitDepthLumaMinus8) + 8)
            o.add("frame_mbs_only", sps.frameMbsOnlyFlag)
            if let r = sps.frameRate {
                let g = gcd(r.numerator, r.denominator)
                o.add("frame_rate", "\(r.numerator / g)/\(r.denominator / g)")
            } else {
                o.addNull("frame_rate")
            }
        }
        lines.append("access units   \(all.accessUnits) (\(all.pictures) pictures, \(all.fields) fields)")
        lines.append("keyframes      \(all.keyframes) (\(all.idrPictures) IDR)")
        if let range = all.gopLengthRange, let mean = all.meanGOPLength {
            lines.append("GOP lengths    min \(range.lowerBound), max \(range.upperBound), mean \(format1(mean))")
        }
        if seconds > 0 {
            lines.append("duration       \(format1(seconds)) s, bitrate \(format1(Double(totalBytes) * 8 / seconds / 1000)) kb/s")
            o.add("bitrate", Double(totalBytes) * 8 / seconds)
            o.add("duration", seconds)
        }
        if all.formatChanges > 0 { lines.append("format changes \(all.formatChanges)") }
        o.add("access_units", all.accessUnits)
        o.add("keyframes", all.keyframes)
        o.add("idr_frames", all.idrPictures)
        o.add("gop_lengths", gops)
        if all.droppedGOPLengths > 0 { o.add("gop_lengths_dropped", all.droppedGOPLengths) }
        if let tb = timeBase { o.add("time_base", tb.description) }
        return Summary(lines: lines, json: o)
    }

    private func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return max(x, 1)
    }

    private func format1(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return String(r)
    }
}
