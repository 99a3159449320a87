/// The timeline both writers keep: the first sample's decoding time becomes 0, later samples
/// must not go back, and every step and composition offset must fit the 32-bit fields of
/// `stts`/`ctts` and `trun`.
struct SampleClock: Sendable {
    /// The first sample's decoding time as given, nil before it.
    private(set) var origin: Int64?
    /// The last sample's decoding time on the file's timeline.
    private(set) var lastDecodeTime: Int64 = 0

    /// Places the next sample on the file's timeline.
    /// - Parameter maximumOffset: the largest composition offset the box can hold.
    /// - Returns: its decoding and presentation times from the origin, its composition offset,
    ///   and its distance from the previous sample (nil for the first).
    /// - Throws: ``MP4Error/Code/invalidArgument`` for times that overflow, a composition offset
    ///   outside `Int32.min...maximumOffset`, a decoding time that goes back or jumps more
    ///   than 2^32-1, or a sample of 4 GiB or more.
    mutating func place(_ sample: MP4Sample, maximumOffset: Int64) throws(MP4Error)
    -> (dts: Int64, pts: Int64, offset: Int64, step: Int64?) {
        guard UInt32(exactly: sample.data.count) != nil else {
            throw MP4Error.invalid(.invalidArgument, "a sample of \(sample.data.count) bytes does not fit 32 bits")
        }
        let base = origin ?? sample.decodeTime
        let (dts, o1) = sample.decodeTime.subtractingReportingOverflow(base)
        let (pts, o2) = sample.presentationTime.subtractingReportingOverflow(base)
        guard !o1, !o2 else { throw MP4Error.invalid(.invalidArgument, "sample times overflow") }
        let (offset, o3) = pts.subtractingReportingOverflow(dts)
        guard !o3, offset >= Int64(Int32.min), offset <= maximumOffset else {
            throw MP4Error.invalid(.invalidArgument, "composition offset of the sample at \(sample.decodeTime) does not fit 32 bits")
        }
        var step: Int64?
        if origin != nil {
            guard dts >= lastDecodeTime, dts &- lastDecodeTime <= Int64(UInt32.max) else {  // both >= 0 here
                throw MP4Error.invalid(.invalidArgument, "decoding time \(sample.decodeTime) goes back or jumps more than 2^32-1")
            }
            step = dts &- lastDecodeTime
        }
        origin = base
        lastDecodeTime = dts
        return (dts, pts, offset, step)
    }
}
