import H264
import MediaSupport

/// Writes fragmented MP4 (CMAF): an init segment and media segments of one H.264 video track,
/// for HLS, DASH and Media Source Extensions, or back to back as one fragmented file.
///
/// Samples go in with ``append(_:description:)``; finished pieces come out as ``MP4Segment``s:
/// init segments, the first fragment of each media segment (``MP4Segment/Kind-swift.enum/media``:
/// `styp`, an optional `sidx`, `moof` + `mdat`) and the further fragments of the same segment
/// (``MP4Segment/Kind-swift.enum/fragment``: an optional `sidx`, `moof` + `mdat`), which
/// belong after it in the same file. A `moof` has `mfhd` (numbered per fragment), a `traf`
/// with `tfhd` default-base-is-moof, `tfdt` version 1 and `trun` with each sample's duration,
/// size, flags and composition offset, and a `data_offset` that counts a 16-byte `mdat` header
/// past 4 GiB.
///
/// ## Where segments start
///
/// Where decoding can start is judged from each sample's NAL units
/// (``MP4Sample/randomAccess(lengthSize:recoveryPoints:)``), not from the flags it arrives
/// with, and the sync flag written is that judgement: with
/// ``Options/Cutting-swift.enum/atSyncSamples`` (the default) a segment starts only at an IDR
/// access unit, so that every segment decodes alone with its init segment (what HLS's
/// `EXT-X-INDEPENDENT-SEGMENTS` promises); ``Options/Cutting-swift.enum/atRandomAccessPoints``
/// also starts segments at recovery points (open GOP, intra refresh), which do not decode alone
/// (``MP4Segment/isIndependent`` false); ``Options/Cutting-swift.enum/anySample`` cuts
/// anywhere (recordings). A segment ends at the first start point whose decoding time reaches
/// ``Options/targetDuration`` less half a frame duration (encoders' timestamp jitter does not
/// double segments), or, when no start point comes, at ``Options/maximumSegmentDuration``
/// (the next segment is then not independent: counted in ``segmentsCutWithoutStartPoint``).
/// Samples before the first start point cannot be decoded by anyone and are dropped
/// (counted in ``droppedLeadingSampleCount``), except with `anySample`.
///
/// ## Parameter sets that change
///
/// With ``Options/ParameterSetChanges-swift.enum/inBandWherePossible`` (the default) a change
/// that keeps the picture size, profile, chroma format and bit depth is carried in band: the
/// sample entry becomes `avc3` (one new init segment, the first time, which is not a
/// discontinuity), the sample that brings the change and the first sample of every later
/// segment carry the parameter sets in force, and no segment is cut for it. A change a decoder
/// must be reconfigured for (a new picture size) ends the segment and sends a new init segment
/// (``MP4Segment/isDiscontinuity``), as Chrome and Firefox need for a configuration change. The
/// init segments after the first may add at most the samples' bytes to the output; a change
/// that would need more is carried in band instead (``formatChangesCarriedInBand``).
///
/// ## Composition times
///
/// With ``Options/CompositionTimes-swift.enum/negativeOffsets`` (the default, as CMAF
/// packagers, FFmpeg's `cmaf` mode and GStreamer's `cmafmux` write them) each offset is written
/// minus the first sample's, so the first sample is presented at its decoding time, 0, with
/// `trun` version 1 when an offset is then negative and version 0 otherwise; no edit list is
/// needed. With ``Options/CompositionTimes-swift.enum/editList`` offsets stay as they are
/// (`trun` version 0) and the init segment's edit list (one edit, `segment_duration` 0,
/// `media_time` the first sample's composition offset) starts the presentation at 0, the form
/// ExoPlayer and Chromium honour and the one that gives a fragmented file the same start time
/// as a progressive one in FFmpeg.
///
/// ## Memory and output
///
/// Memory: the samples of one fragment, copied into one buffer with 40 bytes of bookkeeping
/// each: at most ``Options/maximumFragmentBytes`` counting the bookkeeping (or one sample larger
/// than that; ``heldBytes`` tells), in storage kept for the next fragment that is at most twice
/// that (arrays grow by doubling), and the fragment's output while it is returned. A fragment ends with its segment,
/// once its samples span ``Options/maximumFragmentDuration``, or before that bound would be
/// passed, so a segment of any length (a stream with few sync samples) is written in bounded
/// pieces. Output: the samples' bytes, plus 16 bytes per sample and about 100 per fragment, plus
/// the first init segment, plus the parameter sets carried in band (at most one copy per format
/// change and per segment) and the later init segments, which together add at most the samples'
/// bytes: past that, copies are left out (``parameterSetsLeftOut``) and changes carried in band.
///
/// ```swift
/// var writer = try MP4FragmentWriter(options: .init(targetDuration: .seconds(2)))
/// var file: [UInt8] = []
/// for (description, sample) in samples {
///     for piece in try writer.append(sample, description: description) { file += piece.bytes }
/// }
/// for piece in try writer.finish() { file += piece.bytes }
/// ```
public struct MP4FragmentWriter: Sendable {
    /// How segments are made.
    public struct Options: Sendable, Hashable {
        /// Where a segment may start.
        public enum Cutting: Sendable, Hashable {
            /// Only at an IDR access unit: every segment decodes alone (CMAF, HLS).
            case atSyncSamples
            /// At an IDR access unit or a recovery point (open GOP, intra refresh): segments
            /// that start at a recovery point are not independent.
            case atRandomAccessPoints
            /// Before any sample once the target is reached (recordings).
            case anySample
        }

        /// How composition times before decoding order are expressed.
        public enum CompositionTimes: Sendable, Hashable {
            /// Non-negative offsets and an edit list in the init segment.
            case editList
            /// Offsets shifted by the first sample's, negative where needed (`trun` version 1).
            case negativeOffsets
        }

        /// What a change of parameter sets (a new ``MP4SampleDescription``) makes.
        public enum ParameterSetChanges: Sendable, Hashable {
            /// A new init segment for every change (the sample entry stays as given, `avc1`
            /// normally), which also ends the segment.
            case newInitializationSegment
            /// In band under an `avc3` sample entry when the picture size, profile, chroma
            /// format and bit depth stay; a new init segment when they change.
            case inBandWherePossible
            /// Always in band, under the first init segment's sample entry (one `moov`: a
            /// fragmented file). Players that decode in-band parameter sets (FFmpeg, GStreamer,
            /// browsers for `avc3`) follow every change, a new picture size included.
            case inBand
        }

        /// The track's timescale (units per second); nil takes the first sample's
        /// (``MP4Sample/timescale``, which ``MP4SampleBuilder`` sets). Samples on another
        /// timescale are converted to it (nearest tick).
        public var timescale: Int64?
        /// The target segment duration: a segment ends at the first possible cut at or after
        /// it (less half a frame duration).
        public var targetDuration: Duration
        /// Where segments may start.
        public var cutting: Cutting
        /// How composition offsets are written.
        public var compositionTimes: CompositionTimes
        /// What a change of parameter sets makes.
        public var parameterSetChanges: ParameterSetChanges
        /// The longest segment when no start point comes (nil: ten times the target, at least
        /// 30 seconds): the segment is then cut at the next sample, and the one that follows
        /// is not independent.
        public var maximumSegmentDuration: Duration?
        /// A fragment of a segment ends once its samples span this (nil: the target
        /// duration), so a long segment is written in pieces.
        public var maximumFragmentDuration: Duration?
        /// The most a fragment holds in memory: its samples' bytes and 40 bytes of bookkeeping per sample.
        public var maximumFragmentBytes: Int
        /// Write a `sidx` box before each fragment.
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
        /// How the pictures are turned for display: `tkhd`'s transformation matrix in the init
        /// segments (identity by default).
        public var orientation: Orientation = .identity

        /// 16 MiB: ``maximumFragmentBytes`` unless given.
        public static let defaultMaximumFragmentBytes = 16 << 20

        /// Creates options: segments at IDR access units, negative composition offsets,
        /// parameter sets in band where possible, no `sidx`, `styp`.
        ///
        /// ```swift
        /// MP4FragmentWriter.Options(targetDuration: .seconds(2))   // the samples' timescale
        /// ```
        /// - Parameters:
        ///   - timescale: the track's timescale; nil (the default) takes the first sample's.
        ///   - targetDuration: the target segment duration (HLS: 2 to 6 seconds).
        ///   - cutting: where segments may start (``cutting``).
        ///   - compositionTimes: how presentation offsets are written (``compositionTimes``).
        ///   - parameterSetChanges: how a change of SPS or PPS is carried (``parameterSetChanges``).
        ///   - maximumSegmentDuration: the longest segment (``maximumSegmentDuration``).
        ///   - maximumFragmentDuration: the longest fragment within a segment (``maximumFragmentDuration``).
        ///   - maximumFragmentBytes: the most bytes a fragment holds (``maximumFragmentBytes``).
        ///   - writesSegmentIndex: whether each segment starts with a `sidx` (``writesSegmentIndex``).
        ///   - writesSegmentType: whether each segment starts with a `styp` (``writesSegmentType``).
        ///   - repeatsParameterSetsAfterFormatChange: ``repeatsParameterSetsAfterFormatChange``.
        ///   - majorBrand: the init segment's `ftyp` major brand.
        ///   - compatibleBrands: the init segment's `ftyp` compatible brands.
        ///   - segmentMajorBrand: each segment's `styp` major brand.
        ///   - segmentCompatibleBrands: each segment's `styp` compatible brands.
        public init(timescale: Int64? = nil, targetDuration: Duration, cutting: Cutting = .atSyncSamples,
                    compositionTimes: CompositionTimes = .negativeOffsets,
                    parameterSetChanges: ParameterSetChanges = .inBandWherePossible,
                    maximumSegmentDuration: Duration? = nil, maximumFragmentDuration: Duration? = nil,
                    maximumFragmentBytes: Int = defaultMaximumFragmentBytes, writesSegmentIndex: Bool = false,
                    writesSegmentType: Bool = true, repeatsParameterSetsAfterFormatChange: Bool = true,
                    majorBrand: MP4FourCC = "iso6",
                    compatibleBrands: [MP4FourCC] = ["iso6", "iso5", "cmfc", "dash", "avc1", "mp41"],
                    segmentMajorBrand: MP4FourCC = "msdh",
                    segmentCompatibleBrands: [MP4FourCC] = ["msdh", "msix", "cmfs", "cmff"]) {
            self.timescale = timescale
            self.targetDuration = targetDuration
            self.cutting = cutting
            self.compositionTimes = compositionTimes
            self.parameterSetChanges = parameterSetChanges
            self.maximumSegmentDuration = maximumSegmentDuration
            self.maximumFragmentDuration = maximumFragmentDuration
            self.maximumFragmentBytes = maximumFragmentBytes
            self.writesSegmentIndex = writesSegmentIndex
            self.writesSegmentType = writesSegmentType
            self.repeatsParameterSetsAfterFormatChange = repeatsParameterSetsAfterFormatChange
            self.majorBrand = majorBrand
            self.compatibleBrands = compatibleBrands
            self.segmentMajorBrand = segmentMajorBrand
            self.segmentCompatibleBrands = segmentCompatibleBrands
        }

        /// Creates options with durations in timescale units.
        @available(*, deprecated, message: "durations are Durations: init(timescale:targetDuration: .seconds(2), ...); a tick count given for seconds (targetDuration: 2) cut a segment at every keyframe")
        public init(timescale: Int64, targetDuration: Int64, cutting: Cutting = .atSyncSamples,
                    compositionTimes: CompositionTimes = .negativeOffsets,
                    parameterSetChanges: ParameterSetChanges = .inBandWherePossible,
                    maximumSegmentDuration: Int64? = nil, maximumFragmentDuration: Int64? = nil,
                    maximumFragmentBytes: Int = defaultMaximumFragmentBytes, writesSegmentIndex: Bool = false,
                    writesSegmentType: Bool = true, repeatsParameterSetsAfterFormatChange: Bool = true,
                    majorBrand: MP4FourCC = "iso6",
                    compatibleBrands: [MP4FourCC] = ["iso6", "iso5", "cmfc", "dash", "avc1", "mp41"],
                    segmentMajorBrand: MP4FourCC = "msdh",
                    segmentCompatibleBrands: [MP4FourCC] = ["msdh", "msix", "cmfs", "cmff"]) {
            func duration(_ ticks: Int64) -> Duration { Duration(ticks: ticks, timescale: timescale) }
            self.init(timescale: timescale, targetDuration: duration(targetDuration), cutting: cutting,
                      compositionTimes: compositionTimes, parameterSetChanges: parameterSetChanges,
                      maximumSegmentDuration: maximumSegmentDuration.map(duration),
                      maximumFragmentDuration: maximumFragmentDuration.map(duration),
                      maximumFragmentBytes: maximumFragmentBytes, writesSegmentIndex: writesSegmentIndex,
                      writesSegmentType: writesSegmentType,
                      repeatsParameterSetsAfterFormatChange: repeatsParameterSetsAfterFormatChange,
                      majorBrand: majorBrand, compatibleBrands: compatibleBrands, segmentMajorBrand: segmentMajorBrand,
                      segmentCompatibleBrands: segmentCompatibleBrands)
        }

        /// The durations in `timescale` units: the target, the segment limit as used (at least
        /// the target) and the fragment limit as used (at least 1).
        func ticks(timescale: Int64) -> (target: Int64, segmentLimit: Int64, fragmentLimit: Int64) {
            let (target, segment) = SegmentCutRule.limits(target: targetDuration, maximum: maximumSegmentDuration, timescale: timescale)
            let fragment = max(1, maximumFragmentDuration?.ticks(timescale: timescale) ?? target)
            return (target, segment, fragment)
        }
    }

    /// One sample waiting in the fragment: its times and `trun` fields (the bytes are in
    /// `media`).
    private struct Entry: Sendable {
        var dts: Int64
        var pts: Int64
        var duration: Int64?
        var size: UInt32
        var flags: MP4SampleFlags
    }

    /// What a sample costs the fragment besides its bytes: its entry (40 bytes on 64-bit
    /// platforms).
    static let bookkeepingPerSample = MemoryLayout<Entry>.stride

    /// The options in force.
    public let options: Options
    /// The description of the last sample (the parameter sets in force), nil before the first.
    public private(set) var description: MP4SampleDescription?
    /// The sample entry of the current init segment (`avc3` once changes go in band).
    public private(set) var sampleEntry: MP4SampleDescription?
    /// The number of media segments begun.
    public private(set) var segmentCount: UInt32 = 0
    /// The number of fragments written (`mfhd` sequence numbers).
    public private(set) var fragmentCount: UInt32 = 0
    /// The number of init segments written.
    public private(set) var initializationCount: UInt32 = 0
    /// Samples dropped before the first one a segment could start at.
    public private(set) var droppedLeadingSampleCount = 0
    /// Segments begun at a sample where decoding cannot start, because
    /// ``Options/maximumSegmentDuration`` passed without a start point.
    public private(set) var segmentsCutWithoutStartPoint = 0
    /// Format changes carried in band because a new init segment would have added more than the
    /// samples' bytes to the output.
    public private(set) var formatChangesCarriedInBand = 0
    /// In-band copies of parameter sets left out because, with the init segments, they would
    /// have added more than the samples' bytes to the output (a hostile stream whose
    /// descriptions change every few bytes).
    public private(set) var parameterSetsLeftOut = 0
    /// True once ``finish()`` has run.
    public private(set) var isFinished = false
    /// The earliest presentation time of the samples so far, on the writer's timeline (the first
    /// sample's decoding time is 0); nil before the first sample.
    public private(set) var earliestPresentationTime: Int64?

    /// The edit list's `media_time` in the init segments: the first sample's composition offset,
    /// with ``Options/CompositionTimes-swift.enum/editList`` when it is positive; nil for no
    /// edit list. A picture that follows the first in decoding order but is presented before it
    /// (``earliestPresentationTime`` below this) is cut off by the edit: a writer that can
    /// rewrite its init segment at the end (``MP4FragmentedFileWriter``) then lowers it.
    public var editMediaTime: Int64? { options.compositionTimes == .editList && firstOffset > 0 ? firstOffset : nil }

    /// The track's timescale: the options', else the first sample's; nil before it is known.
    public var timescale: Int64? { clock.timescale }
    /// ``timescale`` for the boxes (the clock keeps it within 1...2^32-1); boxes are made only
    /// once a sample has set it.
    private var boxTimescale: UInt32 { UInt32(truncatingIfNeeded: clock.timescale ?? 1) }
    /// The durations of the options in ``timescale`` units, once it is known.
    private var limits: (target: Int64, segmentLimit: Int64, fragmentLimit: Int64) = (1, 1, 1)
    private var entries: [Entry] = []
    private var media: [UInt8] = []
    private var clock: SampleClock
    private var lastDelta: Int64?
    /// The edit list's media time: the first sample's composition offset.
    private var firstOffset: Int64 = 0
    /// The first decoding time of the open segment and of the open fragment.
    private var segmentStart: Int64 = 0
    private var fragmentStart: Int64 = 0
    /// The waiting samples are the first of their segment; whether that segment's first sample
    /// is an IDR access unit.
    private var fragmentStartsSegment = false
    private var segmentIsIndependent = false
    /// The waiting samples' first is an IDR access unit.
    private var fragmentStartsAtIDR = false
    /// Parameter sets changed in band since the init segment: a new segment's first sample
    /// carries those in force.
    private var changedInBand = false
    /// The bytes of the samples so far less the init segments after the first: what another
    /// init segment may add.
    private var initializationCredit = 0

    /// Creates a writer.
    /// - Throws: ``MP4Error/Code/invalidArgument`` for a timescale outside 1...2^32-1, a
    ///   target duration that is not positive, or a maximum fragment size below 1.
    public init(options: Options) throws(MP4Error) {
        if let timescale = options.timescale, timescale <= 0 || UInt32(exactly: timescale) == nil {
            throw MP4Error.invalid(.invalidArgument, "timescale \(timescale) is outside 1...\(UInt32.max)")
        }
        guard options.targetDuration > .zero else {
            throw MP4Error.invalid(.invalidArgument, "target duration \(options.targetDuration) is not positive")
        }
        guard options.maximumFragmentBytes > 0 else {
            throw MP4Error.invalid(.invalidArgument, "maximum fragment size \(options.maximumFragmentBytes) is not positive")
        }
        self.options = options
        clock = SampleClock(timescale: options.timescale)
        if let timescale = options.timescale { limits = options.ticks(timescale: timescale) }
    }

    /// The bytes the waiting samples hold, with their bookkeeping.
    public var heldBytes: Int { media.count &+ entries.count &* Self.bookkeepingPerSample }

    /// Adds a sample.
    /// - Returns: the pieces this sample completed, in order: the last fragment of the
    ///   previous segment or of the open one, and a new init segment before a format change
    ///   that needs one; often none.
    /// A sample on another timescale than the track's is converted to it (nearest tick).
    /// - Throws: ``MP4Error/Code/invalidArgument`` after ``finish()``, for a decoding time
    ///   that goes back or jumps more than 2^32-1, a composition offset that does not fit
    ///   32 bits, or a sample of 4 GiB or more; ``MP4Error/Code/timescaleMismatch`` for a
    ///   sample without a timescale when the options gave none, or times the track's timescale
    ///   cannot hold (nothing is written for that sample: the writer may go on with the next).
    public mutating func append(_ sample: MP4Sample, description newDescription: MP4SampleDescription) throws(MP4Error) -> [MP4Segment] {
        guard !isFinished else { throw MP4Error.invalid(.invalidArgument, "sample after finish()") }
        let lengthSize = newDescription.decoderConfiguration?.nalUnitLengthSize ?? .four
        let access = sample.randomAccess(lengthSize: lengthSize, recoveryPoints: options.cutting == .atRandomAccessPoints)
        let isStartPoint = access == .idr || (access == .recoveryPoint && options.cutting == .atRandomAccessPoints)
        let canCut = isStartPoint || options.cutting == .anySample
        guard sampleEntry != nil || canCut else {
            droppedLeadingSampleCount &+= 1
            return []
        }

        // What the description change makes: nothing, a new init segment, or sets in band.
        var newEntry: MP4SampleDescription?
        var discontinuity = false
        var inBand = false
        if let entry = sampleEntry, let current = description, current != newDescription {
            switch options.parameterSetChanges {
            case .newInitializationSegment:
                newEntry = newDescription
                discontinuity = true
            case .inBandWherePossible:
                if Self.needsReconfiguration(from: entry, to: newDescription) {
                    newEntry = newDescription
                    discontinuity = true
                } else {
                    // In band; an `avc1` entry becomes `avc3` at the next segment (below).
                    inBand = true
                }
            case .inBand:
                inBand = true
            }
        }
        var initialization: [UInt8] = []
        if let made = newEntry {
            initialization = initializationSegment(made)
            if initialization.count > initializationCredit {
                newEntry = nil
                discontinuity = false
                inBand = true
                formatChangesCarriedInBand &+= 1
            }
        }

        // Times in the track's timescale; trun offsets are shifted by the first one: keep them
        // within 32 signed bits.
        let hadTimescale = clock.timescale != nil
        let source = sample.decodeTime
        let sample = try clock.converted(sample)
        if !hadTimescale, let timescale = clock.timescale { limits = options.ticks(timescale: timescale) }
        let (dts, pts, offset, step) = try clock.place(sample, sourceDecodeTime: source, maximumOffset: Int64(Int32.max))
        var out: [MP4Segment] = []
        earliestPresentationTime = min(earliestPresentationTime ?? pts, pts)
        if let step {
            if !entries.isEmpty { entries[entries.count &- 1].duration = step }
            lastDelta = step
        } else {
            firstOffset = max(0, offset)
        }

        // Where this sample goes: a new segment, a new fragment, or the open fragment.
        var startsSegment = false
        if sampleEntry == nil || newEntry != nil {
            startsSegment = true
        } else {
            switch SegmentCutRule.decide(elapsed: dts &- segmentStart, canCut: canCut, lastStep: lastDelta,
                                         target: limits.target, limit: limits.segmentLimit) {
            case .none: break
            case .atStartPoint: startsSegment = true
            case .forced:
                startsSegment = true
                segmentsCutWithoutStartPoint &+= 1
            }
        }
        // Parameter sets changed in band under an `avc1` entry: the segment that starts here
        // gets an `avc3` init segment with the sets in force (not a discontinuity).
        if startsSegment, newEntry == nil, options.parameterSetChanges == .inBandWherePossible,
           changedInBand || inBand, let entry = sampleEntry, entry.format != "avc3" {
            var made = newDescription
            made.format = "avc3"
            let bytes = initializationSegment(made)
            if bytes.count <= initializationCredit {
                newEntry = made
                initialization = bytes
                inBand = false
            }
        }
        // The sample as stored: with the parameter sets in force in front when it brings a
        // change in band, follows a new init segment, or starts a segment after changes in band.
        // Those copies are paid from the same credit as init segments (the samples' bytes), so
        // that descriptions alternating every sample cannot multiply the output.
        var stored = sample
        if let record = newDescription.decoderConfiguration {
            let repeats = newEntry != nil && options.repeatsParameterSetsAfterFormatChange
            if inBand || repeats || (startsSegment && changedInBand && newEntry == nil) {
                // A sample whose NAL unit lengths do not add up is stored as it came.
                let carrying = (try? sample.carryingParameterSets(of: record)) ?? sample
                let added = carrying.data.count &- sample.data.count  // both in memory
                if added > 0 {
                    if added <= initializationCredit &- initialization.count, UInt32(exactly: carrying.data.count) != nil {
                        initializationCredit &-= added
                        stored = carrying
                    } else {
                        parameterSetsLeftOut &+= 1
                    }
                }
            }
        }
        let size = stored.data.count  // < 2^32: checked by the clock, or above
        let cost = size &+ Self.bookkeepingPerSample
        if !entries.isEmpty && (startsSegment || dts &- fragmentStart >= limits.fragmentLimit
                                || heldBytes > options.maximumFragmentBytes &- cost) {
            out.append(closeFragment())
        }

        if let made = newEntry ?? (sampleEntry == nil ? newDescription : nil) {
            // The first init segment is made once the clock knows the first composition offset.
            if sampleEntry == nil { initialization = initializationSegment(made) } else {
                initializationCredit &-= initialization.count  // checked above: stays >= 0
            }
            initializationCount &+= 1
            out.append(MP4Segment(kind: .initialization, bytes: initialization, sequenceNumber: initializationCount,
                                  initializationNumber: initializationCount, isDiscontinuity: discontinuity))
            sampleEntry = made
            changedInBand = false
        }
        if inBand { changedInBand = true }
        description = newDescription

        stored.flags.isSync = isStartPoint
        if stored.flags.isSync && stored.flags.dependsOn == .yes { stored.flags.dependsOn = .no }
        if startsSegment {
            segmentStart = dts
            segmentIsIndependent = access == .idr
        }
        if entries.isEmpty {
            fragmentStart = dts
            fragmentStartsSegment = startsSegment
            fragmentStartsAtIDR = access == .idr
        }
        entries.append(Entry(dts: dts, pts: pts, duration: sample.duration, size: UInt32(truncatingIfNeeded: size), flags: stored.flags))
        media.append(contentsOf: stored.data)
        let input = sample.data.count
        initializationCredit = initializationCredit > Int.max &- input ? Int.max : initializationCredit &+ input
        return out
    }

    /// Ends the stream: the last fragment (its last sample's duration is its own, else the one
    /// before).
    /// - Throws: ``MP4Error/Code/noStartPoint`` when samples came but none could start a
    ///   segment (nothing was written); ``MP4Error/Code/invalidArgument`` when called twice.
    public mutating func finish() throws(MP4Error) -> [MP4Segment] {
        guard !isFinished else { throw MP4Error.invalid(.invalidArgument, "finish() called twice") }
        isFinished = true
        if sampleEntry == nil && droppedLeadingSampleCount > 0 {
            let kind = options.cutting == .atRandomAccessPoints ? "an IDR access unit or a recovery point" : "an IDR access unit"
            throw MP4Error.invalid(.noStartPoint, "none of the \(droppedLeadingSampleCount) samples is \(kind), where decoding can start")
        }
        guard !entries.isEmpty else { return [] }
        if entries[entries.count &- 1].duration == nil { entries[entries.count &- 1].duration = lastDelta ?? 0 }
        return [closeFragment()]
    }

    /// True when a decoder must be set up again for `new`: another picture size, profile,
    /// chroma format or bit depth than the sample entry's.
    static func needsReconfiguration(from entry: MP4SampleDescription, to new: MP4SampleDescription) -> Bool {
        guard let a = entry.decoderConfiguration, let b = new.decoderConfiguration else { return true }
        return entry.width != new.width || entry.height != new.height || a.profileIndication != b.profileIndication
            || a.highProfileExtension?.chromaFormat != b.highProfileExtension?.chromaFormat
            || a.highProfileExtension?.bitDepthLumaMinus8 != b.highProfileExtension?.bitDepthLumaMinus8
            || a.highProfileExtension?.bitDepthChromaMinus8 != b.highProfileExtension?.bitDepthChromaMinus8
            || a.nalUnitLengthSize != b.nalUnitLengthSize
    }

    /// The init segment for `description`.
    private func initializationSegment(_ description: MP4SampleDescription) -> [UInt8] {
        var w = BoxWriter()
        MovieBoxes.fileType(.ftyp, major: options.majorBrand, minor: 0, compatible: options.compatibleBrands, into: &w)
        var edit: Int64? = nil
        if options.compositionTimes == .editList && firstOffset > 0 { edit = firstOffset }
        let track = MovieBoxes.Track(timescale: boxTimescale, mediaDuration: 0, presentationDuration: 0, description: description,
                                     editMediaTime: edit, editDuration: 0, orientation: options.orientation)
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

    /// Writes the waiting samples as one fragment (the first of a media segment when they
    /// begin one) and empties them; the buffers' storage is kept for the next fragment.
    private mutating func closeFragment() -> MP4Segment {
        if fragmentStartsSegment { segmentCount &+= 1 }
        fragmentCount &+= 1
        let shift = options.compositionTimes == .negativeOffsets ? firstOffset : 0
        var total: Int64 = 0
        var earliest = Int64.max
        var anyNegative = false
        var anyOffset = false
        for e in entries {
            total &+= max(0, e.duration ?? 0)  // each < 2^32 (checked below), far fewer than 2^31 samples
            earliest = min(earliest, e.pts)
            let offset = e.pts &- e.dts &- shift  // fits 32 bits, checked when placed
            anyNegative = anyNegative || offset < 0
            anyOffset = anyOffset || offset != 0
        }
        let mediaBytes = UInt64(media.count)
        let first = entries[0]
        var trunFlags: UInt32 = FragmentRun.dataOffsetPresent | FragmentRun.durationPresent | FragmentRun.sizePresent
            | FragmentRun.flagsPresent
        if anyOffset { trunFlags |= FragmentRun.compositionOffsetPresent }
        let largeData = mediaBytes &+ 8 > UInt64(UInt32.max)
        // The moof, with data_offset patched once its size is known.
        var moof = BoxWriter(reservingCapacity: 128 &+ entries.count &* 16)
        var dataOffsetPosition = 0
        moof.box(.moof) { w in
            w.fullBox(.mfhd, version: 0, flags: 0) { w in w.u32(fragmentCount) }
            w.box(.traf) { w in
                w.fullBox(.tfhd, version: 0, flags: 0x2_0000) { w in w.u32(1) }  // default-base-is-moof
                w.fullBox(.tfdt, version: 1, flags: 0) { w in w.u64(UInt64(first.dts)) }  // dts >= 0 from the origin
                w.fullBox(.trun, version: anyNegative ? 1 : 0, flags: trunFlags) { w in
                    w.u32(UInt32(truncatingIfNeeded: entries.count))
                    dataOffsetPosition = w.bytes.count
                    w.u32(0)
                    for e in entries {
                        // A step is < 2^32 (the clock checks it); a given duration is clamped.
                        w.u32(UInt32(clamping: max(0, e.duration ?? 0)))
                        w.u32(e.size)
                        w.u32(e.flags.rawValue)
                        if anyOffset { w.u32(UInt32(truncatingIfNeeded: e.pts &- e.dts &- shift)) }
                    }
                }
            }
        }
        let dataOffset = moof.bytes.count &+ (largeData ? 16 : 8)
        // a moof is far below 4 GiB
        moof.bytes.setUInt32(UInt32(truncatingIfNeeded: dataOffset), at: dataOffsetPosition)

        var out = BoxWriter(reservingCapacity: moof.bytes.count &+ media.count &+ 160)
        if options.writesSegmentType && fragmentStartsSegment {
            MovieBoxes.fileType(.styp, major: options.segmentMajorBrand, minor: 0,
                                compatible: options.segmentCompatibleBrands, into: &out)
        }
        let presented = earliest &- firstOffset  // the edit list, or the shifted offsets, start the presentation at 0
        if options.writesSegmentIndex {
            let referenced = UInt64(moof.bytes.count) &+ mediaBytes &+ (largeData ? 16 : 8)
            out.fullBox(.sidx, version: 1, flags: 0) { w in
                w.u32(1)  // reference_ID: the track
                w.u32(boxTimescale)
                w.u64(UInt64(max(0, presented)))
                w.u64(0)  // first_offset
                w.u16(0)
                w.u16(1)  // reference_count
                w.u32(UInt32(truncatingIfNeeded: min(referenced, 0x7FFF_FFFF)))  // reference_type 0 (media)
                w.u32(UInt32(truncatingIfNeeded: min(total, Int64(UInt32.max))))
                // starts_with_SAP and SAP_type: 1 for an IDR start, 3 for a recovery point
                w.u32(!first.flags.isSync ? 0 : fragmentStartsAtIDR ? 0x9000_0000 : 0xB000_0000)
            }
        }
        out.append(moof.bytes)
        if largeData {
            out.u32(1); out.fourCC(.mdat); out.u64(mediaBytes &+ 16)
        } else {
            out.u32(UInt32(mediaBytes &+ 8)); out.fourCC(.mdat)
        }
        out.append(media)
        let segment = MP4Segment(kind: fragmentStartsSegment ? .media : .fragment, bytes: out.bytes, sequenceNumber: segmentCount,
                                 initializationNumber: initializationCount, fragmentNumber: fragmentCount,
                                 decodeTime: first.dts, presentationTime: presented, duration: total, sampleCount: entries.count,
                                 startsWithSyncSample: first.flags.isSync,
                                 isIndependent: fragmentStartsSegment && segmentIsIndependent)
        entries.removeAll(keepingCapacity: true)
        media.removeAll(keepingCapacity: true)
        fragmentStartsSegment = false
        return segment
    }
}

/// Where an HLS segment ends, the one rule of both segmenters (``MP4FragmentWriter`` for
/// fragmented MP4, ``HLSTSSegmentWriter`` for MPEG-TS): at the first start point whose decoding
/// time reaches the target less half a frame duration (encoders' timestamp jitter does not
/// double segments), or at the maximum segment duration when no start point comes.
enum SegmentCutRule {
    /// What a sample does to the open segment.
    enum Decision {
        /// It goes in the open segment.
        case none
        /// It starts the next segment, at a start point.
        case atStartPoint
        /// It starts the next segment because the maximum passed without a start point.
        case forced
    }

    /// The target and the segment limit in `timescale` units: the maximum as given (at least
    /// the target), or ten targets, at least 30 seconds.
    static func limits(target targetDuration: Duration, maximum: Duration?, timescale: Int64) -> (target: Int64, segmentLimit: Int64) {
        let target = max(1, targetDuration.ticks(timescale: timescale))
        if let maximum { return (target, max(maximum.ticks(timescale: timescale), target)) }
        let tenTargets = target.multipliedReportingOverflow(by: 10)
        return (target, max(tenTargets.overflow ? Int64.max : tenTargets.partialValue, timescale &* 30))  // timescale < 2^32
    }

    /// The decision for a sample `elapsed` units after its segment's first, where `canCut`
    /// says whether a segment may start there and `lastStep` is the last decoding-time step.
    static func decide(elapsed: Int64, canCut: Bool, lastStep: Int64?, target: Int64, limit: Int64) -> Decision {
        if canCut && elapsed >= target &- (lastStep ?? 0) / 2 { return .atStartPoint }
        return elapsed >= limit ? .forced : .none
    }
}
