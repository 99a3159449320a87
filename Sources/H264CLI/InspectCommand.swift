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

    /// Prints access units as they come and the summary at the end; or holds their lines until
    /// the presentation delay is known (``Mode/holding``).
    ///
    /// A line is written when its access unit arrives, except its size, known when the next one
    /// begins: what follows the size is kept in ``Pending`` (one reused buffer) and the access
    /// unit is not held, so the chunks it refers to are let go of at once. No allocation per
    /// access unit: the line buffers are reused and lines go straight into the held text or
    /// the output buffer.
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

        /// The default cap on held lines: about 450,000 access units of JSON. A longer file is
        /// read a second time for the lines past it.
        static let defaultMaximumHeldBytes = 64 << 20

        let json: Bool
        /// The cap on held lines (``defaultMaximumHeldBytes``; tests set a small one to reach the
        /// second pass).
        let maximumHeldBytes: Int
        var mode = Mode.printing(from: 0)
        var stats = StreamStatistics()
        /// The time base of the first access unit.
        var firstTimeBase: TimeBase?
        private var seenAny = false

        /// The line of the last access unit, but for its size: where it starts, and the text
        /// after the size (with the place of the PTS, and the PTS).
        private struct Pending {
            var index = 0
            var offset = 0
            var end: Int?
            var tail: [UInt8] = []
            var ptsAt = 0
            var pts: Int64?
            var isSet = false
        }
        private var pending = Pending()

        private var heldText: [UInt8] = []
        /// Per held line: where its text before the PTS ends, where the line ends, its PTS.
        private var heldLines: [(ptsAt: Int, end: Int, pts: Int64?)] = []
        private var stoppedHolding = false
        /// The number of lines held so far (printed or not).
        private var heldCount = 0

        init(json: Bool, maximumHeldBytes: Int = Report.defaultMaximumHeldBytes) {
            self.json = json
            self.maximumHeldBytes = maximumHeldBytes
            if !json {
                Output.line("  index     offset     size  type  key idr  frame_num       poc       dts       pts  slices")
            }
        }

        /// The index of the first access unit whose line is neither printed nor held, when
        /// holding stopped at ``maximumHeldBytes``.
        var unprintedFrom: Int? { stoppedHolding ? heldCount : nil }

        mutating func add(_ au: AccessUnit) {
            if !seenAny {
                seenAny = true
                firstTimeBase = au.timeBase
            }
            if pending.isSet { emitPending(end: au.byteOffset) }
            let offset = au.byteOffset ?? 0
            switch mode {
            case .printing(let from):
                // A second pass: the statistics were counted by the first.
                guard au.index >= from else { return }
                if from == 0 { stats.add(au) }
            case .holding:
                stats.add(au)
            case .counting:
                stats.add(au)
                return
            }
            pending.isSet = true
            pending.index = au.index
            pending.offset = offset
            pending.pts = au.pts
            pending.tail.removeAll(keepingCapacity: true)
            if json {
                Self.appendJSONTail(au, to: &pending.tail, ptsAt: &pending.ptsAt)
            } else {
                Self.appendTableTail(au, to: &pending.tail, ptsAt: &pending.ptsAt)
            }
        }

        /// Emits the last access unit, which ends where the stream does.
        mutating func closeLast(totalBytes: Int) {
            if pending.isSet { emitPending(end: totalBytes) }
        }

        /// Prints the held lines, each PTS plus `delay`.
        mutating func printHeld(presentationDelay delay: Int64) {
            var start = 0
            for line in heldLines {
                Output.appendLine { out in
                    out.append(contentsOf: heldText[start..<line.ptsAt])
                    appendPTS(line.pts.map { $0 &+ delay }, to: &out)
                    out.append(contentsOf: heldText[line.ptsAt..<line.end])
                }
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
            } else if let pts {
                Self.appendPadded(pts, 10, to: &out)
            } else {
                Self.appendPadded("-", 10, to: &out)
            }
        }

        /// Writes the pending line, its size now known, to the output or the held text.
        private mutating func emitPending(end: Int?) {
            pending.isSet = false
            let size = max((end ?? pending.offset) - pending.offset, 0)
            switch mode {
            case .printing:
                Output.appendLine { out in
                    Self.appendHead(json: json, index: pending.index, offset: pending.offset, size: size, to: &out)
                    out.append(contentsOf: pending.tail[..<pending.ptsAt])
                    appendPTS(pending.pts, to: &out)
                    out.append(contentsOf: pending.tail[pending.ptsAt...])
                }
            case .holding:
                Self.appendHead(json: json, index: pending.index, offset: pending.offset, size: size, to: &heldText)
                heldText.append(contentsOf: pending.tail[..<pending.ptsAt])
                let ptsAt = heldText.count
                heldText.append(contentsOf: pending.tail[pending.ptsAt...])
                heldLines.append((ptsAt, heldText.count, pending.pts))
                heldCount &+= 1
                if heldText.count >= maximumHeldBytes {
                    mode = .counting
                    stoppedHolding = true
                }
            case .counting:
                break
            }
        }

        /// The start of a line: index, offset and size. (Static, as the other line writers: a
        /// method of `self` taking `&heldText` would copy `self`, and with it the held text,
        /// for the call.)
        private static func appendHead(json: Bool, index: Int, offset: Int, size: Int, to out: inout [UInt8]) {
            if json {
                out.append(contentsOf: #"{"index":"#.utf8)
                JSONObject.appendDecimal(Int64(index), to: &out)
                out.append(contentsOf: #","offset":"#.utf8)
                JSONObject.appendDecimal(Int64(offset), to: &out)
                out.append(contentsOf: #","size":"#.utf8)
                JSONObject.appendDecimal(Int64(size), to: &out)
            } else {
                appendPadded(Int64(index), 7, to: &out)
                appendPadded(Int64(offset), 11, to: &out)
                appendPadded(Int64(size), 9, to: &out)
            }
        }

        /// Appends the JSON members after `size` (no newline); `ptsAt` is set to where the PTS
        /// value goes.
        private static func appendJSONTail(_ au: AccessUnit, to out: inout [UInt8], ptsAt: inout Int) {
            var o = JSONObject.continuation(reusing: out)
            out = []
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
            ptsAt = o.bytes.count
            if let r = au.flags.recoveryFrameCount { o.add("recovery_frame_cnt", r) }
            if au.flags.isIntraOnlyWithoutIDR { o.add("intra_only_non_idr", true) }
            if au.formatChange != nil { o.add("format_change", true) }
            out = o.takeBytes()
            out.append(UInt8(ascii: "}"))
        }

        /// Appends the table columns after `size` (no newline); `ptsAt` is set to where the PTS
        /// column goes.
        private static func appendTableTail(_ au: AccessUnit, to out: inout [UInt8], ptsAt: inout Int) {
            let kind: StaticString = au.flags.isSync ? "IDR" : (au.flags.isRandomAccess ? "RAP" : (au.flags.hasNoPicture ? "-" : "non"))
            appendPadded(kind, 6, to: &out)
            appendPadded(au.isRandomAccessPoint ? "K" : ".", 5, to: &out)
            appendPadded(au.flags.isSync ? "1" : "0", 4, to: &out)
            appendPadded(Int64(au.frameNum), 11, to: &out)
            if let poc = au.poc { appendPadded(poc, 10, to: &out) } else { appendPadded("-", 10, to: &out) }
            if let dts = au.dts { appendPadded(dts, 10, to: &out) } else { appendPadded("-", 10, to: &out) }
            ptsAt = out.count
            out.append(contentsOf: "  ".utf8)
            for (i, kind) in au.sliceTypes.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: Self.sliceLetters[Int(kind.rawValue)].utf8)
            }
        }

        /// ``InspectCommand/pad(_:_:)-(Int,Int)`` of a number, appended as bytes.
        private static func appendPadded(_ value: Int64, _ width: Int, to out: inout [UInt8]) {
            let start = out.count
            JSONObject.appendDecimal(value, to: &out)
            padAppended(from: start, width, in: &out)
        }

        /// ``InspectCommand/pad(_:_:)-(String,Int)`` of ASCII text, appended as bytes.
        private static func appendPadded(_ text: StaticString, _ width: Int, to out: inout [UInt8]) {
            let start = out.count
            text.withUTF8Buffer { out.append(contentsOf: $0) }
            padAppended(from: start, width, in: &out)
        }

        /// Right-aligns the text appended from `start` in `width` columns, or follows it with a
        /// space when it fills them.
        private static func padAppended(from start: Int, _ width: Int, in out: inout [UInt8]) {
            let length = out.count &- start
            if length >= width {
                out.append(UInt8(ascii: " "))
            } else {
                out.insert(contentsOf: repeatElement(UInt8(ascii: " "), count: width &- length), at: start)
            }
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

    mutating func add(_ au: AccessUnit) { counts.add(au) }

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
