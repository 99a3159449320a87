import CAllocationCounter
import H264
import RTP

/// Heap allocations per NAL unit, for the benchmark executable (keys `allocations_per_nal` and
/// `allocations_per_access_unit`): counted, not estimated.
///
/// The count comes from the C allocator's entry points (malloc, calloc, realloc and the aligned
/// variants), which the executable interposes (target CAllocationCounter): every allocation of
/// the counting thread, the Swift runtime's (class instances, array and string buffers, boxes,
/// closure contexts, `UnsafeMutableRawPointer.allocate`) included; other threads' are not.
enum AllocationBench {
    /// False in a sanitizer build, whose runtime owns the allocator: no count then.
    static var isAvailable: Bool { h264_allocation_counting_available() != 0 }

    /// The number of heap allocations `body` makes on the calling thread (the measured work is
    /// single-threaded; other threads of the process do not count); 0 when not ``isAvailable``.
    static func count(_ body: () throws -> Void) rethrows -> Int {
        h264_allocation_counting_begin()
        defer { _ = h264_allocation_counting_end() }
        try body()
        return h264_allocation_counting_end()
    }

    /// The allocations of the third of three passes over `stream` through one streaming
    /// splitter (`chunk`-byte chunks, each NAL unit dropped when the next is asked for): the
    /// cost per NAL unit once the parser's buffers have grown (two passes: buffers that take
    /// turns each grow to the largest NAL unit), without the set-up of a new parser that a
    /// per-pass count includes (noticeable on a stream of few, large NAL units).
    static func steadySplitStreaming(_ stream: ArraySlice<UInt8>, chunk: Int) throws -> Int {
        var parser = AnnexBStreamParser(leadingData: .skip)
        var n = 0
        func feed() throws { n &+= try BenchCommand.feed(&parser, stream, chunk: chunk) }
        try feed()
        try feed()
        let allocations = try count { try feed() }
        return n == 0 ? allocations &+ 1 : allocations  // n keeps the work alive
    }

    /// The allocations of the third of three passes over `stream` through one
    /// `AccessUnitParser` (1 MiB chunks, `next(into:)`), as ``steadySplitStreaming(_:chunk:)``
    /// does for the splitter.
    static func steadyAccessUnitsStreaming(_ stream: ArraySlice<UInt8>) -> Int {
        var parser = AccessUnitParser(leadingData: .skip)
        var au = AccessUnit()
        var n = 0
        func feed() {
            var i = stream.startIndex
            while true {
                if parser.needsInput {
                    guard i < stream.endIndex else { return }
                    let end = Swift.min(i &+ (1 << 20), stream.endIndex)
                    parser.append(stream[i..<end])
                    i = end
                }
                do throws(H264Error) {
                    if try parser.next(into: &au) { n &+= au.nalUnits.count }
                } catch {
                    n &+= 1
                }
            }
        }
        feed()
        feed()
        let allocations = count { feed() }
        return n == 0 ? allocations &+ 1 : allocations
    }

    /// One row of the report: the measurement, the NAL units and access units it handled, and
    /// the allocations of one steady-state pass (after a first pass that warms caches and
    /// reusable buffers).
    struct Row {
        let key: String
        let nalUnits: Int
        let accessUnits: Int?
        let allocations: Int
    }

    /// Counts each framing, access-unit and packetising measurement over `stream`.
    static func rows(stream: [UInt8], sliceUnits: [NALUnit]) throws -> [Row] {
        guard isAvailable else { return [] }
        let nals = try BenchCommand.splitCount(stream[...])
        let accessUnits = RTPAccessUnit.accessUnits(annexB: stream[...])
        var packetizer = try RTPPacketizer(.init(mtu: 1200, ssrc: 1))
        var packets = RTPPacketBuffer()
        let work: [(String, Int?, () throws -> Void)] = [
            ("split_batch", nil, { _ = try BenchCommand.splitBatch(stream[...]) }),
            ("split_streaming", nil, { _ = try BenchCommand.splitStreaming(stream[...], chunk: 1500) }),
            ("split_streaming_184", nil, { _ = try BenchCommand.splitStreaming(stream[...], chunk: 184) }),
            ("annexb_to_avcc", nil, { _ = try BenchCommand.annexBToAVCC(stream[...]) }),
            ("parse_headers", nil, { _ = try ParsingBench.parseHeaders(stream[...]) }),
            ("access_units", ParsingBench.accessUnitCount(stream[...]), { _ = ParsingBench.accessUnits(stream[...]) }),
            ("access_units_streaming", ParsingBench.accessUnitCount(stream[...]), {
                _ = ParsingBench.accessUnitsStreaming(stream[...])
            }),
            ("rtp_packetize", accessUnits.count, {
                for au in accessUnits {
                    packets.removeAll()
                    try packetizer.packetize(au, into: &packets)
                }
            }),
        ]
        var rows: [Row] = []
        // Slice headers of the slice file (per slice header, with its parameter sets).
        let slices = sliceUnits.filter { $0.type.isVCL }.count
        func sliceWork() {
            var store = ParameterSetStore()
            for unit in sliceUnits {
                if unit.type.isVCL {
                    if let h = try? SliceHeader.parse(unit, context: store) { _ = try? store.activate(h.header) }
                } else {
                    _ = try? store.ingest(unit)
                }
            }
        }
        for (key, aus, body) in work {
            try body()
            let n = try count(body)
            rows.append(Row(key: key, nalUnits: nals, accessUnits: aus, allocations: n))
            if key == "split_streaming" {
                rows.append(Row(key: "split_streaming_steady", nalUnits: nals, accessUnits: nil,
                                allocations: try steadySplitStreaming(stream[...], chunk: 1500)))
            } else if key == "access_units_streaming" {
                rows.append(Row(key: "access_units_streaming_steady", nalUnits: nals, accessUnits: aus,
                                allocations: steadyAccessUnitsStreaming(stream[...])))
            }
        }
        sliceWork()
        // Allocations of the parameter sets included: a constant per pass.
        rows.append(Row(key: "slice_headers", nalUnits: slices, accessUnits: nil, allocations: count { sliceWork() }))
        // The same headers parsed into one kept header (its lists' storage reused).
        var header = SliceHeader()
        func reusedSliceWork() {
            var store = ParameterSetStore()
            for unit in sliceUnits {
                if unit.type.isVCL {
                    if (try? SliceHeader.parse(unit, context: store, into: &header)) != nil { _ = try? store.activate(header) }
                } else {
                    _ = try? store.ingest(unit)
                }
            }
        }
        reusedSliceWork()
        rows.append(Row(key: "slice_headers_reused", nalUnits: slices, accessUnits: nil, allocations: count { reusedSliceWork() }))
        return rows
    }
}
