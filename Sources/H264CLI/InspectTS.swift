import CommandLineSupport
import H264
import MPEGTS

/// `h264 inspect X.ts`: the library's `TSParser` events as they come (program maps, continuity
/// errors, discontinuities, access units), then its `TSStreamSummary` (text, or JSON Lines with
/// `--json`, keyed by the ISO/IEC 13818-1 names). The input is read in 1 MiB chunks; nothing is
/// held per access unit.
enum TSInspection {
    static func run(path: String, json: Bool) throws {
        let input = try ChunkedInput(path)
        var parser = TSParser()
        var summary = TSStreamSummary()
        var index = 0
        var headerPrinted = false
        // The stream summary `inspect` prints for Annex-B (profile, size, GOPs, bitrate), from
        // the first H.264 stream's access units and its first SPS.
        var stream = StreamStatistics()
        var streamPID: UInt16?
        var store = ParameterSetStore()
        var sps: SequenceParameterSet?
        func drain() {
            while let event = parser.next() {
                summary.add(event)
                switch event {
                case .programMap(let map):
                    printProgram(map, json: json)
                    headerPrinted = false
                case .continuityError(let pid, let expected, let found):
                    if json {
                        var o = JSONObject()
                        o.add("PID", Int(pid))
                        o.add("expected_continuity_counter", Int(expected))
                        o.add("continuity_counter", Int(found))
                        wrap("continuity_error", o)
                    } else {
                        Output.line("continuity error  PID \(pid): continuity_counter \(found), expected \(expected)")
                    }
                case .discontinuity(let pid):
                    if json {
                        var o = JSONObject()
                        o.add("PID", Int(pid))
                        wrap("discontinuity_indicator", o)
                    } else {
                        Output.line("discontinuity     PID \(pid): discontinuity_indicator")
                    }
                case .syncLost(let skipped):
                    if json {
                        var o = JSONObject()
                        o.add("skipped_bytes", skipped)
                        wrap("sync_lost", o)
                    } else {
                        Output.line("sync lost         \(skipped) bytes skipped")
                    }
                case .accessUnit(let au):
                    if !json && !headerPrinted {
                        Output.line("  index    PID       size  key          dts          pts")
                        headerPrinted = true
                    }
                    printAccessUnit(au, index: index, json: json)
                    index += 1
                    if streamPID == nil { streamPID = au.pid }
                    guard au.pid == streamPID else { break }
                    stream.add(au.timedAccessUnit)
                    if sps == nil {
                        for unit in au.nalUnits where unit.type == .sps { _ = try? store.ingest(unit) }
                        sps = (0..<32).lazy.compactMap { store.sps(id: $0) }.first
                    }
                case .problem, .programClockReference, .elementaryStreamPacket:
                    break
                }
            }
        }
        // SIGINT, SIGTERM: the summary of what was read.
        while let chunk = try input.read() {
            parser.append(chunk)
            drain()
            if Interruption.isRequested { break }
        }
        parser.finish()
        drain()
        summary.finish(parser)
        printSummary(summary, stream: stream.summary(sps: sps, timeBase: TimeBase(numerator: 1, denominator: 90_000),
                                                     totalBytes: summary.accessUnitBytes), json: json)
        for e in summary.firstProblems { Output.error("warning: \(e.code): \(e.reason)") }
        if summary.problems > summary.firstProblems.count { Output.error("warning: \(summary.problems) problems in all") }
    }

    private static func wrap(_ key: StaticString, _ o: JSONObject) {
        var w = JSONObject()
        w.add(key, o)
        Output.line(w.rendered)
    }

    private static func programJSON(_ map: TSProgramMap) -> JSONObject {
        var o = JSONObject()
        o.add("program_number", Int(map.programNumber))
        o.add("program_map_PID", Int(map.pmtPID))
        o.add("PCR_PID", Int(map.pcrPID))
        o.add("version_number", Int(map.version))
        o.add("streams", map.streams.map { s in
            var e = JSONObject()
            e.add("elementary_PID", Int(s.pid))
            e.add("stream_type", Int(s.streamType.rawValue))
            if let name = s.streamType.name { e.add("stream_type_name", name) }
            return e
        })
        return o
    }

    private static func printProgram(_ map: TSProgramMap, json: Bool) {
        if json { return wrap("program", programJSON(map)) }
        Output.line("program \(map.programNumber)  program_map_PID \(map.pmtPID) (0x\(hex(map.pmtPID))), PCR_PID \(map.pcrPID) "
                    + "(0x\(hex(map.pcrPID))), version_number \(map.version)")
        for s in map.streams {
            Output.line("  stream  elementary_PID \(s.pid) (0x\(hex(s.pid))), stream_type 0x\(hex(UInt16(s.streamType.rawValue), width: 2)) "
                        + "(\(s.streamType.name ?? "unknown"))")
        }
    }

    private static func printAccessUnit(_ au: TSAccessUnit, index: Int, json: Bool) {
        var size = 0
        for unit in au.nalUnits { size += unit.bytes.count + 4 }
        let t = au.timestamps
        if json {
            var o = JSONObject()
            o.add("index", index)
            o.add("PID", Int(au.pid))
            o.add("program_number", Int(au.programNumber))
            o.add("size", size)
            o.add("keyframe", au.flags.isSync)
            o.add("random_access", au.isRandomAccessPoint)
            if let t { o.add("dts", t.dts); o.add("pts", t.pts) } else { o.addNull("dts"); o.addNull("pts") }
            o.add("may_be_incomplete", au.mayBeIncomplete)
            Output.line(o.rendered)
        } else {
            let key = au.flags.isSync ? "I" : (au.isRandomAccessPoint ? "R" : ".")
            let cols = [InspectCommand.pad(index, 7), InspectCommand.pad(Int(au.pid), 7), InspectCommand.pad(size, 11),
                        InspectCommand.pad(key + (au.mayBeIncomplete ? "!" : ""), 5),
                        InspectCommand.pad(t.map { String($0.dts) } ?? "-", 13), InspectCommand.pad(t.map { String($0.pts) } ?? "-", 13)]
            Output.line(cols.joined())
        }
    }

    private static func printSummary(_ summary: TSStreamSummary, stream: StreamStatistics.Summary, json: Bool) {
        let s = summary.statistics
        let seconds = Double(summary.decodingSpan) / 90_000
        if json {
            var o = JSONObject()
            o.add("packets", s.packets)
            if let size = summary.packetSize { o.add("packet_size", size) } else { o.addNull("packet_size") }
            o.add("skipped_bytes", s.skippedBytes)
            o.add("programs", summary.programs.map(programJSON))
            o.add("PCR", summary.programClockReferences.map { p in
                var e = JSONObject()
                e.add("PCR_PID", Int(p.pid))
                e.add("count", p.count)
                e.add("first_program_clock_reference", p.first.value)
                e.add("last_program_clock_reference", p.last.value)
                if let largest = p.largestInterval { e.add("largest_interval_ms", Double(largest) / 27_000) } else { e.addNull("largest_interval_ms") }
                return e
            })
            o.add("continuity_errors", s.continuityErrors)
            o.add("discontinuities", s.discontinuities)
            o.add("continuity", summary.health.map { h in
                var e = JSONObject()
                e.add("PID", Int(h.pid))
                e.add("continuity_errors", h.continuityErrors)
                e.add("discontinuities", h.discontinuities)
                return e
            })
            o.add("duplicate_packets", s.duplicatePackets)
            o.add("transport_error_packets", s.transportErrors)
            o.add("scrambled_packets", s.scrambledPackets)
            o.add("problems", s.problems)
            o.add("access_units", summary.accessUnits)
            o.add("keyframes", summary.keyframes)
            o.add("random_access_points", summary.randomAccessPoints)
            o.add("incomplete_access_units", summary.incompleteAccessUnits)
            o.add("access_units_without_pts", summary.accessUnitsWithoutTimestamps)
            o.add("duration", seconds)
            o.add("stream", stream.json)
            var w = JSONObject()
            w.add("summary", o)
            Output.line(w.rendered)
            return
        }
        Output.line("")
        Output.line("packets        \(s.packets)\(summary.packetSize.map { " of \($0) bytes" } ?? ""), \(s.skippedBytes) bytes skipped to find sync")
        Output.line("programs       \(summary.programs.count) (\(summary.programMapChanges) program maps read)")
        for p in summary.programClockReferences {
            let largest = p.largestInterval.map { "\(format(Double($0) / 27_000)) ms" } ?? "-"
            Output.line("PCR            PID \(p.pid): \(p.count), first \(p.first.value), last \(p.last.value) (27 MHz), "
                        + "largest interval \(largest)")
        }
        if summary.programClockReferences.isEmpty { Output.line("PCR            none") }
        let perPID = summary.health.map { "PID \($0.pid): \($0.continuityErrors)/\($0.discontinuities)" }.joined(separator: ", ")
        Output.line("continuity     \(s.continuityErrors) errors, \(s.discontinuities) discontinuities\(perPID.isEmpty ? "" : " (\(perPID))")")
        if s.duplicatePackets + s.transportErrors + s.scrambledPackets > 0 {
            Output.line("packets left   \(s.duplicatePackets) duplicate, \(s.transportErrors) transport_error_indicator, \(s.scrambledPackets) scrambled")
        }
        Output.line("access units   \(summary.accessUnits) (\(summary.keyframes) IDR, \(summary.randomAccessPoints) random access points, "
                    + "\(summary.incompleteAccessUnits) may be damaged, \(summary.accessUnitsWithoutTimestamps) without PTS)")
        if seconds > 0 { Output.line("duration       \(format(seconds)) s (DTS, first to last)") }
        Output.line("")
        Output.line("the first H.264 stream (bitrate of its NAL units):")
        for line in stream.lines { Output.line(line) }
    }

    private static func hex(_ v: UInt16, width: Int = 4) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func format(_ v: Double) -> String { String((v * 1000).rounded() / 1000) }
}
