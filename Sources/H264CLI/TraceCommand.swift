import H264

/// `h264 trace`: every syntax element of every NAL unit, FFmpeg `trace_headers` style.
enum TraceCommand: CLICommand {
    static let name = "trace"
    static let summary = "print every header syntax element with its bit position"
    static let usage = """
    usage: h264 trace FILE|- [--lenient]

    For each NAL unit, a comment line '# NAL <index> at <byte offset>: <type>' then one line
    per syntax element: '<bit position> <name> = <value>'. Bit positions count from the NAL
    unit header in the RBSP (emulation-prevention bytes removed), names and subscripts as
    FFmpeg's trace_headers prints them. Slices stop after the slice header; SEI messages are
    traced payload by payload. A structure that cannot be parsed ends its block with a
    '# error: ...' line; tracing goes on.

      --lenient   skip bytes before the first start code instead of failing
    """

    static func run(_ args: inout Arguments) throws {
        let lenient = args.flag("--lenient")
        let path = try args.positionals(min: 1, max: 1)[0]
        let bytes = try Input.readAll(path)
        var splitter = AnnexB.Splitter(bytes[...], leadingData: lenient ? .skip : .reject)
        var store = ParameterSetStore()
        var index = 0
        while let unit = try splitter.next() {
            Output.line("# NAL \(index) at \(unit.bytes.startIndex): \(unit.type)")
            if unit.type == .sei {
                // SEI payloads are traced by the SEI layer (NALUnitTrace stops after the header).
                var elements: [TraceElement] = []
                do throws(H264Error) {
                    try SEI.trace(unit, context: store, into: &elements)
                    for e in elements { Output.line(e.description) }
                } catch {
                    for e in elements { Output.line(e.description) }
                    Output.line("# error: \(error.code): \(error.reason)")
                }
            } else {
                let result = NALUnitTrace.trace(unit, store: &store)
                for e in result.elements { Output.line(e.description) }
                if let error = result.error { Output.line("# error: \(error.code): \(error.reason)") }
            }
            index += 1
        }
    }
}
