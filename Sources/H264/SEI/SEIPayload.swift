/// The payload of one SEI message (ITU-T H.264 D.1), parsed when its type is one the library
/// knows and the facts it needs are at hand, otherwise kept as bytes.
public enum SEIPayload: Sendable, Hashable {
    /// Type 0.
    case bufferingPeriod(SEIBufferingPeriod)
    /// Type 1.
    case picTiming(SEIPicTiming)
    /// Type 2.
    case panScanRect(SEIPanScanRect)
    /// Type 3.
    case fillerPayload(SEIFillerPayload)
    /// Type 4.
    case userDataRegistered(SEIUserDataRegistered)
    /// Type 5.
    case userDataUnregistered(SEIUserDataUnregistered)
    /// Type 6.
    case recoveryPoint(SEIRecoveryPoint)
    /// Type 7.
    case decRefPicMarkingRepetition(SEIDecRefPicMarkingRepetition)
    /// Type 45.
    case framePackingArrangement(SEIFramePackingArrangement)
    /// Type 47.
    case displayOrientation(SEIDisplayOrientation)
    /// Type 137.
    case masteringDisplayColourVolume(SEIMasteringDisplayColourVolume)
    /// Type 144.
    case contentLightLevelInfo(SEIContentLightLevelInfo)
    /// Type 147.
    case alternativeTransferCharacteristics(SEIAlternativeTransferCharacteristics)
    /// Any payload kept as its `payloadSize` bytes, written back unchanged.
    case raw(type: SEIPayloadType, bytes: [UInt8])

    /// The message's `payloadType`.
    public var payloadType: SEIPayloadType {
        switch self {
        case .bufferingPeriod: return .bufferingPeriod
        case .picTiming: return .picTiming
        case .panScanRect: return .panScanRect
        case .fillerPayload: return .fillerPayload
        case .userDataRegistered: return .userDataRegistered
        case .userDataUnregistered: return .userDataUnregistered
        case .recoveryPoint: return .recoveryPoint
        case .decRefPicMarkingRepetition: return .decRefPicMarkingRepetition
        case .framePackingArrangement: return .framePackingArrangement
        case .displayOrientation: return .displayOrientation
        case .masteringDisplayColourVolume: return .masteringDisplayColourVolume
        case .contentLightLevelInfo: return .contentLightLevelInfo
        case .alternativeTransferCharacteristics: return .alternativeTransferCharacteristics
        case .raw(let type, _): return type
        }
    }

    /// True for ``raw(type:bytes:)``.
    public var isRaw: Bool {
        if case .raw = self { return true }
        return false
    }

    /// Reads, writes or traces the payload body (without the D.1 trailing bits, which
    /// ``SEIMessage`` handles). When reading, `self` must already be the right case (an empty
    /// value of it, with the SPS facts set); `payloadSize` is the message's size in bytes.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, payloadSize: Int) throws(H264Error) {
        switch self {
        case .bufferingPeriod(var p): try p.code(&c); self = .bufferingPeriod(p)
        case .picTiming(var p): try p.code(&c); self = .picTiming(p)
        case .panScanRect(var p): try p.code(&c); self = .panScanRect(p)
        case .fillerPayload(var p): try p.code(&c, payloadSize: payloadSize); self = .fillerPayload(p)
        case .userDataRegistered(var p): try p.code(&c, payloadSize: payloadSize); self = .userDataRegistered(p)
        case .userDataUnregistered(var p): try p.code(&c, payloadSize: payloadSize); self = .userDataUnregistered(p)
        case .recoveryPoint(var p): try p.code(&c); self = .recoveryPoint(p)
        case .decRefPicMarkingRepetition(var p): try p.code(&c); self = .decRefPicMarkingRepetition(p)
        case .framePackingArrangement(var p): try p.code(&c); self = .framePackingArrangement(p)
        case .displayOrientation(var p): try p.code(&c); self = .displayOrientation(p)
        case .masteringDisplayColourVolume(var p): try p.code(&c); self = .masteringDisplayColourVolume(p)
        case .contentLightLevelInfo(var p): try p.code(&c); self = .contentLightLevelInfo(p)
        case .alternativeTransferCharacteristics(var p): try p.code(&c); self = .alternativeTransferCharacteristics(p)
        case .raw(let type, var bytes):
            try c.byteElements(&bytes, count: c.isReading ? payloadSize : bytes.count) { SyntaxName("payload_byte", $0) }
            self = .raw(type: type, bytes: bytes)
        }
    }
}
