import H264

/// One place where a stream breaks a rule of a ``DeliveryProfile``.
public struct DeliveryViolation: Hashable, Sendable, CustomStringConvertible {
    /// The rule broken.
    public var rule: DeliveryRule
    /// The access unit's index in decoding order, from 0.
    public var accessUnit: Int
    /// What is wrong here, one line.
    public var message: String
    /// The access unit's byte offset in the input (its first start code), when known: Annex-B
    /// input read by the checker, or access units that carry `AccessUnit.byteOffset`.
    public var byteOffset: Int?

    /// Creates a violation.
    public init(rule: DeliveryRule, accessUnit: Int, message: String, byteOffset: Int? = nil) {
        self.rule = rule
        self.accessUnit = accessUnit
        self.message = message
        self.byteOffset = byteOffset
    }

    /// `access unit N: rule-id: message`.
    public var description: String { "access unit \(accessUnit): \(rule.id): \(message)" }
}

/// What a container says of one access unit, for the rules a bare H.264 stream cannot show
/// (``DeliveryRule/needsContainerFacts``): an FLV tag's keyframe flag, the sequence header sent
/// before it.
public struct DeliveryContainerFacts: Hashable, Sendable {
    /// The container's keyframe flag (FLV `FrameType` 1), nil when it has none.
    public var keyframeFlag: Bool?
    /// The parameter sets of a decoder configuration record (FLV sequence header, avcC) sent
    /// right before this access unit, nil when none was.
    public var decoderConfiguration: [H264.NALUnit]?

    /// Creates container facts.
    public init(keyframeFlag: Bool? = nil, decoderConfiguration: [H264.NALUnit]? = nil) {
        self.keyframeFlag = keyframeFlag
        self.decoderConfiguration = decoderConfiguration
    }
}
