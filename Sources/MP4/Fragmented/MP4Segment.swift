/// One output of ``MP4FragmentWriter``: an init segment (`ftyp` + `moov`, no samples), the
/// first fragment of a media segment (`styp`, optional `sidx`, `moof` + `mdat`), or a further
/// fragment of the same media segment, as bytes to store or serve.
///
/// A media segment is its ``Kind-swift.enum/media`` piece followed by every
/// ``Kind-swift.enum/fragment`` piece up to the next `media` or `initialization` piece: write
/// them to one file (``HLSSegmentWriter`` does), or serve each fragment as it comes (CMAF chunks,
/// low-latency HLS parts).
public struct MP4Segment: Sendable {
    /// What a segment holds.
    public enum Kind: Sendable, Hashable {
        /// `ftyp` + `moov` with `mvex`: the sample description, no samples (HLS `EXT-X-MAP`).
        case initialization
        /// `styp` (+ `sidx`) + `moof` + `mdat`: the first fragment of a media segment.
        case media
        /// (`sidx` +) `moof` + `mdat`: a further fragment of the media segment begun by the
        /// last ``media`` piece; it belongs after it in the same segment.
        case fragment
    }

    /// What the segment holds.
    public var kind: Kind
    /// The segment's bytes.
    public var bytes: [UInt8]
    /// For a media segment or fragment, the media segment's number (from 1); for an init
    /// segment, its number among init segments (from 1).
    public var sequenceNumber: UInt32
    /// The init segment a media segment needs (its ``sequenceNumber``); an init segment's own.
    public var initializationNumber: UInt32
    /// `mfhd`'s `sequence_number`: the fragment's number (from 1); 0 for an init segment.
    public var fragmentNumber: UInt32
    /// Decoding time of the first sample (the track's timescale, `tfdt`); 0 for an init segment.
    public var decodeTime: Int64
    /// Earliest presentation time of the fragment's samples, with the edit list's shift applied
    /// (what a player shows); 0 for an init segment.
    public var presentationTime: Int64
    /// The sum of the fragment's sample durations; 0 for an init segment.
    public var duration: Int64
    /// The number of samples.
    public var sampleCount: Int
    /// The first sample is a sync sample.
    public var startsWithSyncSample: Bool
    /// A media segment whose first sample is an IDR access unit: with its init segment it
    /// decodes alone (HLS `EXT-X-INDEPENDENT-SEGMENTS`). False for fragments.
    public var isIndependent: Bool
    /// An init segment after the first that changes what a decoder is set up for (picture size,
    /// profile, chroma format, bit depth): HLS puts `EXT-X-DISCONTINUITY` before it. False for
    /// the first init segment and for one that only moves parameter sets in band (`avc3`).
    public var isDiscontinuity: Bool

    /// Creates a segment description.
    public init(kind: Kind, bytes: [UInt8], sequenceNumber: UInt32, initializationNumber: UInt32, fragmentNumber: UInt32 = 0,
                decodeTime: Int64 = 0, presentationTime: Int64 = 0, duration: Int64 = 0, sampleCount: Int = 0,
                startsWithSyncSample: Bool = false, isIndependent: Bool = false, isDiscontinuity: Bool = false) {
        self.kind = kind
        self.bytes = bytes
        self.sequenceNumber = sequenceNumber
        self.initializationNumber = initializationNumber
        self.fragmentNumber = fragmentNumber
        self.decodeTime = decodeTime
        self.presentationTime = presentationTime
        self.duration = duration
        self.sampleCount = sampleCount
        self.startsWithSyncSample = startsWithSyncSample
        self.isIndependent = isIndependent
        self.isDiscontinuity = isDiscontinuity
    }
}
