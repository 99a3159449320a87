import H264

/// One access unit to send: its NAL units in decoding order and its presentation time on the
/// 90 kHz RTP clock.
///
/// The NAL units are views into the caller's buffer (nothing is copied). The timestamp is the
/// caller's time line; the packetiser adds its random initial offset and wraps it to 32 bits.
public struct RTPAccessUnit: Sendable {
    /// The NAL units of the access unit, in decoding order.
    public var nalUnits: [NALUnit]
    /// Presentation time in 90 kHz units.
    public var timestamp90kHz: Int64

    /// Creates an access unit to packetise.
    @inlinable
    public init(nalUnits: [NALUnit], timestamp90kHz: Int64) {
        self.nalUnits = nalUnits
        self.timestamp90kHz = timestamp90kHz
    }
}
