import MediaSupport

/// The defaults a fragmented track's samples fall back to: `trex` in the movie, overridden by
/// each fragment's `tfhd`.
struct FragmentDefaults: Sendable, Hashable {
    var descriptionIndex: UInt32 = 1
    var duration: UInt32 = 0
    var size: UInt32 = 0
    var flags: UInt32 = 0
}

/// One `trun` of a movie fragment: where its samples are, when they start, and the
/// per-sample fields as the bytes of the `trun` box (a view into the `moof` payload), decoded
/// one sample at a time.
struct FragmentRun: Sendable {
    var trackID: UInt32
    /// File offset of the first sample's data.
    var dataOffset: UInt64
    /// Decoding time of the first sample (media timescale).
    var baseDecodeTime: Int64
    var sampleCount: Int
    /// 0-based sample description index.
    var descriptionIndex: Int
    var defaults: FragmentDefaults
    /// `trun` flags: which per-sample fields are present.
    var fieldFlags: UInt32
    /// `trun` version: 1 has signed composition offsets.
    var version: UInt8
    var firstSampleFlags: UInt32?
    /// The smallest composition offset of the run (0 without offsets).
    var minimumCompositionOffset: Int64 = 0
    /// The per-sample entries.
    var entries: ArraySlice<UInt8>

    static let dataOffsetPresent: UInt32 = 0x1, firstSampleFlagsPresent: UInt32 = 0x4
    static let durationPresent: UInt32 = 0x100, sizePresent: UInt32 = 0x200
    static let flagsPresent: UInt32 = 0x400, compositionOffsetPresent: UInt32 = 0x800

    /// Bytes per sample entry.
    var entrySize: Int {
        var n = 0
        for f in [Self.durationPresent, Self.sizePresent, Self.flagsPresent, Self.compositionOffsetPresent]
        where fieldFlags & f != 0 { n &+= 4 }
        return n
    }

    /// Sample `i` of the run (0-based, `i < sampleCount`): duration, size, flags, composition offset.
    func sample(_ i: Int) -> (duration: UInt32, size: UInt32, flags: UInt32, compositionOffset: Int64) {
        // i < sampleCount, and the entries were checked to fit: the reads cannot fail (0 if they did).
        var entry = ByteReader<ByteReadError>(entries)
        try? entry.skip(i &* entrySize)
        var duration = defaults.duration, size = defaults.size, flags = defaults.flags, offset: Int64 = 0
        if fieldFlags & Self.durationPresent != 0 { duration = (try? entry.readUInt32()) ?? 0 }
        if fieldFlags & Self.sizePresent != 0 { size = (try? entry.readUInt32()) ?? 0 }
        if fieldFlags & Self.flagsPresent != 0 { flags = (try? entry.readUInt32()) ?? 0 }
        if i == 0, let first = firstSampleFlags { flags = first }
        if fieldFlags & Self.compositionOffsetPresent != 0 {
            // Version 0 is unsigned; negative offsets written there are read as signed, as
            // FFmpeg and hls.js do.
            offset = Int64((try? entry.readInt32()) ?? 0)
        }
        return (duration, size, flags, offset)
    }
}

/// Parses `moof` boxes into runs.
enum FragmentParser {
    /// The runs of one `moof` box.
    /// - Parameters:
    ///   - payload: the `moof` payload.
    ///   - moofOffset: the file offset of the `moof` box's first byte.
    ///   - defaults: `trex` defaults by track ID.
    ///   - nextDecodeTime: per track, the decoding time after the samples read so far (used
    ///     when a `traf` has no `tfdt`), updated.
    ///   - fileSize: every run's data must lie in the file.
    static func runs(in payload: ArraySlice<UInt8>, moofOffset: UInt64, defaults: [UInt32: FragmentDefaults],
                     nextDecodeTime: inout [UInt32: Int64], fileSize: UInt64) throws(MP4Error) -> [FragmentRun] {
        var out: [FragmentRun] = []
        var it = BoxIterator(payload)
        var previousDataEnd = moofOffset  // the first traf's implicit base is the moof
        while let (header, traf) = try it.next() {
            guard header.type == .traf else { continue }
            guard let tfhdPayload = try BoxIterator.first(.tfhd, in: traf) else {
                throw MP4Error.invalid(.missingBox, "traf without tfhd")
            }
            var r = ByteReader<MP4ByteReads>(tfhdPayload)
            let (_, flags) = try r.readFullBoxHeader("tfhd")
            let trackID = try r.readUInt32("tfhd")
            var d = defaults[trackID] ?? FragmentDefaults()
            var base: UInt64
            if flags & 0x1 != 0 {
                base = try r.readUInt64("tfhd")
            } else if flags & 0x2_0000 != 0 {
                base = moofOffset  // default-base-is-moof
            } else {
                base = previousDataEnd
            }
            if flags & 0x2 != 0 { d.descriptionIndex = try r.readUInt32("tfhd") }
            if flags & 0x8 != 0 { d.duration = try r.readUInt32("tfhd") }
            if flags & 0x10 != 0 { d.size = try r.readUInt32("tfhd") }
            if flags & 0x20 != 0 { d.flags = try r.readUInt32("tfhd") }
            if flags & 0x1_0000 != 0 { d.duration = 0 }  // duration-is-empty
            var decodeTime = nextDecodeTime[trackID] ?? 0
            if let tfdt = try BoxIterator.first(.tfdt, in: traf) {
                var t = ByteReader<MP4ByteReads>(tfdt)
                let (version, _) = try t.readFullBoxHeader("tfdt")
                let v = try t.readVersioned(version, "tfdt")
                guard let time = Int64(exactly: v) else {
                    throw MP4Error.invalid(.invalidBox, "tfdt: baseMediaDecodeTime \(v) does not fit 63 bits")
                }
                decodeTime = time
            }
            var runs = BoxIterator(traf)
            var dataCursor = base
            while let (runHeader, runPayload) = try runs.next() {
                guard runHeader.type == .trun else { continue }
                var t = ByteReader<MP4ByteReads>(runPayload)
                let (version, runFlags) = try t.readFullBoxHeader("trun")
                let count = try t.readUInt32("trun")
                var dataOffset = dataCursor
                if runFlags & FragmentRun.dataOffsetPresent != 0 {
                    let rel = Int64(try t.readInt32("trun"))
                    let (o, overflow) = Int64(bitPattern: base).addingReportingOverflow(rel)
                    guard !overflow, o >= 0 else { throw MP4Error.invalid(.invalidBox, "trun: data_offset \(rel) before the file") }
                    dataOffset = UInt64(o)
                }
                let first: UInt32? = runFlags & FragmentRun.firstSampleFlagsPresent != 0 ? try t.readUInt32("trun") : nil
                guard d.descriptionIndex >= 1 else {
                    throw MP4Error.invalid(.invalidSampleTable, "traf: sample_description_index 0")
                }
                var run = FragmentRun(trackID: trackID, dataOffset: dataOffset, baseDecodeTime: decodeTime, sampleCount: 0,
                                      descriptionIndex: Int(d.descriptionIndex) &- 1, defaults: d, fieldFlags: runFlags,
                                      version: version, firstSampleFlags: first, entries: [])
                let n = try t.checkTable(UInt64(count), entrySize: max(run.entrySize, 0), "trun sample_count")
                run.sampleCount = n
                run.entries = try t.readBytes(n &* run.entrySize, "trun")  // checked above
                // Its data must lie in the file, and its durations give the next run's decoding
                // time. Per-sample fields are walked (their count is bounded by the box); a run
                // without them is count x the defaults, computed at once.
                var total: UInt64 = 0
                var time = decodeTime
                if run.entrySize > 0 {
                    for i in 0..<n {
                        let s = run.sample(i)
                        total &+= UInt64(s.size)  // at most 2^32 x 2^32
                        run.minimumCompositionOffset = min(run.minimumCompositionOffset, s.compositionOffset)
                        let (t2, overflow) = time.addingReportingOverflow(Int64(s.duration))
                        guard !overflow else { throw MP4Error.invalid(.invalidSampleTable, "trun: decoding times overflow") }
                        time = t2
                    }
                } else {
                    guard n == 0 || d.size > 0 else {
                        throw MP4Error.invalid(.invalidSampleTable, "trun: \(n) samples with no size")
                    }
                    total = UInt64(n) &* UInt64(d.size)  // 32 x 32 bits
                    let (t2, overflow) = time.addingReportingOverflow(Int64(n) &* Int64(d.duration))  // 32 x 32 bits
                    guard !overflow else { throw MP4Error.invalid(.invalidSampleTable, "trun: decoding times overflow") }
                    time = t2
                }
                guard dataOffset <= fileSize, total <= fileSize &- dataOffset else {
                    throw MP4Error.invalid(.invalidSampleTable,
                                           "trun: \(n) samples (\(total) bytes) at offset \(dataOffset) run past the end of the file (\(fileSize) bytes)")
                }
                decodeTime = time
                dataCursor = dataOffset &+ total
                out.append(run)
            }
            previousDataEnd = dataCursor
            nextDecodeTime[trackID] = decodeTime
        }
        return out
    }
}
