import H264

/// One track of an MP4 file as ``MP4Reader`` found it: identity, timescale, sample
/// descriptions, edit list, and (kept internal, compact) where its samples are.
public struct MP4Track: Sendable {
    /// `track_ID`.
    public let trackID: UInt32
    /// The handler type: `vide` for video, `soun` for audio, ...
    public let handlerType: MP4FourCC
    /// The media timescale (`mdhd`): units per second of the samples' times.
    public let timescale: UInt32
    /// The media duration in the timescale (`mdhd`; 0 in a fragmented file's init segment).
    public let mediaDuration: UInt64
    /// The display width and height of `tkhd` (integer part of the 16.16 values).
    public let displaySize: (width: Int, height: Int)
    /// The sample descriptions (`stsd` entries), in order.
    public let descriptions: [MP4SampleDescription]
    /// The edit list (`elst`), empty when absent.
    public let edits: [MP4Edit]
    /// What the edit list adds to media times to give the times ``MP4Reader`` reports: the
    /// empty edits' duration (in the media timescale) minus the first media edit's
    /// `media_time`; 0 without an edit list. The reader applies it to decoding and
    /// presentation times alike, as FFmpeg does, so a presentation that an edit starts at a
    /// composition time of 2 frames starts at 0 and its first decoding time is -2 frames.
    /// Edit lists that trim, repeat or change the rate are reduced to this shift.
    public let presentationOffset: Int64
    /// How much earlier than written the reader reports decoding times: the most negative
    /// composition offset (`ctts` version 1, `trun` version 1, or a negative value in version
    /// 0), or 0. With it no sample is decoded after it is presented, which decoders need; the
    /// presentation times stay as written. FFmpeg moves decoding times the same way in a
    /// progressive file, and presentation times later by the same amount in a fragmented one.
    public internal(set) var decodeDelay: Int64 = 0
    /// The number of samples, in `moov` and in all movie fragments.
    public internal(set) var sampleCount: Int
    /// How the pictures are turned for display, from `tkhd`'s transformation matrix: a quarter
    /// turn, with or without a horizontal flip (what capturers and FFmpeg's `rotate` write);
    /// nil for another matrix (a scale, a shear, an arbitrary angle).
    public internal(set) var orientation: Orientation? = .identity

    /// ``mediaDuration`` as a duration; nil when the file gives none (0, as a fragmented
    /// file's init segment does) or the timescale is 0.
    public var duration: Duration? {
        guard mediaDuration > 0, timescale > 0 else { return nil }
        let (seconds, rest) = mediaDuration.quotientAndRemainder(dividingBy: UInt64(timescale))
        // rest < timescale < 2^32: rest * 10^9 fits 64 bits; nanoseconds are exact enough for any use
        return .seconds(Int64(clamping: seconds)) + .nanoseconds(Int64(rest &* 1_000_000_000 / UInt64(timescale)))
    }

    var tables: SampleTables
    var runs: [FragmentRun] = []
    var fragmentDefaults: FragmentDefaults?

    init(trackID: UInt32, handlerType: MP4FourCC, timescale: UInt32, mediaDuration: UInt64, displaySize: (Int, Int),
         descriptions: [MP4SampleDescription], edits: [MP4Edit], presentationOffset: Int64, tables: SampleTables) {
        self.trackID = trackID
        self.handlerType = handlerType
        self.timescale = timescale
        self.mediaDuration = mediaDuration
        self.displaySize = displaySize
        self.descriptions = descriptions
        self.edits = edits
        self.presentationOffset = presentationOffset
        self.tables = tables
        sampleCount = tables.sampleCount
    }

    /// True for a video track whose descriptions are all H.264 (`avc1`/`avc3` with `avcC`).
    public var isH264Video: Bool {
        handlerType == "vide" && !descriptions.isEmpty && descriptions.allSatisfy(\.isH264)
    }

    /// True when some description is protected (`encv`, `sinf`).
    public var isEncrypted: Bool { descriptions.contains { $0.format == "encv" || $0.originalFormat != nil } }

    /// True when the track has samples in movie fragments.
    public var isFragmented: Bool { !runs.isEmpty || fragmentDefaults != nil }
}

/// One entry of an edit list (`elst`).
public struct MP4Edit: Hashable, Sendable {
    /// `segment_duration`, in the movie timescale (`mvhd`); 0 in a fragmented file means
    /// "all of the media".
    public var segmentDuration: UInt64
    /// `media_time` in the media timescale; -1 for an empty edit (a delay).
    public var mediaTime: Int64
    /// `media_rate` as 16.16 fixed point (0x10000 is 1.0).
    public var mediaRate: Int32

    /// Creates an edit.
    public init(segmentDuration: UInt64, mediaTime: Int64, mediaRate: Int32 = 0x10000) {
        self.segmentDuration = segmentDuration
        self.mediaTime = mediaTime
        self.mediaRate = mediaRate
    }

    /// True for an empty edit (`media_time` -1).
    public var isEmpty: Bool { mediaTime == -1 }
}

/// The `ftyp` box.
public struct MP4FileType: Hashable, Sendable {
    /// `major_brand`.
    public var majorBrand: MP4FourCC
    /// `minor_version`.
    public var minorVersion: UInt32
    /// `compatible_brands`.
    public var compatibleBrands: [MP4FourCC]

    /// Creates a file type.
    public init(majorBrand: MP4FourCC, minorVersion: UInt32, compatibleBrands: [MP4FourCC]) {
        self.majorBrand = majorBrand
        self.minorVersion = minorVersion
        self.compatibleBrands = compatibleBrands
    }
}
