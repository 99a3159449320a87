import CommandLineSupport
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
    before the first slice are known from the start (FFmpeg's extradata), when they come in
    the first 16 MiB. A structure that cannot be parsed ends its block with a '# error: ...'
    line, and a NAL unit whose header is invalid (or longer than 64 MiB) is a
    '# invalid NAL unit at <offset>: ...' line; tracing goes on. The input is read in chunks
    and the trace written as it goes: memory does not grow with the input's size.

      --strict    fail on bytes before the first start code (by default they are skipped,
                  as FFmpeg skips them, and a comment line says how many)
    """

    /// The most bytes of NAL units (and errors, 256 bytes each) held while looking for the first
    /// slice (for the preload), and the most entries.
    static let preloadLimit = 16 << 20

    /// One entry of the stream, in order: a NAL unit at its offset, or an invalid one.
    private enum Entry {
        case unit(NALUnit, offset: Int)
        case invalid(offset: Int, error: H264Error)
    }

    static func run(_ args: inout Arguments) throws {
        let strict = args.flag("--strict")
        _ = args.flag("--lenient")  // the default; accepted for symmetry with `h264 nals`
        let path = try args.positionals(min: 1, max: 1)[0]
        let input = try ChunkedInput(path)
        var parser = AnnexBStreamParser(leadingData: strict ? .reject : .skip)
        var store = ParameterSetStore()
        var index = 0
        // Entries before the first slice wait, so that the SPS and PPS among them can be
        // stored first (bounded: past the limit they are traced without the preload).
        var waiting: [Entry] = []
        var waitingBytes = 0
        var preloading = true
        var announced = false

        func trace(_ entry: Entry) {
            switch entry {
            case .invalid(let offset, let error):
                Output.line("# invalid NAL unit at \(offset): \(error.code): \(error.reason)")
            case .unit(let unit, let offset):
                Output.line("# NAL \(index) at \(offset): \(unit.type)")
                index += 1
                let error = NALUnitTrace.trace(unit, store: &store) { element in element.forEachLine { Output.line($0) } }
                if let error { Output.line("# error: \(error.code): \(error.reason)") }
            }
        }
        func release() {
            if preloading {
                NALUnitTrace.preload(&store, from: waiting.lazy.compactMap { if case .unit(let u, _) = $0 { u } else { nil } })
                preloading = false
            }
            for entry in waiting { trace(entry) }
            waiting.removeAll()
        }
        func take(_ entry: Entry, leading: Int) {
            if !announced, case .unit = entry {
                announced = true
                if leading > 0 { Output.line("# skipped \(leading) bytes before the first start code") }
            }
            guard preloading else { return trace(entry) }
            // A copy: a view would keep the whole 1 MiB chunk around the NAL unit.
            if case .unit(let unit, let offset) = entry, let copy = try? NALUnit(Array(unit.bytes)) {
                waiting.append(.unit(copy, offset: offset))
            } else {
                waiting.append(entry)
            }
            switch entry {
            case .unit(let unit, _):
                waitingBytes += unit.count
                if unit.type.isVCL || unit.type == .sliceExtension { return release() }
            case .invalid:
                waitingBytes += 256  // an error and its reason
            }
            if waitingBytes > preloadLimit || waiting.count > 65_536 { release() }
        }

        try parser.run(read: input.read, problem: { error, at in
            if error.code == .missingStartCode { throw error }
            take(.invalid(offset: at.offset, error: error), leading: at.leadingByteCount)
        }, body: { unit, at in
            take(.unit(unit, offset: at.offset), leading: at.leadingByteCount)
        })
        release()
    }
}
