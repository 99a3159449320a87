/// An RFC 6184 violation that a lenient ``RTPDepacketizer`` accepts (see
/// ``RTPDepacketizer/Options/lenient``) and reports as an
/// ``RTPDepacketizerEvent/tolerated(_:sequenceNumber:)`` event. A strict depacketiser rejects
/// the packet with the error named in each case.
public enum RTPTolerance: Hashable, Sendable, CaseIterable {
    /// An FU-A with both the start and the end bit set (RFC 6184 5.8 forbids it: a NAL unit
    /// that fits one packet goes unfragmented), sent by some cameras. Taken as a whole NAL unit.
    /// Strict: ``RTPError/Code/invalidPacket``.
    case fragmentStartAndEnd
    /// The forbidden bit (F) set in a payload header or in a NAL unit header inside a STAP-A:
    /// RFC 6184 5.3 lets a network element flag a NAL unit that may hold bit errors this way.
    /// The NAL unit is delivered with the bit cleared (decoders refuse it set).
    /// Strict: ``RTPError/Code/invalidPacket``.
    case forbiddenBit
    /// The reserved bit (R) of an FU header set. RFC 6184 5.8 says receivers ignore it, and the
    /// lenient depacketiser does. Strict: ``RTPError/Code/invalidPacket``.
    case reservedBit
    /// A STAP-A or FU-A although the SDP said `packetization-mode=0`, in which only single NAL
    /// unit packets are allowed (cameras that advertise mode 0 and fragment anyway). Unpacked as
    /// in mode 1. Strict: ``RTPError/Code/unsupported``.
    case packetizationModeMismatch

    /// A bit of the depacketiser's per-packet set.
    var bit: UInt8 {
        switch self {
        case .fragmentStartAndEnd: 1
        case .forbiddenBit: 2
        case .reservedBit: 4
        case .packetizationModeMismatch: 8
        }
    }
}
