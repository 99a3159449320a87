import H264

/// `h264 trace`: every syntax element of every NAL unit, FFmpeg `trace_headers` style.
enum TraceCommand: CLICommand {
    static let name = "trace"
    static let summary = "print every header syntax element with its bit position"
    static let usage = """
    usage: h264 trace FILE|- [--strict]

    For each NAL unit, a comment line '# NAL <index> at <byte offset>: <type>' then one line
    per syntax element: '<bit position> <name> = <value>'. Bit positions count from the NAL
    unit header in the RBSP (emulation-prevention bytes removed), names and subscripts as
    FFmpeg's trace_headers prints them. Slices stop after the slice header. The SPS and PPS
    before the first slice are known from the start (FFmpeg's extradata). A structure that
    cannot be parsed ends its block with a '# error: ...' line, and a NAL unit whose header is
    invalid is a '# invalid NAL unit at <offset>: ...' line; tracing goes on.

      --strict    fail on bytes before the first start code (by default they are skipped,
                  as FFmpeg skips them, and a comment line says how many)
    """

    static func run(_ args: inout Arguments) throws {
        let strict = args.flag("--strict")
        _ = args.flag("--lenient")  // the default; accepted for symmetry with `h264 nals`
        let path = try args.positionals(min: 1, max: 1)[0]
        let bytes = try Input.readAll(path)
        let entries = try AnnexB.entries(bytes[...], leadingData: strict ? .reject : .skip)
        let units = entries.compactMap { entry -> NALUnit? in if case .unit(let u) = entry { u } else { nil } }
        if let first = units.first {
            // Bytes before the first start code that are not leading zero bytes.
            var end = max(0, first.bytes.startIndex - 3)  // the 00 00 01 before the NAL unit
            while end > 0 && bytes[end - 1] == 0 { end -= 1 }
            if end > 0 { Output.line("# skipped \(end) bytes before the first start code") }
        }
        var store = ParameterSetStore()
        NALUnitTrace.preload(&store, from: units)
        var index = 0
        for entry in entries {
            switch entry {
            case .invalid(let offset, let error):
                Output.line("# invalid NAL unit at \(offset): \(error.code): \(error.reason)")
            case .unit(let unit):
                Output.line("# NAL \(index) at \(unit.bytes.startIndex): \(unit.type)")
                index += 1
                let result = NALUnitTrace.trace(unit, store: &store)
                for e in result.elements { Output.line(e.description) }
                if let error = result.error { Output.line("# error: \(error.code): \(error.reason)") }
            }
        }
    }
}
