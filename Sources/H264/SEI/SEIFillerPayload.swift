/// `filler_payload( payloadSize )`, ITU-T H.264 D.1.5 (payload type 3): `payloadSize` bytes of
/// `0xFF`.
public struct SEIFillerPayload: Sendable, Hashable {
    /// Number of `ff_byte`s.
    public var count: Int

    /// Creates a filler payload of `count` bytes.
    public init(count: Int = 0) { self.count = count }

    /// Reads, writes or traces the payload; every byte must be `0xFF`.
    /// - Parameters:
    ///   - c: the coder that reads, writes or traces the payload.
    ///   - payloadSize: the message's size (reading).
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for a byte other than `0xFF`.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, payloadSize: Int) throws(H264Error) {
        if c.isReading { count = payloadSize }
        guard count >= 0 else { throw .outOfRange("filler payload size", Int64(count)) }
        for _ in 0..<count {
            var b: UInt8 = 0xFF
            try c.u(8, &b, "ff_byte", 0xFF...0xFF)
        }
    }
}
