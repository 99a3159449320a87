/// One sample of an H.264 track: an access unit as length-prefixed (AVCC) NAL units, with its
/// times, the timescale they are counted in, and its flags.
///
/// This is all the writers need, and what the reader returns: a sample does not know which
/// container it came from, so the same value moves from ``MP4Reader`` to ``MP4Writer`` or
/// ``MP4FragmentWriter``. The adapters ``MP4SampleBuilder`` (from the core's `AccessUnit` and
/// `EncodedFrame`) and ``MP4Sample/accessUnit(description:index:timescale:)`` (back to one)
/// connect it to the core.
public struct MP4Sample: Hashable, Sendable {
    /// The access unit: NAL units each after a big-endian length (the sample description's
    /// `lengthSizeMinusOne` + 1 bytes, 4 unless the avcC record says otherwise).
    public var data: ArraySlice<UInt8>
    /// Decoding time, in the track's timescale.
    public var decodeTime: Int64
    /// Presentation (composition) time, in the track's timescale.
    public var presentationTime: Int64
    /// Duration in the track's timescale; nil lets a writer take it from the next sample's
    /// decoding time (and the last sample's from the one before it).
    public var duration: Int64?
    /// Sync and dependency flags.
    public var flags: MP4SampleFlags
    /// The units per second of ``decodeTime``, ``presentationTime`` and ``duration``: a writer
    /// whose track has another timescale converts them (nearest tick), and one made without a
    /// timescale takes this one. ``MP4SampleBuilder`` sets it; nil means the times are already
    /// in the writer's timescale (a sample made by hand for one writer).
    public var timescale: Int64?

    /// Creates a sample.
    public init(data: ArraySlice<UInt8>, decodeTime: Int64, presentationTime: Int64, duration: Int64? = nil,
                flags: MP4SampleFlags, timescale: Int64? = nil) {
        self.data = data
        self.decodeTime = decodeTime
        self.presentationTime = presentationTime
        self.duration = duration
        self.flags = flags
        self.timescale = timescale
    }

    /// Creates a sample from an array.
    public init(data: [UInt8], decodeTime: Int64, presentationTime: Int64, duration: Int64? = nil, flags: MP4SampleFlags,
                timescale: Int64? = nil) {
        self.init(data: data[...], decodeTime: decodeTime, presentationTime: presentationTime, duration: duration,
                  flags: flags, timescale: timescale)
    }

    /// Presentation time minus decoding time: the composition offset of `ctts` and `trun`
    /// (wrapping only for times no file can hold).
    public var compositionOffset: Int64 { presentationTime &- decodeTime }

    /// True for a sync sample.
    public var isSync: Bool { flags.isSync }
}
