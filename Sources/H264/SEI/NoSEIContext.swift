/// An ``SEIContext`` that knows no SPS: buffering_period and pic_timing stay raw. Enough for
/// framing-only work such as removing messages.
public struct NoSEIContext: SEIContext {
    /// Creates the empty context.
    public init() {}
    public func seiTimingInfo(forSPS id: Int) -> SEITimingInfo? { nil }
    public var activeSEITimingInfo: SEITimingInfo? { nil }
}
