/// One output of ``MP4FragmentWriter``: an init segment (`ftyp` + `moov`, no samples) or a
/// media segment (`styp`, optional `sidx`, `moof` + `mdat`), as bytes to store or serve.
public struct MP4Segment: Sendable {
    /// What a segment holds.
    public enum Kind: Sendable, Hashable {
        /// `ftyp` + `moov` with `mvex`: the sample description, no samples (HLS `EXT-X-MAP`).
        case initialization
        /// `styp` (+ `sidx`) + `moof` + `mdat`: samples.
        case media
    }

    /// What the segment holds.
    public var kind: Kind
    /// The segment's bytes.
    public var bytes: [UInt8]
    /// For a media segment, `mfhd`'s `sequence_number` (from 1); for an init segment, its
    /// number among init segments (from 1).
    public var sequenceNumber: UInt32
    /// The init segment a media segment needs (its ``sequenceNumber``); an init segment's own.
    public var initializationNumber: UInt32
    /// Decoding time of the first sample (the track's timescale, `tfdt`); 0 for an init segment.
    public var decodeTime: Int64
    /// Earliest presentation time of the segment's samples, with the edit list's shift applied
    /// (what a player shows); 0 for an init segment.
    public var presentationTime: Int64
    /// The sum of the samples' durations; 0 for an init segment.
    public var duration: Int64
    /// The number of samples.
    public var sampleCount: Int
    /// The first sample is a sync sample.
    public var startsWithSyncSample: Bool

    /// Creates a segment description.
    public init(kind: Kind, bytes: [UInt8], sequenceNumber: UInt32, initializationNumber: UInt32, decodeTime: Int64 = 0,
                presentationTime: Int64 = 0, duration: Int64 = 0, sampleCount: Int = 0, startsWithSyncSample: Bool = false) {
        self.kind = kind
        self.bytes = bytes
        self.sequenceNumber = sequenceNumber
        self.initializationNumber = initializationNumber
        self.decodeTime = decodeTime
        self.presentationTime = presentationTime
        self.duration = duration
        self.sampleCount = sampleCount
        self.startsWithSyncSample = startsWithSyncSample
    }
}
