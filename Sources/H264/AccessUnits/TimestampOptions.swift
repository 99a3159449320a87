/// How ``TimestampAssigner`` (and every parser that times access units: ``AccessUnitParser``,
/// the `timing:` parameters of the conversions and writers) times an elementary stream: the
/// frame rate when the stream has none, the reorder depth or a presentation delay measured
/// beforehand.
public struct TimestampOptions: Sendable, Hashable {
    /// Frames per second as `numerator / denominator`, used when the SPS has no timing
    /// info (or always, with `overridesStreamTiming`).
    public var frameRate: (numerator: Int64, denominator: Int64)?
    /// Use `frameRate` even when the stream has VUI timing.
    public var overridesStreamTiming: Bool
    /// Reorder depth in frames, instead of the one the stream declares.
    public var reorderDepth: Int?
    /// A presentation delay measured beforehand, in time-base units (two per frame), instead
    /// of one taken from the reorder depth (negative: 0; PTS saturates at `Int64.max`): the
    /// timestamps of batch assignment
    /// (``TimestampAssigner/assign(_:spsLookup:options:)``) from a streaming pass.
    ///
    /// Pictures then wait in a presentation order deep enough to find the true order (32
    /// pictures) and PTS is the presentation position plus this delay. A first streaming pass
    /// with 0 measures it: the delay a stream needs is the largest DTS - PTS of its access
    /// units with a picture (``AccessUnitParser/requiredPresentationDelay``); a second pass
    /// with that value yields batch assignment's timestamps without holding the stream.
    public var presentationDelay: Int64?

    /// Creates the options.
    public init(frameRate: (numerator: Int64, denominator: Int64)? = nil, overridesStreamTiming: Bool = false,
                reorderDepth: Int? = nil, presentationDelay: Int64? = nil) {
        self.frameRate = frameRate
        self.overridesStreamTiming = overridesStreamTiming
        self.reorderDepth = reorderDepth
        self.presentationDelay = presentationDelay
    }

    public static func == (a: TimestampOptions, b: TimestampOptions) -> Bool {
        a.frameRate?.numerator == b.frameRate?.numerator && a.frameRate?.denominator == b.frameRate?.denominator
            && a.overridesStreamTiming == b.overridesStreamTiming && a.reorderDepth == b.reorderDepth
            && a.presentationDelay == b.presentationDelay
    }
    public func hash(into h: inout Hasher) {
        h.combine(frameRate?.numerator); h.combine(frameRate?.denominator)
        h.combine(overridesStreamTiming); h.combine(reorderDepth); h.combine(presentationDelay)
    }
}
