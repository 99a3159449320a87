/// The NAL unit types of the RTP payload format for H.264 (RFC 6184 section 5.2, Table 1)
/// beyond the 1...23 of H.264 itself.
public enum RTPPayloadStructure {
    /// Single-time aggregation packet without decoding order numbers.
    public static let stapA: UInt8 = 24
    /// Single-time aggregation packet with a decoding order number (interleaved mode).
    public static let stapB: UInt8 = 25
    /// Multi-time aggregation packet with 16-bit timestamp offsets.
    public static let mtap16: UInt8 = 26
    /// Multi-time aggregation packet with 24-bit timestamp offsets.
    public static let mtap24: UInt8 = 27
    /// Fragmentation unit without a decoding order number.
    public static let fuA: UInt8 = 28
    /// Fragmentation unit with a decoding order number (interleaved mode).
    public static let fuB: UInt8 = 29
}
