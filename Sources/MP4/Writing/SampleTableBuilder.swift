/// The sample tables of a progressive file, built as samples come: run-length `stts`, `ctts`
/// and `stsc`, one size and one `sdtp` byte per sample, the sync sample numbers, and one
/// offset per chunk.
///
/// Memory: 5 bytes per sample, 8 per chunk, plus one entry (8 to 16 bytes) per run of equal
/// durations, composition offsets or chunk lengths; B-frames change the offset nearly every
/// sample.
struct SampleTableBuilder: Sendable {
    typealias ChunkRun = SampleToChunkEntry

    struct Run<Value: Equatable & Sendable>: Sendable {
        var count: UInt32
        var value: Value
    }

    private(set) var sizes: [UInt32] = []
    private(set) var dependencies: [UInt8] = []
    private(set) var syncSamples: [UInt32] = []
    private(set) var durations: [Run<UInt32>] = []
    private(set) var offsets: [Run<Int64>] = []
    private(set) var chunkOffsets: [UInt64] = []
    private(set) var chunkRuns: [ChunkRun] = []
    /// Samples in the chunk being filled.
    private var samplesInChunk: UInt32 = 0
    private var chunkDescription: UInt32 = 0

    var sampleCount: Int { sizes.count }
    var allSync: Bool { syncSamples.count == sizes.count }

    /// Adds a sample (its duration comes later, with ``addDuration(_:)``).
    mutating func add(size: UInt32, compositionOffset: Int64, flags: MP4SampleFlags) {
        sizes.append(size)
        dependencies.append(flags.dependencyByte)
        if flags.isSync { syncSamples.append(UInt32(truncatingIfNeeded: sizes.count)) }
        Self.extend(&offsets, compositionOffset)
        samplesInChunk &+= 1  // at most the sample count, which the caller keeps below 2^32
    }

    /// Records the duration of the oldest sample whose duration was not known.
    mutating func addDuration(_ d: UInt32) { Self.extend(&durations, d) }

    /// Starts a chunk at `offset` for samples of description `descriptionIndex` (1-based).
    mutating func startChunk(at offset: UInt64, descriptionIndex: UInt32) {
        closeChunk()
        chunkOffsets.append(offset)
        chunkDescription = descriptionIndex
    }

    /// Records how many samples the current chunk holds in `stsc`.
    mutating func closeChunk() {
        Self.appendRun(to: &chunkRuns, chunk: UInt32(truncatingIfNeeded: chunkOffsets.count), samples: samplesInChunk,
                       description: chunkDescription)
        samplesInChunk = 0
    }

    /// Adds the `stsc` entry of a chunk unless it continues the last run (same length and
    /// description); chunks are numbered from 1.
    private static func appendRun(to runs: inout [ChunkRun], chunk: UInt32, samples: UInt32, description: UInt32) {
        guard samples > 0 else { return }
        if let last = runs.last, last.samplesPerChunk == samples, last.descriptionIndex == description { return }
        runs.append(ChunkRun(firstChunk: chunk, samplesPerChunk: samples, descriptionIndex: description))
    }

    /// The smallest composition offset (0 before any sample).
    var minimumOffset: Int64 { offsets.lazy.map(\.value).min() ?? 0 }

    /// Writes `stts`, `ctts`, `stss`, `sdtp`, `stsz`, `stsc` and `stco`/`co64` (chunk
    /// offsets moved by `shift`), in that order; `bias` is subtracted from every composition
    /// offset.
    func write(into w: inout BoxWriter, shift: UInt64, bias: Int64) {
        w.fullBox(.stts, version: 0, flags: 0) { w in
            w.u32(UInt32(truncatingIfNeeded: durations.count))
            for r in durations { w.u32(r.count); w.u32(r.value) }
        }
        // ctts only when some offset is not 0; version 1 when one is negative. The bias is 0 or
        // the smallest offset, so offsets minus it stay within the 32 bits checked when added.
        if offsets.contains(where: { $0.value != bias }) {
            w.fullBox(.ctts, version: offsets.contains { $0.value < bias } ? 1 : 0, flags: 0) { w in
                w.u32(UInt32(truncatingIfNeeded: offsets.count))
                for r in offsets {
                    w.u32(r.count)
                    w.u32(UInt32(truncatingIfNeeded: r.value &- bias))
                }
            }
        }
        if !allSync {
            w.fullBox(.stss, version: 0, flags: 0) { w in
                w.u32(UInt32(truncatingIfNeeded: syncSamples.count))
                for s in syncSamples { w.u32(s) }
            }
        }
        w.fullBox(.sdtp, version: 0, flags: 0) { w in w.append(dependencies) }
        w.fullBox(.stsz, version: 0, flags: 0) { w in
            w.u32(0)
            w.u32(UInt32(truncatingIfNeeded: sizes.count))
            for s in sizes { w.u32(s) }
        }
        var runs = chunkRuns
        Self.appendRun(to: &runs, chunk: UInt32(truncatingIfNeeded: chunkOffsets.count), samples: samplesInChunk,
                       description: chunkDescription)
        w.fullBox(.stsc, version: 0, flags: 0) { w in
            w.u32(UInt32(truncatingIfNeeded: runs.count))
            for r in runs { w.u32(r.firstChunk); w.u32(r.samplesPerChunk); w.u32(r.descriptionIndex) }
        }
        if needsLargeOffsets(shift: shift) {
            w.fullBox(.co64, version: 0, flags: 0) { w in
                w.u32(UInt32(truncatingIfNeeded: chunkOffsets.count))
                for o in chunkOffsets { w.u64(o &+ shift) }
            }
        } else {
            w.fullBox(.stco, version: 0, flags: 0) { w in
                w.u32(UInt32(truncatingIfNeeded: chunkOffsets.count))
                for o in chunkOffsets { w.u32(UInt32(truncatingIfNeeded: o &+ shift)) }
            }
        }
    }

    /// `co64` exactly when the last chunk offset, moved by `shift`, does not fit 32 bits (as
    /// FFmpeg chooses). Offsets grow, so the last is the largest.
    func needsLargeOffsets(shift: UInt64) -> Bool {
        guard let last = chunkOffsets.last else { return false }
        return last &+ shift > UInt64(UInt32.max)  // a file offset plus a moov size: far below 2^64
    }

    private static func extend<V: Equatable & Sendable>(_ runs: inout [Run<V>], _ value: V) {
        if let last = runs.last, last.value == value, last.count < UInt32.max {
            runs[runs.count &- 1].count &+= 1  // below UInt32.max, checked
        } else {
            runs.append(Run(count: 1, value: value))
        }
    }
}
