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
