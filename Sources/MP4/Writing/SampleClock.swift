import H264

/// The timeline both writers keep: samples are converted to the track's timescale (the
/// writer's, else the first sample's), the first sample's decoding time becomes 0, later
/// samples must not go back, and every step and composition offset must fit the 32-bit fields
/// of `stts`/`ctts` and `trun`.
struct SampleClock: Sendable {
    /// The track's timescale: the writer's, else the first sample's once one has come.
    private(set) var timescale: Int64?
    /// The first sample's decoding time as given, nil before it.
    private(set) var origin: Int64?
    /// The last sample's decoding time on the file's timeline.
    private(set) var lastDecodeTime: Int64 = 0
    /// The last sample's decoding time as it came, before conversion.
    private var lastSourceDecodeTime: Int64?

    /// A clock on `timescale` units per second, or on the first sample's timescale when nil.
    init(timescale: Int64? = nil) { self.timescale = timescale }

    /// `sample` with its times in the track's timescale (nearest tick, halves away from zero),
    /// which is the sample's own when the writer has none yet.
    /// - Throws: ``MP4Error/Code/timescaleMismatch`` for a sample without a timescale before
    ///   the track has one, a sample timescale outside 1...2^32-1, or times the conversion
    ///   overflows.
    mutating func converted(_ sample: MP4Sample) throws(MP4Error) -> MP4Sample {
        guard let target = timescale ?? sample.timescale else {
            throw MP4Error.invalid(.timescaleMismatch, "the sample says no timescale (MP4Sample.timescale) and the writer was given none")
        }
        guard target > 0, UInt32(exactly: target) != nil else {
            throw MP4Error.invalid(.timescaleMismatch, "timescale \(target) is outside 1...\(UInt32.max)")
        }
        timescale = target
        guard let source = sample.timescale, source != target else {
            var same = sample
            same.timescale = target
            return same
        }
        guard source > 0, UInt32(exactly: source) != nil else {
            throw MP4Error.invalid(.timescaleMismatch, "the sample's timescale \(source) is outside 1...\(UInt32.max)")
        }
        let base = TimeBase(numerator: 1, denominator: source)
        func convert(_ value: Int64) throws(MP4Error) -> Int64 {
            let ticks = base.rescale(value, to: target)
            guard ticks != .max, ticks != .min else {
                throw MP4Error.invalid(.timescaleMismatch, "time \(value) at \(source)/s overflows at \(target)/s")
            }
            return ticks
        }
        var out = sample
        out.decodeTime = try convert(sample.decodeTime)
        out.presentationTime = try convert(sample.presentationTime)
        if let duration = sample.duration { out.duration = try convert(duration) }
        out.timescale = target
        return out
    }

    /// Places the next sample, already in the track's timescale (``converted(_:)``), on the
    /// file's timeline.
    /// - Parameters:
    ///   - sourceDecodeTime: its decoding time before conversion (its own when it was not
    ///     converted), to tell a timescale too coarse for the samples.
    ///   - maximumOffset: the largest composition offset the box can hold.
    /// - Returns: its decoding and presentation times from the origin, its composition offset,
    ///   and its distance from the previous sample (nil for the first).
    /// - Throws: ``MP4Error/Code/invalidArgument`` for times that overflow, a composition offset
    ///   outside `Int32.min...maximumOffset`, a decoding time that goes back or jumps more
    ///   than 2^32-1, or a sample of 4 GiB or more; ``MP4Error/Code/timescaleMismatch`` when
    ///   two decoding times that differ became one in the track's timescale.
    mutating func place(_ sample: MP4Sample, sourceDecodeTime: Int64? = nil, maximumOffset: Int64) throws(MP4Error)
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
        let source = sourceDecodeTime ?? sample.decodeTime
        var step: Int64?
        if origin != nil {
            guard dts >= lastDecodeTime, dts &- lastDecodeTime <= Int64(UInt32.max) else {  // both >= 0 here
                throw MP4Error.invalid(.invalidArgument, "decoding time \(sample.decodeTime) goes back or jumps more than 2^32-1")
            }
            if dts == lastDecodeTime, let last = lastSourceDecodeTime, source > last {
                throw MP4Error.invalid(.timescaleMismatch, "decoding times \(last) and \(source) of the samples' clock are "
                                       + "one tick at \(timescale ?? 0)/s: the track's timescale is too coarse for them")
            }
            step = dts &- lastDecodeTime
        }
        origin = base
        lastDecodeTime = dts
        lastSourceDecodeTime = source
        return (dts, pts, offset, step)
    }
}

extension Duration {
    /// The duration as a count of units of `timescale` per second: the nearest, halves away
    /// from zero, saturating at the bounds of `Int64`.
    func ticks(timescale: Int64) -> Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: timescale)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, o2) = whole.addingReportingOverflow(Self.attosecond.rescale(attoseconds, to: timescale))
        return o2 ? (seconds < 0 ? .min : .max) : sum
    }

    /// `ticks` units of `timescale` per second (nearest attosecond).
    init(ticks: Int64, timescale: Int64) {
        let (seconds, rest) = ticks.quotientAndRemainder(dividingBy: max(1, timescale))
        self.init(secondsComponent: seconds,
                  attosecondsComponent: TimeBase(numerator: 1, denominator: max(1, timescale)).rescale(rest, to: 1_000_000_000_000_000_000))
    }

    private static let attosecond = TimeBase(numerator: 1, denominator: 1_000_000_000_000_000_000)
}
