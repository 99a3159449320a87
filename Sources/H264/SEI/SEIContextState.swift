/// The ``SEIContext`` as seen while coding one SEI NAL unit: a buffering_period activates the
/// SPS it names for the messages after it in the same NAL unit (as FFmpeg does).
///
/// Holds the context as an existential, so that the syntax functions are generic over the coder
/// only and specialise fully for ``SyntaxReader`` (the context is asked once per timing message).
public struct SEIContextState {
    /// The caller's context.
    public let context: any SEIContext
    /// The SPS id of the last buffering_period read in this NAL unit.
    public var activatedSPS: Int?

    /// Wraps a context.
    public init(_ context: any SEIContext) { self.context = context }

    /// The facts of SPS `id`.
    public func timing(forSPS id: Int) -> SEITimingInfo? { context.seiTimingInfo(forSPS: id) }

    /// The facts of the SPS activated in this NAL unit, else the context's active SPS.
    public var activeTiming: SEITimingInfo? {
        if let id = activatedSPS, let t = context.seiTimingInfo(forSPS: id) { return t }
        return context.activeSEITimingInfo
    }
}
