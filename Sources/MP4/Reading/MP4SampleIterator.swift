/// Walks a track's samples in decoding order: first those of the `moov` sample tables, then
/// those of the movie fragments, in file order.
///
/// The walk keeps a few counters, whatever the number of samples; each step is O(1) but for
/// empty chunks, which it skips (there are at most as many as `stco` lists).
///
/// The samples of a valid file are disjoint ranges of it, so together they hold at most the
/// file's bytes. Tables that place samples on the same bytes again and again (overlapping
/// chunk offsets or track runs) would make a reader of every sample read, and a converter
/// write, many times the file: the walk stops with ``MP4Error/Code/limitExceeded`` at the
/// sample that takes the total past the file's size.
public struct MP4SampleIterator: Sendable {
    private let track: MP4Track
    private let fileSize: UInt64
    private var index = 0
    // Progressive tables.
    private var timeRun = -1, timeLeft: UInt32 = 0, timeDelta: Int64 = 0
    private var offsetRun = -1, offsetLeft: UInt32 = 0, offsetValue: Int64 = 0
    private var syncPosition = 0
    private var chunk = 0, chunkRun = 0, chunkLeft: UInt32 = 0, chunkCursor: UInt64 = 0, chunkDescription = 0
    private var decodeTime: Int64 = 0
    /// The bytes of the samples returned so far: at most the file's size.
    private var sampleBytes: UInt64 = 0
    // Fragments.
    private var run = 0, inRun = 0, runCursor: UInt64 = 0, runTime: Int64 = 0

    init(track: MP4Track, fileSize: UInt64) {
        self.track = track
        self.fileSize = fileSize
    }

    /// The next sample, or nil after the last.
    /// - Throws: ``MP4Error/Code/invalidSampleTable`` when the tables cannot place or time a
    ///   sample (fewer `stts` entries or chunks than samples, times that overflow),
    ///   ``MP4Error/Code/truncated`` for a sample that lies past the end of the file,
    ///   ``MP4Error/Code/limitExceeded`` when the samples so far hold more bytes than the file
    ///   (they overlap).
    public mutating func next() throws(MP4Error) -> MP4SampleInfo? {
        let tables = track.tables
        if index < tables.sampleCount { return try nextInTables(tables) }
        return try nextInFragments()
    }

    private mutating func nextInTables(_ t: SampleTables) throws(MP4Error) -> MP4SampleInfo {
        let i = index
        while timeLeft == 0 {
            timeRun &+= 1
            guard timeRun < t.timeToSample.count else {
                throw MP4Error.invalid(.invalidSampleTable, "stts covers fewer than \(t.sampleCount) samples")
            }
            timeLeft = t.timeToSample[timeRun].count
            timeDelta = t.timeToSample[timeRun].value
        }
        timeLeft &-= 1
        while offsetLeft == 0 && offsetRun &+ 1 < t.compositionOffsets.count {
            offsetRun &+= 1
            offsetLeft = t.compositionOffsets[offsetRun].count
            offsetValue = t.compositionOffsets[offsetRun].value
        }
        var composition: Int64 = 0
        if offsetLeft > 0 {
            offsetLeft &-= 1
            composition = offsetValue
        }
        while chunkLeft == 0 {
            chunk &+= 1  // 1-based chunk number; at most the number of chunk offsets + 1
            guard chunk <= t.chunkOffsets.count else {
                throw MP4Error.invalid(.invalidSampleTable, "sample \(i) is beyond the last of \(t.chunkOffsets.count) chunks")
            }
            while chunkRun &+ 1 < t.chunkRuns.count && Int(t.chunkRuns[chunkRun &+ 1].firstChunk) <= chunk { chunkRun &+= 1 }
            guard chunkRun < t.chunkRuns.count else {
                throw MP4Error.invalid(.invalidSampleTable, "stsc is empty")
            }
            chunkLeft = t.chunkRuns[chunkRun].samplesPerChunk
            chunkDescription = Int(t.chunkRuns[chunkRun].descriptionIndex) &- 1  // >= 1, checked when parsed
            chunkCursor = t.chunkOffsets[chunk &- 1]
        }
        chunkLeft &-= 1
        let size = t.size(i)
        let offset = chunkCursor
        chunkCursor = chunkCursor.addingReportingOverflow(UInt64(size)).partialValue
        var flags = MP4SampleFlags(isSync: true)
        if let sync = t.syncSamples {
            let number = UInt32(truncatingIfNeeded: i &+ 1)  // i < 2^32
            while syncPosition < sync.count && sync[syncPosition] < number { syncPosition &+= 1 }
            flags.isSync = syncPosition < sync.count && sync[syncPosition] == number
        }
        if i < t.dependencies.count { flags.setDependencies(fromByte: t.dependencies[t.dependencies.startIndex &+ i]) }
        let dts = decodeTime
        let (next, overflow) = decodeTime.addingReportingOverflow(timeDelta)
        guard !overflow else { throw MP4Error.invalid(.invalidSampleTable, "decoding times overflow at sample \(i)") }
        decodeTime = next
        index &+= 1
        return try info(i, offset: offset, size: size, dts: dts, composition: composition, duration: timeDelta, flags: flags,
                        description: chunkDescription)
    }

    private mutating func nextInFragments() throws(MP4Error) -> MP4SampleInfo? {
        while run < track.runs.count && inRun >= track.runs[run].sampleCount {
            run &+= 1
            inRun = 0
        }
        guard run < track.runs.count else { return nil }
        if inRun == 0 {
            runCursor = track.runs[run].dataOffset
            runTime = track.runs[run].baseDecodeTime
        }
        let s = track.runs[run].sample(inRun)  // in place: a copy of the run would retain its views
        let offset = runCursor
        runCursor &+= UInt64(s.size)  // the run was checked to lie in the file
        let dts = runTime
        runTime &+= Int64(s.duration)  // checked not to overflow when the run was parsed
        inRun &+= 1
        let i = index
        index &+= 1
        return try info(i, offset: offset, size: s.size, dts: dts, composition: s.compositionOffset, duration: Int64(s.duration),
                        flags: MP4SampleFlags(rawValue: s.flags), description: track.runs[run].descriptionIndex)
    }

    private mutating func info(_ i: Int, offset: UInt64, size: UInt32, dts: Int64, composition: Int64, duration: Int64,
                      flags: MP4SampleFlags, description: Int) throws(MP4Error) -> MP4SampleInfo {
        guard offset <= fileSize, UInt64(size) <= fileSize &- offset else {
            throw MP4Error.truncated("sample \(i) (\(size) bytes at offset \(offset)) lies past the end of the file (\(fileSize) bytes)")
        }
        sampleBytes &+= UInt64(size)  // both terms at most fileSize: no overflow
        guard sampleBytes <= fileSize else {
            throw MP4Error.invalid(.limitExceeded, "samples up to \(i) hold \(sampleBytes) bytes, more than the file's \(fileSize): they overlap")
        }
        let (presented, o1) = dts.addingReportingOverflow(track.presentationOffset)
        let (pts, o2) = presented.addingReportingOverflow(composition)
        let (decode, o3) = presented.subtractingReportingOverflow(track.decodeDelay)
        guard !o1, !o2, !o3 else { throw MP4Error.invalid(.invalidSampleTable, "presentation time of sample \(i) overflows") }
        return MP4SampleInfo(index: i, offset: offset, size: Int(size), decodeTime: decode, presentationTime: pts,
                             duration: duration, flags: flags, descriptionIndex: description)
    }
}
