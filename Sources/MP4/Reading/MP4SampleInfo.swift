/// Where one sample is and when it plays, as ``MP4Reader`` finds it in the sample tables or
/// the movie fragments; ``MP4Reader/sample(_:)`` reads its bytes.
public struct MP4SampleInfo: Hashable, Sendable {
    /// Index in decoding order, from 0.
    public var index: Int
    /// File offset of the sample's first byte.
    public var offset: UInt64
    /// Size in bytes.
    public var size: Int
    /// Decoding time in the track's timescale, with the edit list's shift
    /// (``MP4Track/presentationOffset``) applied, and earlier by ``MP4Track/decodeDelay`` when
    /// composition offsets are negative.
    public var decodeTime: Int64
    /// Presentation time in the track's timescale, with the edit list's shift applied.
    public var presentationTime: Int64
    /// Duration in the track's timescale.
    public var duration: Int64
    /// Sync and dependency flags (`stss` and `sdtp`, or the fragment's sample flags).
    public var flags: MP4SampleFlags
    /// Index of the sample's description in ``MP4Track/descriptions``, from 0.
    public var descriptionIndex: Int

    /// Creates sample information.
    public init(index: Int, offset: UInt64, size: Int, decodeTime: Int64, presentationTime: Int64, duration: Int64,
                flags: MP4SampleFlags, descriptionIndex: Int) {
        self.index = index
        self.offset = offset
        self.size = size
        self.decodeTime = decodeTime
        self.presentationTime = presentationTime
        self.duration = duration
        self.flags = flags
        self.descriptionIndex = descriptionIndex
    }
}
