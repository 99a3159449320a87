/// When a sample is decoded and presented: its decode and presentation timestamps (and its
/// duration, when known) on one clock.
///
/// The one timestamp model of ``AccessUnitSample``: encoder output (``EncodedFrame``, on the
/// clock of the frames it was given) and parsed access units (``AccessUnit``, on the clock of
/// the stream's VUI timing or the frame rate given to the parser) both expose their times as
/// ``AccessUnitSample/timestamps``. Containers and transports convert it to their own clock
/// (``rescaled(to:)``): FLV to milliseconds, RTP to 90 kHz, MP4 to the track's timescale.
///
/// ```swift
/// if let t = sample.timestamps {
///     let ms = t.rescaled(to: 1000)          // nearest millisecond, halves away from zero
///     print(ms.dts, ms.pts, t.presentationSeconds)
/// }
/// ```
public struct SampleTimestamps: Sendable, Hashable {
    /// Presentation timestamp, in ``timeBase`` units.
    public var pts: Int64
    /// Decoding timestamp, in ``timeBase`` units: at most ``pts``; negative at the start of an
    /// encoder's stream with frame reordering.
    public var dts: Int64
    /// How long the sample lasts, in ``timeBase`` units; nil when unknown (an encoder's
    /// output, whose next frame has not come yet).
    public var duration: Int64?
    /// The unit of the times, in seconds (1/90,000 for a 90 kHz clock).
    public var timeBase: TimeBase

    /// Creates timestamps on a clock of `timeBase` seconds per unit.
    public init(pts: Int64, dts: Int64, duration: Int64? = nil, timeBase: TimeBase) {
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.timeBase = timeBase
    }

    /// Creates timestamps on a clock of `timescale` units per second.
    public init(pts: Int64, dts: Int64, duration: Int64? = nil, timescale: Int64) {
        self.init(pts: pts, dts: dts, duration: duration, timeBase: TimeBase(numerator: 1, denominator: timescale))
    }

    /// The same times on a clock of `timescale` units per second (1,000 for FLV, 90,000 for
    /// RTP), each rounded to the nearest unit, halves away from zero, computed exactly in
    /// integers (see ``TimeBase/rescale(_:to:)``).
    /// - Complexity: O(1).
    public func rescaled(to timescale: Int64) -> SampleTimestamps {
        SampleTimestamps(pts: timeBase.rescale(pts, to: timescale), dts: timeBase.rescale(dts, to: timescale),
                         duration: duration.map { timeBase.rescale($0, to: timescale) },
                         timeBase: TimeBase(numerator: 1, denominator: timescale))
    }

    /// The presentation time in seconds.
    public var presentationSeconds: Double { timeBase.seconds(pts) }

    /// The decoding time in seconds.
    public var decodeSeconds: Double { timeBase.seconds(dts) }
}
