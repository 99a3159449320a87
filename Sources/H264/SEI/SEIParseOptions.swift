/// How SEI NAL units are parsed.
public struct SEIParseOptions: Sendable, Hashable {
    /// At most this many messages are read from one SEI NAL unit; more is
    /// ``H264Error/Code/limitExceeded``. Default 256, far above what encoders write (x264: one
    /// message per NAL unit) and a bound on the work one NAL unit can ask for.
    public var maxMessages: Int = 256
    /// Payload types kept as raw bytes even though the library parses them.
    public var rawPayloadTypes: Set<SEIPayloadType> = []
    /// Keep every payload as raw bytes: only the message framing is parsed, and no SPS facts are
    /// needed. Used to remove messages without touching the others.
    public var keepAllPayloadsRaw = false

    /// Creates options.
    public init(maxMessages: Int = 256, rawPayloadTypes: Set<SEIPayloadType> = [], keepAllPayloadsRaw: Bool = false) {
        self.maxMessages = maxMessages
        self.rawPayloadTypes = rawPayloadTypes
        self.keepAllPayloadsRaw = keepAllPayloadsRaw
    }

    /// Parse every payload type the library knows.
    public static let `default` = SEIParseOptions()

    /// Parse what FFmpeg 5.1's `trace_headers` parses for H.264 and keep the rest raw
    /// (`payload_byte[i]`): dec_ref_pic_marking_repetition (7) and frame_packing_arrangement (45).
    public static let ffmpegTrace = SEIParseOptions(rawPayloadTypes: [.decRefPicMarkingRepetition, .framePackingArrangement])

    /// Framing only: every payload kept raw.
    public static let framingOnly = SEIParseOptions(keepAllPayloadsRaw: true)

    /// Whether `type` is to be parsed.
    func parses(_ type: SEIPayloadType) -> Bool {
        !keepAllPayloadsRaw && !rawPayloadTypes.contains(type)
    }
}

/// An ``SEIContext`` that knows no SPS: buffering_period and pic_timing stay raw. Enough for
/// framing-only work such as removing messages.
public struct NoSEIContext: SEIContext {
    /// Creates the empty context.
    public init() {}
    public func seiTimingInfo(forSPS id: Int) -> SEITimingInfo? { nil }
    public var activeSEITimingInfo: SEITimingInfo? { nil }
}

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
