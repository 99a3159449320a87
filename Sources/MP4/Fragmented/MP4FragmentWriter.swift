import H264

/// Writes fragmented MP4 (CMAF): an init segment and media segments of one H.264 video track,
/// for HLS, DASH and Media Source Extensions, or back to back as one fragmented file.
///
/// Samples go in with ``append(_:description:)``; finished segments come out. A media
/// segment is `styp`, an optional `sidx`, and one fragment: `moof` (`mfhd`, `traf` with
/// `tfhd` default-base-is-moof, `tfdt` version 1, `trun` with each sample's duration, size,
/// flags and composition offset, and a `data_offset` that counts a 16-byte `mdat` header past
/// 4 GiB) and `mdat`. Segments are cut at the first sync sample at or after
/// ``Options/targetDuration`` (or at any sample with ``Options/Cutting-swift.enum/anySample``,
/// for recordings that must lose little when cut short), so each starts with a sync sample
/// when the stream starts with one.
///
/// The init segment (`ftyp` brands `iso6` with `iso5`, `cmfc`, `dash`, `avc1`, `mp41`;
/// `moov` with zero durations, empty sample tables, `mvex`/`trex`) goes out before the first
/// media segment. A different ``MP4SampleDescription`` (new parameter sets) ends the segment
/// and sends a new init segment, as Chrome and Firefox need for a configuration change.
///
/// Composition times: with ``Options/CompositionTimes-swift.enum/negativeOffsets`` (the
/// default, as CMAF packagers, FFmpeg's `cmaf` mode and GStreamer's `cmafmux` write them) each
/// offset is written minus the first sample's, so the first sample is presented at its
/// decoding time, 0, with `trun` version 1 when an offset is then negative and version 0
/// otherwise; no edit list is needed. With ``Options/CompositionTimes-swift.enum/editList``
/// offsets stay as they are (`trun` version 0) and the init segment's edit list (one edit,
/// `segment_duration` 0, `media_time` the first sample's composition offset) starts the
/// presentation at 0, the form ExoPlayer and Chromium honour; FFmpeg 5.1 plays such segments
/// through HLS but reports non-monotonic timestamps when the reorder delay is large.
///
/// Memory: the samples of one segment. Output: the samples' bytes, plus 16 bytes per sample and
/// about 100 per media segment, plus the init segments; each init segment after the first
/// needs the samples since the one before to hold at least as many bytes as itself (else
/// ``MP4Error/Code/limitExceeded``), so that a stream whose format changes every few bytes
/// cannot make the output many times its input.
public struct MP4FragmentWriter: Sendable {
    /// How segments are made.
    public struct Options: Sendable, Hashable {
        /// Where a segment may end.
        public enum Cutting: Sendable, Hashable {
            /// Only before a sync sample: every segment starts with one (CMAF, HLS).
            case atSyncSamples
            /// Before any sample once the target is reached.
            case anySample
        }

        /// How composition times before decoding order are expressed.
        public enum CompositionTimes: Sendable, Hashable {
            /// Non-negative offsets and an edit list in the init segment.
            case editList
            /// Offsets shifted by the first sample's, negative where needed (`trun` version 1).
            case negativeOffsets
        }

        /// The track's timescale.
        public var timescale: Int64
        /// The target segment duration in timescale units: a segment ends at the first
        /// possible cut at or after it.
        public var targetDuration: Int64
        /// Where segments may end.
        public var cutting: Cutting
        /// How composition offsets are written.
        public var compositionTimes: CompositionTimes
        /// Write a `sidx` box in each media segment.
        public var writesSegmentIndex: Bool
        /// Write `styp` at the start of each media segment.
        public var writesSegmentType: Bool
        /// The init segment's `ftyp` major brand.
        public var majorBrand: MP4FourCC
        /// The init segment's `ftyp` compatible brands.
        public var compatibleBrands: [MP4FourCC]
        /// After a new init segment (a format change), also put the new parameter sets in band
        /// in the first sample that uses them (see ``MP4Sample/carryingParameterSets(of:)``).
        public var repeatsParameterSetsAfterFormatChange: Bool
        /// The media segments' `styp` major brand.
        public var segmentMajorBrand: MP4FourCC
        /// The media segments' `styp` compatible brands.
        public var segmentCompatibleBrands: [MP4FourCC]

        /// Creates options: segments at sync samples, negative composition offsets, no `sidx`,
        /// `styp`.
        public init(timescale: Int64, targetDuration: Int64, cutting: Cutting = .atSyncSamples,
                    compositionTimes: CompositionTimes = .negativeOffsets, writesSegmentIndex: Bool = false,
                    writesSegmentType: Bool = true, repeatsParameterSetsAfterFormatChange: Bool = true,
                    majorBrand: MP4FourCC = "iso6",
                    compatibleBrands: [MP4FourCC] = ["iso6", "iso5", "cmfc", "dash", "avc1", "mp41"],
                    segmentMajorBrand: MP4FourCC = "msdh",
                    segmentCompatibleBrands: [MP4FourCC] = ["msdh", "msix", "cmfs", "cmff"]) {
            self.timescale = timescale
            self.targetDuration = targetDuration
            self.cutting = cutting
            self.compositionTimes = compositionTimes
            self.writesSegmentIndex = writesSegmentIndex
            self.writesSegmentType = writesSegmentType
            self.repeatsParameterSetsAfterFormatChange = repeatsParameterSetsAfterFormatChange
            self.majorBrand = majorBrand
            self.compatibleBrands = compatibleBrands
            self.segmentMajorBrand = segmentMajorBrand
            self.segmentCompatibleBrands = segmentCompatibleBrands
        }
    }

    private struct PendingSample: Sendable {
        var sample: MP4Sample
        var dts: Int64
        var pts: Int64
        var duration: Int64?
    }

    /// The options in force.
    public let options: Options
    /// The description of the current init segment, nil before the first sample.
    public private(set) var description: MP4SampleDescription?
    /// The number of media segments written.
    public private(set) var segmentCount: UInt32 = 0
    /// The number of init segments written.
    public private(set) var initializationCount: UInt32 = 0
    /// True once ``finish()`` has run.
    public private(set) var isFinished = false

    private let timescale: UInt32
    private var pending: [PendingSample] = []
    private var clock = SampleClock()
    private var lastDelta: Int64?
    /// The edit list's media time: the first sample's composition offset.
    private var firstOffset: Int64 = 0
    /// The bytes of the samples since the last init segment: the credit a new one needs.
    private var bytesSinceInitialization = 0

    /// Creates a writer.
    /// - Throws: ``MP4Error/Code/invalidArgument`` for a timescale outside 1...2^32-1 or a
    ///   target duration below 1.
    public init(options: Options) throws(MP4Error) {
        guard options.timescale > 0, let ts = UInt32(exactly: options.timescale) else {
            throw MP4Error.invalid(.invalidArgument, "timescale \(options.timescale) is outside 1...\(UInt32.max)")
        }
        guard options.targetDuration > 0 else {
            throw MP4Error.invalid(.invalidArgument, "target duration \(options.targetDuration) is not positive")
        }
        self.options = options
        timescale = ts
    }

    /// Adds a sample.
    /// - Returns: the segments this sample completed (the previous media segment, and a new
    ///   init segment before a description change), in order; often none.
    /// - Throws: ``MP4Error/Code/invalidArgument`` after ``finish()``, for a decoding time
    ///   that goes back or jumps more than 2^32-1, a composition offset that does not fit
    ///   32 bits, or a sample of 4 GiB or more; ``MP4Error/Code/limitExceeded`` for a
    ///   description change before the samples since the last one hold as many bytes as the
    ///   new init segment (nothing is written for this sample: the writer may go on with
    ///   samples of the current description).
    public mutating func append(_ sample: MP4Sample, description newDescription: MP4SampleDescription) throws(MP4Error) -> [MP4Segment] {
        guard !isFinished else { throw MP4Error.invalid(.invalidArgument, "sample after finish()") }
        let changed = description != newDescription
        var initialization: [UInt8] = []
        if changed && description != nil {  // the first init segment is made below, once the clock knows the first offset
            initialization = initializationSegment(newDescription)
            guard bytesSinceInitialization >= initialization.count else {
                throw MP4Error.invalid(.limitExceeded, "the format changes after \(bytesSinceInitialization) bytes of samples, "
                                       + "fewer than its init segment's \(initialization.count)")
            }
        }
        // trun offsets are shifted by the first one: keep them within 32 signed bits.
        let (dts, pts, offset, step) = try clock.place(sample, maximumOffset: Int64(Int32.max))
        var out: [MP4Segment] = []
        if let step {
            if !pending.isEmpty { pending[pending.count &- 1].duration = step }
            lastDelta = step
        } else {
            firstOffset = max(0, offset)
        }
        if let first = pending.first {
            let reached = dts &- first.dts >= options.targetDuration
            let canCut = options.cutting == .anySample || sample.flags.isSync
            if changed || (reached && canCut) { out.append(try closeSegment()) }
        }
        if changed {
            if description == nil { initialization = initializationSegment(newDescription) }
            description = newDescription
            initializationCount &+= 1
            out.append(MP4Segment(kind: .initialization, bytes: initialization,
                                  sequenceNumber: initializationCount, initializationNumber: initializationCount))
            bytesSinceInitialization = 0
        }
        bytesSinceInitialization = bytesSinceInitialization > Int.max &- sample.data.count ? Int.max : bytesSinceInitialization &+ sample.data.count
        var stored = sample
        if changed && initializationCount > 1 && options.repeatsParameterSetsAfterFormatChange,
           let record = newDescription.decoderConfiguration {
            stored = try sample.carryingParameterSets(of: record)
        }
        pending.append(PendingSample(sample: stored, dts: dts, pts: pts, duration: sample.duration))
        return out
    }

    /// Ends the stream: the last media segment (its last sample's duration is its own, else
    /// the one before).
    public mutating func finish() throws(MP4Error) -> [MP4Segment] {
        guard !isFinished else { throw MP4Error.invalid(.invalidArgument, "finish() called twice") }
        isFinished = true
        guard !pending.isEmpty else { return [] }
        if pending[pending.count &- 1].duration == nil {
            pending[pending.count &- 1].duration = pending[pending.count &- 1].sample.duration ?? lastDelta ?? 0
        }
        return [try closeSegment()]
    }

    /// The init segment for `description`.
    private func initializationSegment(_ description: MP4SampleDescription) -> [UInt8] {
        var w = BoxWriter()
        MovieBoxes.fileType(.ftyp, major: options.majorBrand, minor: 0, compatible: options.compatibleBrands, into: &w)
        var edit: Int64? = nil
        if options.compositionTimes == .editList && firstOffset > 0 { edit = firstOffset }
        let track = MovieBoxes.Track(timescale: timescale, mediaDuration: 0, presentationDuration: 0, description: description,
                                     editMediaTime: edit, editDuration: 0)
        w.box(.moov) { w in
            MovieBoxes.movieHeader(track, into: &w)
            MovieBoxes.track(track, descriptions: [description], into: &w) { w in
                for type in [MP4FourCC.stts, .stsc, .stco] { w.fullBox(type, version: 0, flags: 0) { w in w.u32(0) } }
                w.fullBox(.stsz, version: 0, flags: 0) { w in w.u32(0); w.u32(0) }
            }
            w.box(.mvex) { w in
                w.fullBox(.trex, version: 0, flags: 0) { w in
                    w.u32(track.trackID); w.u32(1); w.u32(0); w.u32(0); w.u32(0)
                }
            }
        }
        return w.bytes
    }

    /// Writes the pending samples as one media segment and empties them.
    private mutating func closeSegment() throws(MP4Error) -> MP4Segment {
        let samples = pending
        pending.removeAll(keepingCapacity: true)
        segmentCount &+= 1
        let shift = options.compositionTimes == .negativeOffsets ? firstOffset : 0
        var durations: [UInt32] = []
        var offsets: [Int64] = []
        var mediaBytes: UInt64 = 0
        var total: Int64 = 0
        var earliest = Int64.max
        for s in samples {
            let d = max(0, s.duration ?? 0)
            guard d <= Int64(UInt32.max) else { throw MP4Error.invalid(.invalidArgument, "sample duration \(d) does not fit trun") }
            durations.append(UInt32(d))
            offsets.append(s.pts &- s.dts &- shift)  // all fit 32 bits, checked when added
            mediaBytes &+= UInt64(s.sample.data.count)
            total &+= d
            earliest = min(earliest, s.pts)
        }
        let anyNegative = offsets.contains { $0 < 0 }
        let anyOffset = offsets.contains { $0 != 0 }
        let first = samples[0]
        var trunFlags: UInt32 = FragmentRun.dataOffsetPresent | FragmentRun.durationPresent | FragmentRun.sizePresent
            | FragmentRun.flagsPresent
        if anyOffset { trunFlags |= FragmentRun.compositionOffsetPresent }
        let largeData = mediaBytes &+ 8 > UInt64(UInt32.max)
        // The moof, with data_offset patched once its size is known.
        var moof = BoxWriter(reservingCapacity: 128 &+ samples.count &* 16)
        var dataOffsetPosition = 0
        moof.box(.moof) { w in
            w.fullBox(.mfhd, version: 0, flags: 0) { w in w.u32(segmentCount) }
            w.box(.traf) { w in
                w.fullBox(.tfhd, version: 0, flags: 0x2_0000) { w in w.u32(1) }  // default-base-is-moof
                w.fullBox(.tfdt, version: 1, flags: 0) { w in w.u64(UInt64(first.dts)) }  // dts >= 0 from the origin
                w.fullBox(.trun, version: anyNegative ? 1 : 0, flags: trunFlags) { w in
                    w.u32(UInt32(truncatingIfNeeded: samples.count))
                    dataOffsetPosition = w.bytes.count
                    w.u32(0)
                    for (k, s) in samples.enumerated() {
                        w.u32(durations[k])
                        w.u32(UInt32(truncatingIfNeeded: s.sample.data.count))  // checked when added
                        w.u32(s.sample.flags.rawValue)
                        if anyOffset { w.u32(UInt32(truncatingIfNeeded: offsets[k])) }
                    }
                }
            }
        }
        let dataOffset = moof.bytes.count &+ (largeData ? 16 : 8)
        let d = UInt32(truncatingIfNeeded: dataOffset)  // a moof is far below 4 GiB
        moof.bytes[dataOffsetPosition] = UInt8(truncatingIfNeeded: d >> 24)
        moof.bytes[dataOffsetPosition &+ 1] = UInt8(truncatingIfNeeded: d >> 16)
        moof.bytes[dataOffsetPosition &+ 2] = UInt8(truncatingIfNeeded: d >> 8)
        moof.bytes[dataOffsetPosition &+ 3] = UInt8(truncatingIfNeeded: d)

        var out = BoxWriter(reservingCapacity: moof.bytes.count &+ Int(truncatingIfNeeded: mediaBytes) &+ 96)
        if options.writesSegmentType {
            MovieBoxes.fileType(.styp, major: options.segmentMajorBrand, minor: 0,
                                compatible: options.segmentCompatibleBrands, into: &out)
        }
        let presented = earliest &- firstOffset  // the edit list, or the shifted offsets, start the presentation at 0
        if options.writesSegmentIndex {
            let referenced = UInt64(moof.bytes.count) &+ mediaBytes &+ (largeData ? 16 : 8)
            out.fullBox(.sidx, version: 1, flags: 0) { w in
                w.u32(1)  // reference_ID: the track
                w.u32(timescale)
                w.u64(UInt64(max(0, presented)))
                w.u64(0)  // first_offset
                w.u16(0)
                w.u16(1)  // reference_count
                w.u32(UInt32(truncatingIfNeeded: min(referenced, 0x7FFF_FFFF)))  // reference_type 0 (media)
                w.u32(UInt32(truncatingIfNeeded: min(total, Int64(UInt32.max))))
                // starts_with_SAP, SAP_type 1 (IDR) when the first sample is sync, delta 0
                w.u32(first.sample.flags.isSync ? 0x9000_0000 : 0)
            }
        }
        out.append(moof.bytes)
        if largeData {
            out.u32(1); out.fourCC(.mdat); out.u64(mediaBytes &+ 16)
        } else {
            out.u32(UInt32(mediaBytes &+ 8)); out.fourCC(.mdat)
        }
        for s in samples { out.append(s.sample.data) }
        return MP4Segment(kind: .media, bytes: out.bytes, sequenceNumber: segmentCount, initializationNumber: initializationCount,
                          decodeTime: first.dts, presentationTime: presented, duration: total, sampleCount: samples.count,
                          startsWithSyncSample: first.sample.flags.isSync)
    }
}
