import H264
import RTP

/// What a new stream costs before its first byte, for the benchmark executable (keys `setup_ns` and
/// `setup_allocations`): each per-stream type created, asked one question, and dropped. A
/// service pays this per connection or per message; a fuzz target per input.
enum SetupBench {
    /// One measured type: its key and one creation, first use and drop (returning a number that
    /// depends on the instance, so that nothing is optimised away).
    struct Case: Sendable {
        let key: String
        let body: @Sendable () throws -> Int
    }

    static let cases: [Case] = [
        Case(key: "parameter_set_store") {
            let store = ParameterSetStore()
            return store.sps(id: 0) == nil ? 1 : 0
        },
        Case(key: "annexb_stream_parser") {
            var parser = AnnexBStreamParser(leadingData: .skip)
            parser.finish()
            return try parser.next() == nil ? 1 : 0
        },
        Case(key: "access_unit_parser") {
            var parser = AccessUnitParser(leadingData: .skip)
            parser.finish()
            return try parser.next() == nil ? 1 : 0
        },
        Case(key: "parameter_set_inserter") {
            var inserter = ParameterSetInserter()
            return inserter.parameterSets(toInsertBefore: [], isRandomAccess: true).count
        },
        Case(key: "annexb_stream_editor") {
            var editor = AnnexBStreamEditor(edits: HeaderEdits())
            var out: [UInt8] = []
            try editor.finish(to: &out)
            return out.count
        },
        Case(key: "rtp_depacketizer") {
            var depacketizer = try RTPDepacketizer()
            var n = 0
            depacketizer.flush { _ in n &+= 1 }
            return n
        },
    ]

    /// Nanoseconds of this thread's CPU time per creation + first use + drop, and heap
    /// allocations per instance, by key.
    static func results(seconds: Double = 0.1) throws -> [(key: String, nanoseconds: Double, allocations: Int)] {
        let perPass = 1000
        return try cases.map { c in
            var sink = 0
            var failure: (any Error)?
            let pass = {
                do {
                    for _ in 0..<perPass { sink &+= try c.body() }
                } catch {
                    failure = error
                }
            }
            let perNanosecond = RTPBench.measure(bytesPerPass: perPass, seconds: seconds, pass)
            if let failure { throw failure }
            let allocations = AllocationBench.count { _ = try? c.body() }
            return (c.key, sink >= 0 ? 1 / perNanosecond : 0, allocations)
        }
    }
}
