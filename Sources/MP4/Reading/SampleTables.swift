import MediaSupport

/// The sample tables of one track of a progressive file, parsed from `stbl` and kept compact:
/// run-length tables stay run-length and per-sample tables keep one entry per sample, each no
/// larger than its bytes in the file. Every table's entry count is checked against its box's
/// size before anything is allocated, and the sample count against the file's size, so memory
/// is bounded by the size of the `moov` box and a walk over the samples by the file's size.
struct SampleTables: Sendable {
    typealias ChunkRun = SampleToChunkEntry

    struct Run: Sendable {
        var count: UInt32
        var value: Int64
    }

    /// Sample sizes: one size for all, a 32-bit table, or an `stz2` table of 4-, 8- or 16-bit
    /// fields kept as its bytes.
    enum Sizes: Sendable {
        case constant(UInt32)
        case table([UInt32])
        case compact(bits: Int, fields: ArraySlice<UInt8>)
    }

    var sampleCount = 0
    var sizes = Sizes.constant(0)
    var timeToSample: [Run] = []
    var compositionOffsets: [Run] = []
    /// 1-based numbers of sync samples, ascending; nil when `stss` is absent (all sync).
    var syncSamples: [UInt32]?
    /// `sdtp` bytes, one per sample (missing ones read as 0).
    var dependencies: ArraySlice<UInt8> = []
    var chunkRuns: [ChunkRun] = []
    var chunkOffsets: [UInt64] = []

    /// Reads the tables of an `stbl` payload.
    /// - Parameters:
    ///   - stbl: the payload.
    ///   - descriptionCount: the number of `stsd` entries, for `stsc`'s indices.
    ///   - fileSize: the file's size, which bounds the sample count.
    init(parsing stbl: ArraySlice<UInt8>, descriptionCount: Int, fileSize: UInt64) throws(MP4Error) {
        var it = BoxIterator(stbl)
        var sawSizes = false, sawChunks = false, sawStsc = false, sawStts = false
        while let (header, payload) = try it.next() {
            var r = ByteReader<MP4ByteReads>(payload)
            switch header.type {
            case .stts:
                _ = try r.readFullBoxHeader("stts")
                let n = try r.checkTable(UInt64(try r.readUInt32("stts")), entrySize: 8, "stts entry_count")
                timeToSample.reserveCapacity(n)
                for _ in 0..<n { timeToSample.append(Run(count: try r.readUInt32("stts"), value: Int64(try r.readUInt32("stts")))) }
                sawStts = true
            case .ctts:
                _ = try r.readFullBoxHeader("ctts")
                let n = try r.checkTable(UInt64(try r.readUInt32("ctts")), entrySize: 8, "ctts entry_count")
                compositionOffsets.reserveCapacity(n)
                for _ in 0..<n {
                    let count = try r.readUInt32("ctts")
                    // Version 0 is unsigned, but writers have put negative offsets there; read
                    // as signed, as FFmpeg does (no real offset reaches 2^31).
                    let raw = try r.readUInt32("ctts")
                    compositionOffsets.append(Run(count: count, value: Int64(Int32(bitPattern: raw))))
                }
            case .stss:
                _ = try r.readFullBoxHeader("stss")
                let n = try r.checkTable(UInt64(try r.readUInt32("stss")), entrySize: 4, "stss entry_count")
                var numbers: [UInt32] = []
                numbers.reserveCapacity(n)
                for _ in 0..<n { numbers.append(try r.readUInt32("stss")) }
                var sorted = true
                var k = 1
                while k < numbers.count {
                    if numbers[k &- 1] >= numbers[k] { sorted = false; break }
                    k &+= 1
                }
                if !sorted { numbers.sort() }
                syncSamples = numbers
            case .sdtp:
                _ = try r.readFullBoxHeader("sdtp")
                dependencies = r.remaining
            case .stsz:
                _ = try r.readFullBoxHeader("stsz")
                let size = try r.readUInt32("stsz")
                let count = try r.readUInt32("stsz")
                if size == 0 {
                    let n = try r.checkTable(UInt64(count), entrySize: 4, "stsz sample_count")
                    var table: [UInt32] = []
                    table.reserveCapacity(n)
                    for _ in 0..<n { table.append(try r.readUInt32("stsz")) }
                    sizes = .table(table)
                } else {
                    // Every sample must lie in the file: count * size <= the file's size.
                    guard UInt64(count) &* UInt64(size) <= fileSize else {  // 32 x 32 bits: no overflow
                        throw MP4Error.invalid(.limitExceeded,
                                               "stsz: \(count) samples of \(size) bytes do not fit a file of \(fileSize) bytes")
                    }
                    sizes = .constant(size)
                }
                sampleCount = Int(count)
                sawSizes = true
            case .stz2:
                _ = try r.readFullBoxHeader("stz2")
                try r.skip(3, "stz2")
                let bits = Int(try r.readUInt8("stz2"))
                guard bits == 4 || bits == 8 || bits == 16 else {
                    throw MP4Error.invalid(.invalidBox, "stz2: field_size \(bits) is not 4, 8 or 16")
                }
                let count = try r.readUInt32("stz2")
                let bytes = (UInt64(count) &* UInt64(bits) &+ 7) / 8  // no overflow: 32 x 5 bits
                let n = try r.checkTable(bytes, entrySize: 1, "stz2 sample_count")
                sizes = .compact(bits: bits, fields: try r.readBytes(n, "stz2"))
                sampleCount = Int(count)
                sawSizes = true
            case .stsc:
                _ = try r.readFullBoxHeader("stsc")
                let n = try r.checkTable(UInt64(try r.readUInt32("stsc")), entrySize: 12, "stsc entry_count")
                chunkRuns.reserveCapacity(n)
                for _ in 0..<n {
                    let run = ChunkRun(firstChunk: try r.readUInt32("stsc"), samplesPerChunk: try r.readUInt32("stsc"), descriptionIndex: try r.readUInt32("stsc"))
                    guard run.descriptionIndex >= 1, Int(run.descriptionIndex) <= descriptionCount else {
                        throw MP4Error.invalid(.invalidSampleTable,
                                               "stsc: sample_description_index \(run.descriptionIndex) with \(descriptionCount) entries")
                    }
                    if let last = chunkRuns.last {
                        guard run.firstChunk >= last.firstChunk else {
                            throw MP4Error.invalid(.invalidSampleTable, "stsc: first_chunk \(run.firstChunk) after \(last.firstChunk)")
                        }
                        // A repeated first_chunk leaves the earlier entry no chunks: the later wins.
                        if run.firstChunk == last.firstChunk { chunkRuns.removeLast() }
                    } else {
                        guard run.firstChunk == 1 else {
                            throw MP4Error.invalid(.invalidSampleTable, "stsc: the first entry starts at chunk \(run.firstChunk), not 1")
                        }
                    }
                    chunkRuns.append(run)
                }
                sawStsc = true
            case .stco, .co64:
                _ = try r.readFullBoxHeader("stco/co64")
                let wide = header.type == .co64
                let n = try r.checkTable(UInt64(try r.readUInt32("stco/co64")), entrySize: wide ? 8 : 4, "stco/co64 entry_count")
                chunkOffsets.reserveCapacity(n)
                for _ in 0..<n { chunkOffsets.append(wide ? try r.readUInt64("stco/co64") : UInt64(try r.readUInt32("stco/co64"))) }
                sawChunks = true
            default:
                continue
            }
        }
        guard sawSizes else {
            if sampleCount == 0 && !sawStts { return }  // an empty table (a fragmented file's moov)
            throw MP4Error.invalid(.missingBox, "stbl has no stsz or stz2")
        }
        guard sampleCount == 0 || (sawChunks && sawStsc && sawStts) else {
            throw MP4Error.invalid(.missingBox, "stbl has samples but no \(!sawStts ? "stts" : !sawStsc ? "stsc" : "stco/co64")")
        }
        // A sample takes at least a byte of a table or of the file (constant sizes are checked
        // above), but zero-size samples listed in a 32-bit table can still be many: the count
        // is bounded by the file's size either way.
        guard UInt64(sampleCount) <= fileSize else {
            throw MP4Error.invalid(.limitExceeded, "\(sampleCount) samples in a file of \(fileSize) bytes")
        }
    }

    /// The size of sample `i` (0-based, `i < sampleCount`).
    func size(_ i: Int) -> UInt32 {
        switch sizes {
        case .constant(let s):
            return s
        case .table(let t):
            return i < t.count ? t[i] : 0
        case .compact(let bits, let fields):
            let bit = i &* bits  // i < 2^32, bits <= 16
            let byte = fields.startIndex &+ bit / 8
            switch bits {
            case 4:
                guard byte < fields.endIndex else { return 0 }
                return UInt32(bit % 8 == 0 ? fields[byte] >> 4 : fields[byte] & 0xF)
            case 8:
                return byte < fields.endIndex ? UInt32(fields[byte]) : 0
            default:
                let field = ByteReader<ByteReadError>(fields).peekInteger(at: bit / 8, as: UInt16.self)
                return UInt32(field ?? 0)
            }
        }
    }
}

/// One `stsc` entry: from chunk `firstChunk` (1-based) on, chunks hold `samplesPerChunk`
/// samples of description `descriptionIndex` (1-based).
struct SampleToChunkEntry: Sendable, Hashable {
    var firstChunk: UInt32
    var samplesPerChunk: UInt32
    var descriptionIndex: UInt32
}
