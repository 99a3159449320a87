/// One `sei_message()` (ITU-T H.264 7.3.2.3.1): a payload type, a payload size and the
/// payload, which is parsed from its own `payloadSize` bytes so that it can never read into
/// the next message.
public struct SEIMessage: Sendable, Hashable {
    /// The payload.
    public var payload: SEIPayload
    /// The bits after a parsed payload inside its size (extension data and alignment, D.1);
    /// nil when the payload ended at its last byte. When writing, a payload that does not end
    /// on a byte boundary gets an empty trailer.
    public var trailer: SEIPayloadTrailer?
    /// Why a payload of a parseable type is raw; nil when parsed or of an unknown type.
    public var rawReason: SEIRawReason?

    /// Creates a message.
    public init(_ payload: SEIPayload, trailer: SEIPayloadTrailer? = nil) {
        self.payload = payload
        self.trailer = trailer
    }

    /// The message's `payloadType`.
    public var payloadType: SEIPayloadType { payload.payloadType }

    /// Reads, writes or traces one message. The coder must be byte aligned.
    ///
    /// Reading: `last_payload_type_byte` / `last_payload_size_byte` with their `ff_byte`
    /// runs, then the payload from its own byte range, then its trailer; buffering_period looks
    /// its SPS up in `context`, pic_timing and dec_ref_pic_marking_repetition the SPS in force.
    /// Writing: the payload is coded once into a scratch writer to learn its size, then the
    /// header and the payload (`context` is not used: parsed payloads carry their SPS facts).
    /// - Throws: ``H264Error/Code/truncated`` when the size runs past the end; payload errors.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(
        _ c: inout C, context: Context, options: SEIParseOptions
    ) throws(H264Error) {
        if c.isReading {
            try read(&c, context: context, options: options)
        } else if C.self == SyntaxInferrer.self {
            try codeBody(&c)  // inferred values only: no size to learn
        } else {
            try write(&c)
        }
    }

    private mutating func read<C: SyntaxCoder, Context: SyntaxContext>(
        _ c: inout C, context: Context, options: SEIParseOptions
    ) throws(H264Error) {
        let type = try Self.codeFFRun(&c, 0, "last_payload_type_byte")
        let size = try Self.codeFFRun(&c, 0, "last_payload_size_byte")
        // size <= 255 * (bytes in the NAL unit), far below Int.max / 8.
        let bits = size &* 8
        try c.requireBits(bits, "last_payload_size_byte")
        let start = c.bitPosition
        let limit = start &+ bits
        var bounded = BoundedSyntaxCoder(c, limit: limit)
        do {
            try choosePayload(&bounded, type: SEIPayloadType(type), context: context, options: options)
            try payload.code(&bounded, payloadSize: size)
            trailer = nil
            if !payload.isRaw && bounded.bitPosition < limit {
                var t = SEIPayloadTrailer()
                try t.code(&bounded, limit: limit)
                trailer = t
            }
        } catch {
            c = bounded.inner
            throw error
        }
        c = bounded.inner
    }

    /// Chooses the payload case for `type` (an empty value with the SPS facts it needs) or
    /// decides to keep it raw.
    private mutating func choosePayload<C: SyntaxCoder, Context: SyntaxContext>(
        _ c: inout C, type: SEIPayloadType, context: Context, options: SEIParseOptions
    ) throws(H264Error) {
        rawReason = nil
        guard options.parses(type) else {
            payload = .raw(type: type, bytes: [])
            rawReason = type.name == nil ? .unknownType : .keptByOptions
            return
        }
        switch type {
        case .bufferingPeriod:
            // A look-ahead, not a copy of the coder: a tracer's copy would record the element.
            let id = Int(try c.peekUE("seq_parameter_set_id", 0...31))
            if let timing = context.seiTimingInfo(forSPS: id) {
                payload = .bufferingPeriod(SEIBufferingPeriod(seqParameterSetID: id, timing: timing))
            } else {
                payload = .raw(type: type, bytes: [])
                rawReason = .missingSPS(id: id)
            }
        case .picTiming:
            if let timing = context.activeSEITimingInfo {
                payload = .picTiming(SEIPicTiming(timing: timing))
            } else {
                payload = .raw(type: type, bytes: [])
                rawReason = .noActiveSPS
            }
        case .decRefPicMarkingRepetition:
            if let timing = context.activeSEITimingInfo {
                payload = .decRefPicMarkingRepetition(SEIDecRefPicMarkingRepetition(frameMBsOnly: timing.frameMBsOnly))
            } else {
                payload = .raw(type: type, bytes: [])
                rawReason = .noActiveSPS
            }
        case .panScanRect: payload = .panScanRect(SEIPanScanRect())
        case .fillerPayload: payload = .fillerPayload(SEIFillerPayload())
        case .userDataRegistered: payload = .userDataRegistered(SEIUserDataRegistered())
        case .userDataUnregistered: payload = .userDataUnregistered(SEIUserDataUnregistered(uuid: [], payload: []))
        case .recoveryPoint: payload = .recoveryPoint(SEIRecoveryPoint())
        case .framePackingArrangement: payload = .framePackingArrangement(SEIFramePackingArrangement())
        case .displayOrientation: payload = .displayOrientation(SEIDisplayOrientation())
        case .masteringDisplayColourVolume: payload = .masteringDisplayColourVolume(SEIMasteringDisplayColourVolume())
        case .contentLightLevelInfo: payload = .contentLightLevelInfo(SEIContentLightLevelInfo())
        case .alternativeTransferCharacteristics: payload = .alternativeTransferCharacteristics(SEIAlternativeTransferCharacteristics())
        default:
            payload = .raw(type: type, bytes: [])
            rawReason = .unknownType
        }
    }

    private mutating func write<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        guard c.bitPosition & 7 == 0 else { throw H264Error.invalid(.invalidArgument, "an SEI message must start byte aligned") }
        let size = try payloadBytes().count
        _ = try Self.codeFFRun(&c, payloadType.rawValue, "last_payload_type_byte")
        _ = try Self.codeFFRun(&c, size, "last_payload_size_byte")
        try codeBody(&c)
    }

    /// The payload as the message carries it: the `payloadSize` bytes after `payloadType` and
    /// `payloadSize`, the payload's trailer (alignment bits) included. What an encoder's
    /// "extra SEI" interface (x264's `extra_sei`) takes.
    /// - Throws: the payload's writing errors (a value out of its range).
    public func payloadBytes() throws(H264Error) -> [UInt8] {
        var scratch = SyntaxWriter()
        var body = self
        try body.codeBody(&scratch)  // ends byte aligned
        return scratch.writer.bytes
    }

    /// Writes the payload and, for a parsed payload, its trailer (always when the payload does
    /// not end on a byte boundary).
    private mutating func codeBody<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        let start = c.bitPosition
        try payload.code(&c, payloadSize: 0)
        if payload.isRaw { return }
        if trailer != nil || (c.bitPosition &- start) & 7 != 0 {
            var t = trailer ?? SEIPayloadTrailer()
            try t.code(&c, limit: 0)
        }
    }

    /// `0xFF` bytes (`ff_byte`) while the value is at least 255, then the last byte.
    /// Reading returns the sum; writing codes `value`.
    private static func codeFFRun<C: SyntaxCoder>(_ c: inout C, _ value: Int, _ lastName: SyntaxName) throws(H264Error) -> Int {
        if c.isReading {
            var sum = 0
            while try c.peekBits(8) == 0xFF {
                var ff: UInt8 = 0xFF
                try c.u(8, &ff, "ff_byte")
                sum &+= 255  // one per input byte: at most 255 * (input size), no overflow
            }
            var last: UInt8 = 0
            try c.u(8, &last, lastName)
            return sum &+ Int(last)
        }
        guard value >= 0 else { throw .outOfRange("\(lastName) total", Int64(value)) }
        var rest = value
        while rest >= 255 {
            var ff: UInt8 = 0xFF
            try c.u(8, &ff, "ff_byte")
            rest &-= 255
        }
        var last = UInt8(rest)  // < 255
        try c.u(8, &last, lastName)
        return value
    }
}
