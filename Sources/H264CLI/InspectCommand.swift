import CommandLineSupport
import Glibc
import H264

/// `h264 inspect`: stream summary and access units.
enum InspectCommand: CLICommand {
    static let name = "inspect"
    static let summary = "summarise a stream (Annex-B, MP4 or MPEG-TS) and list its access units or samples"
    static let usage = """
    usage: h264 inspect FILE|- [--json] [--fps N/D] [--lenient]
           h264 inspect FILE.mp4 [--json]
           h264 inspect FILE.ts [--json]

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

    A transport stream (FILE ending in .ts, .m2ts or .mts, or whose first bytes are 188- or
    192-byte packets; not from stdin) is listed as it is read: each program map when it first comes and when
    it changes (program_number, program_map_PID, PCR_PID, version_number, and each
    elementary_PID with its stream_type), continuity errors (a continuity_counter other than
    the one expected), discontinuity_indicator packets and lost sync, and the H.264 access
    units (index, PID, size with 4-byte start codes, key: I for IDR, R for a recovery point,
    ! when packets were lost in it; DTS and PTS on the 90 kHz clock, unrolled past 2^33;
    - for an access unit that is not first in its PES). Then a summary: packets and their
    size, bytes skipped, the PCR of each PID (count, first, last, the largest interval
    between two: ISO/IEC 13818-1 asks for at most 100 ms), continuity errors and
    discontinuities per PID, access units, and the stream summary above of the first H.264
    stream (profile, size, GOPs, bitrate). With --json, JSON Lines keyed by the spec's
    names: {"program": ...}, {"continuity_error": ...}, {"discontinuity_indicator": ...},
    one object per access unit, then {"summary": {...}}.
    """

    static func run(_ args: inout Arguments) throws {
        let json = args.flag("--json")
        let lenient = args.flag("--lenient")
        var timing = TimestampOptions()
        if let fps = try args.rateOption("--fps") { timing.frameRate = fps }
        let path = try args.positionals(min: 1, max: 1)[0]
        if MP4Conversion.isMP4(path: path) { return try MP4Inspection.run(path: path, json: json) }
        if path != "-", try TSConversion.isTransportStream(ChunkedInput(path)) { return try TSInspection.run(path: path, json: json) }
        let leading: AnnexB.LeadingDataPolicy = lenient ? .skip : .reject
        let input = try ChunkedInput(path)
        let heldCap = try heldBytesSetting()
        // The setting can only lower the cap: memory stays within the documented bound.
        var report = Report(json: json, maximumHeldBytes: min(heldCap ?? .max, Report.defaultMaximumHeldBytes))
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
            noteEarlyPresentations(parser)
            let delay = parser.requiredPresentationDelay
            let totalBytes = input.bytesRead
            report.closeLast(totalBytes: totalBytes)
            // The whole file is counted: a table's reader sees the summary first.
            report.printSummaryFirst(totalBytes: totalBytes, sps: summary.sps, timeBase: report.firstTimeBase)
            report.printHeld(presentationDelay: delay)
            if let from = report.unprintedFrom {
                if let heldCap { Output.error("note: held lines reached \(heldCap) bytes: a second pass prints access units from \(from) on") }
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
            noteEarlyPresentations(parser)
            report.closeLast(totalBytes: input.bytesRead)
            report.finish(totalBytes: input.bytesRead, sps: parser.store.activeSPS ?? firstSPS(parser.store), timeBase: parser.timeBase)
        }
        for e in warnings { Output.error("warning: \(e.code): \(e.reason)") }
        if warningCount > warnings.count { Output.error("warning: \(warningCount) problems in all") }
    }

    /// Says on stderr how many pictures were given a PTS before their turn in POC order (their
    /// access units would have waited behind more than the parser holds).
    private static func noteEarlyPresentations(_ parser: AccessUnitParser) {
        guard parser.earlyPresentationCount > 0 else { return }
        Output.error("warning: \(parser.earlyPresentationCount) pictures presented before their turn in POC order: "
                     + "waiting for it would have held more than \(parser.heldAccessUnitLimit ?? 0) access units")
    }

    /// The environment variable that sets the cap on held lines, for tests: a small cap makes a
    /// small stream take the second pass, and `inspect` then says on stderr where it began.
    static let heldBytesVariable = "H264_INSPECT_MAXIMUM_HELD_BYTES"

    /// The cap ``heldBytesVariable`` sets, if it is set.
    private static func heldBytesSetting() throws -> Int? {
        guard let value = getenv(heldBytesVariable).map({ String(cString: $0) }) else { return nil }
        guard let bytes = Int(value), bytes >= 0 else { throw CLIError("\(heldBytesVariable): '\(value)' is not a whole number of bytes") }
        return bytes
    }

    /// Prints access units as they come and the summary at the end; or holds their lines until
    /// the presentation delay is known (``Mode/holding``).
    ///
    /// A line is written when its access unit arrives, except its start (index, offset, size:
    /// the size is known when the next access unit begins), so no access unit is held and the
    /// chunks it refers to are let go of at once. Nothing is allocated per access unit: lines
    /// are written (the ``JSON`` appenders) into reused buffers, the held text or the output buffer.
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
        /// The cap on the memory of held lines (text and positions).
        let maximumHeldBytes: Int
        var mode = Mode.printing(from: 0)
        var stats = StreamStatistics()
        /// The time base of the first access unit.
        var firstTimeBase: TimeBase?
        private var seenAny = false

        /// A line: its start (written last: the size is known when the next access unit
        /// begins) and where the rest of its text is, with the place of the PTS.
        private struct Line {
            var index: Int
            var offset: Int
            var size = 0
            var pts: Int64?
            /// The text after the size: `start..<end` of the held text (or of `openText`), the
            /// PTS going at `ptsAt`.
            var start: Int
            var ptsAt: Int
            var end: Int
        }
        /// The last line, whose size is not known yet.
        private var open: Line?
        /// The text of the open line when printing.
        private var openText: [UInt8] = []

        /// The held lines' text after their sizes, PTS left out.
        private var heldText: [UInt8] = []
        private var heldLines: [Line] = []
        private var stoppedHolding = false
        /// The number of lines held so far (printed or not).
        private var heldCount = 0
        /// Whether the text table's column names are printed.
        private var printedHeader = false
        /// Whether the summary is printed (before the table: a file's first pass counted all).
        private var printedSummary = false

        init(json: Bool, maximumHeldBytes: Int = Report.defaultMaximumHeldBytes) {
            self.json = json
            self.maximumHeldBytes = maximumHeldBytes
        }

        /// The text table's column names, once, before its first line. DTS and PTS count ticks
        /// of the summary's time base.
        private mutating func printHeaderOnce() {
            guard !json, !printedHeader else { return }
            printedHeader = true
            Output.line("  index     offset     size  type  key idr  frame_num       poc       dts       pts  slices")
        }

        /// Prints a text summary before the table (JSON Lines keep it last, where their readers
        /// look for it).
        mutating func printSummaryFirst(totalBytes: Int, sps: SequenceParameterSet?, timeBase: TimeBase?) {
            guard !json else { return }
            let summary = stats.summary(sps: sps, timeBase: timeBase, totalBytes: totalBytes)
            for line in summary.lines { Output.line(line) }
            Output.line("")
            printedSummary = true
        }

        /// The index of the first access unit whose line is neither printed nor held, when
        /// holding stopped at ``maximumHeldBytes``.
        var unprintedFrom: Int? { stoppedHolding ? heldCount : nil }

        mutating func add(_ au: AccessUnit) {
            if !seenAny {
                seenAny = true
                firstTimeBase = au.timeBase
            }
            if open != nil { closeOpen(end: au.byteOffset) }
            switch mode {
            case .printing(let from):
                // A second pass: the statistics were counted by the first.
                guard au.index >= from else { return }
                if from == 0 { stats.add(au) }
                openText.removeAll(keepingCapacity: true)
                open = Self.writeRest(au, json: json, to: &openText)
            case .holding:
                stats.add(au)
                open = Self.writeRest(au, json: json, to: &heldText)
            case .counting:
                stats.add(au)
            }
        }

        /// Emits the last access unit, which ends where the stream does.
        mutating func closeLast(totalBytes: Int) {
            if open != nil { closeOpen(end: totalBytes) }
        }

        /// Prints the held lines, each PTS plus `delay`.
        mutating func printHeld(presentationDelay delay: Int64) {
            if !heldLines.isEmpty { printHeaderOnce() }
            for line in heldLines {
                Output.appendLine { out in
                    Self.write(line, text: heldText, presentationDelay: delay, json: json, to: &out)
                }
            }
            heldText = []
            heldLines = []
        }

        mutating func finish(totalBytes: Int, sps: SequenceParameterSet?, timeBase: TimeBase?) {
            guard json || !printedSummary else { return }  // a file's text summary came first
            let summary = stats.summary(sps: sps, timeBase: timeBase, totalBytes: totalBytes)
            if json {
                var o = JSONObject()
                o.add("summary", summary.json)
                Output.line(o.rendered)
            } else {
                if printedHeader { Output.line("") }
                for line in summary.lines { Output.line(line) }
            }
        }

        /// Ends the open line at `end`: printed, or held.
        private mutating func closeOpen(end: Int?) {
            guard var line = open else { return }
            open = nil
            line.size = max((end ?? line.offset) - line.offset, 0)
            switch mode {
            case .printing:
                printHeaderOnce()
                Output.appendLine { out in Self.write(line, text: openText, presentationDelay: 0, json: json, to: &out) }
            case .holding:
                heldLines.append(line)
                heldCount &+= 1
                if heldText.count &+ heldLines.count &* MemoryLayout<Line>.stride >= maximumHeldBytes {
                    mode = .counting
                    stoppedHolding = true
                }
            case .counting:
                break
            }
        }

        /// Writes a whole line (no newline): its start, its text up to the PTS, the PTS plus
        /// `delay`, the rest.
        private static func write(_ line: Line, text: [UInt8], presentationDelay delay: Int64, json: Bool, to out: inout [UInt8]) {
            // Three numbers of at most 20 bytes, each with its key (at most 12) or padding.
            out.append(addingCapacity: 3 &* (JSON.maximumDecimalLength &+ 12)) { out in
                if json {
                    JSON.appendLiteral(#"{"index":"#, to: &out)
                    JSON.appendDecimal(Int64(line.index), to: &out)
                    JSON.appendLiteral(#","offset":"#, to: &out)
                    JSON.appendDecimal(Int64(line.offset), to: &out)
                    JSON.appendLiteral(#","size":"#, to: &out)
                    JSON.appendDecimal(Int64(line.size), to: &out)
                } else {
                    appendPadded(Int64(line.index), width: 7, to: &out)
                    appendPadded(Int64(line.offset), width: 11, to: &out)
                    appendPadded(Int64(line.size), width: 9, to: &out)
                }
            }
            out.append(contentsOf: text[line.start..<line.ptsAt])
            let pts = line.pts.map { $0 &+ delay }
            out.append(addingCapacity: JSON.maximumDecimalLength &+ 10) { out in
                if json {
                    if let pts { JSON.appendDecimal(pts, to: &out) } else { JSON.appendLiteral("null", to: &out) }
                } else if let pts {
                    appendPadded(pts, width: 10, to: &out)
                } else {
                    appendPadded("-", width: 10, to: &out)
                }
            }
            out.append(contentsOf: text[line.ptsAt..<line.end])
        }

        /// Appends the access unit's line after its size, PTS left out, to `out`; returns the
        /// open line.
        private static func writeRest(_ au: AccessUnit, json: Bool, to out: inout [UInt8]) -> Line {
            let start = out.count
            var ptsAt = 0
            // Fixed text and numbers take less than 320 bytes; a NAL unit type at most 3 and a
            // comma, a slice type at most 5.
            let bound = 320 &+ 4 &* au.nalUnits.count &+ 5 &* au.sliceTypes.count
            out.append(addingCapacity: bound) { out in
                if json {
                    JSON.appendLiteral(#","keyframe":"#, to: &out)
                    JSON.appendBool(au.isRandomAccessPoint, to: &out)
                    JSON.appendLiteral(#","idr":"#, to: &out)
                    JSON.appendBool(au.flags.isSync, to: &out)
                    JSON.appendLiteral(#","nal_types":["#, to: &out)
                    for (i, unit) in au.nalUnits.enumerated() {
                        if i > 0 { out.append(UInt8(ascii: ",")) }
                        JSON.appendDecimal(Int64(unit.type.rawValue), to: &out)
                    }
                    JSON.appendLiteral(#"],"slice_types":["#, to: &out)
                    for (i, kind) in au.sliceTypes.enumerated() {
                        if i > 0 { out.append(UInt8(ascii: ",")) }
                        out.append(UInt8(ascii: "\""))
                        JSON.appendLiteral(Self.sliceLetters[Int(kind.rawValue)], to: &out)
                        out.append(UInt8(ascii: "\""))
                    }
                    JSON.appendLiteral(#"],"frame_num":"#, to: &out)
                    JSON.appendDecimal(Int64(au.frameNum), to: &out)
                    JSON.appendLiteral(#","poc":"#, to: &out)
                    if let poc = au.poc { JSON.appendDecimal(poc, to: &out) } else { JSON.appendLiteral("null", to: &out) }
                    JSON.appendLiteral(#","dts":"#, to: &out)
                    if let dts = au.dts { JSON.appendDecimal(dts, to: &out) } else { JSON.appendLiteral("null", to: &out) }
                    JSON.appendLiteral(#","pts":"#, to: &out)
                    ptsAt = start &+ out.count
                    if let r = au.flags.recoveryFrameCount {
                        JSON.appendLiteral(#","recovery_frame_cnt":"#, to: &out)
                        JSON.appendDecimal(Int64(r), to: &out)
                    }
                    if au.flags.isIntraOnlyWithoutIDR { JSON.appendLiteral(#","intra_only_non_idr":true"#, to: &out) }
                    if au.formatChange != nil { JSON.appendLiteral(#","format_change":true"#, to: &out) }
                    out.append(UInt8(ascii: "}"))
                } else {
                    let kind: StaticString = au.flags.isSync ? "IDR" : (au.flags.isRandomAccess ? "RAP" : (au.flags.hasNoPicture ? "-" : "non"))
                    appendPadded(kind, width: 6, to: &out)
                    appendPadded(au.isRandomAccessPoint ? "K" : ".", width: 5, to: &out)
                    appendPadded(au.flags.isSync ? "1" : "0", width: 4, to: &out)
                    appendPadded(Int64(au.frameNum), width: 11, to: &out)
                    if let poc = au.poc { appendPadded(poc, width: 10, to: &out) } else { appendPadded("-", width: 10, to: &out) }
                    if let dts = au.dts { appendPadded(dts, width: 10, to: &out) } else { appendPadded("-", width: 10, to: &out) }
                    ptsAt = start &+ out.count
                    JSON.appendLiteral("  ", to: &out)
                    for (i, kind) in au.sliceTypes.enumerated() {
                        if i > 0 { out.append(UInt8(ascii: ",")) }
                        JSON.appendLiteral(Self.sliceLetters[Int(kind.rawValue)], to: &out)
                    }
                }
            }
            return Line(index: au.index, offset: au.byteOffset ?? 0, pts: au.pts, start: start, ptsAt: ptsAt, end: out.count)
        }

        /// ``AccessUnit/sliceTypeLetters`` by slice kind.
        private static let sliceLetters: [StaticString] = ["P", "B", "I", "SP", "SI"]
    }

    /// The SPS the summary describes: the id of the first SPS in the stream, with the content
    /// it last had; gathered access unit by access unit.
    struct SummarySPS {
        private var store = ParameterSetStore()
        private var firstID: Int?
        /// The bytes of the last SPS with that id that was stored: the same bytes again (a stream
        /// that repeats its SPS before every keyframe) are not parsed again. SPS with other ids
        /// are not kept: the summary describes only the first.
        private var lastStored: [UInt8] = []

        mutating func add(_ au: AccessUnit) {
            for unit in au.nalUnits where unit.type == .sps {
                if let firstID {
                    guard unit.parameterSetID == firstID, !unit.bytes.elementsEqual(lastStored) else { continue }
                    guard (try? store.ingest(unit)) != nil else { continue }
                } else {
                    guard (try? store.ingest(unit)) != nil, let id = unit.parameterSetID else { continue }
                    firstID = id
                }
                lastStored.removeAll(keepingCapacity: true)
                lastStored.append(contentsOf: unit.bytes)
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

    /// Appends `value` as ``pad(_:_:)`` writes it: right-aligned in `width` columns, or followed
    /// by a space when it fills them (the columns of the table), without an intermediate string.
    static func appendPadded(_ value: Int64, width: Int, to out: inout OutputSpan<UInt8>) {
        var length = value < 0 ? 2 : 1
        var rest = value.magnitude / 10
        while rest > 0 {
            length &+= 1
            rest /= 10
        }
        if length < width { out.append(repeating: UInt8(ascii: " "), count: width &- length) }
        JSON.appendDecimal(value, to: &out)
        if length >= width { out.append(UInt8(ascii: " ")) }
    }

    /// Appends ASCII `text` as ``pad(_:_:)`` writes it.
    static func appendPadded(_ text: StaticString, width: Int, to out: inout OutputSpan<UInt8>) {
        let length = text.utf8CodeUnitCount
        if length < width { out.append(repeating: UInt8(ascii: " "), count: width &- length) }
        JSON.appendLiteral(text, to: &out)
        if length >= width { out.append(UInt8(ascii: " ")) }
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
            if let colour = sps.colorDescription { lines.append("colour         \(colour)") }
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
        if let timeBase {
            lines.append("time base      \(timeBase) s (the unit of DTS and PTS\(sps?.frameRate == nil ? ", from --fps" : ""))")
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
