/// What follows a parsed SEI payload inside its `payloadSize` bytes (D.1, 7.3.2.3.1):
/// `reserved_payload_extension_data` bits, then `bit_equal_to_one` and `bit_equal_to_zero`
/// bits up to the byte boundary.
///
/// Read as FFmpeg reads it: the last set bit of the payload's last byte (or of its last bits,
/// when fewer than 8 remain) is `bit_equal_to_one`; the bits between the end of the parsed
/// syntax and it are extension data. A payload whose last byte is zero is invalid.
public struct SEIPayloadTrailer: Sendable, Hashable {
    /// `reserved_payload_extension_data`, 8 bits a byte; the last byte holds the remaining
    /// `extensionBitCount % 8` bits (right-aligned) when that is not 0.
    public var extensionData: [UInt8]
    /// Number of extension bits.
    public var extensionBitCount: Int

    /// Creates a trailer; the default has no extension data (just the alignment bits).
    public init(extensionData: [UInt8] = [], extensionBitCount: Int = 0) {
        self.extensionData = extensionData
        self.extensionBitCount = extensionBitCount
    }

    /// Reads, writes or traces the trailer. When reading, `limit` is the bit position where the
    /// payload ends (the coder must be before it).
    /// - Throws: ``H264Error/Code/invalidBitstream`` when the payload's last bits hold no 1 bit
    ///   or the alignment bits are wrong.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, limit: Int) throws(H264Error) {
        if c.isReading {
            let left = limit &- c.bitPosition  // the caller checked bitPosition < limit
            let n = Swift.min(left, 8)
            let last = try c.peekBits(n, skipping: left &- n)
            guard last != 0 else {
                throw H264Error.invalid(.invalidBitstream, "SEI payload ends without bit_equal_to_one")
            }
            extensionBitCount = left &- 1 &- last.trailingZeroBitCount
            extensionData = []
            extensionData.reserveCapacity((extensionBitCount &+ 7) / 8)
        } else {
            guard extensionBitCount >= 0, extensionData.count == (extensionBitCount &+ 7) / 8 else {
                throw .outOfRange("reserved_payload_extension_data bit count", Int64(extensionBitCount))
            }
        }
        var remaining = extensionBitCount
        var i = 0
        while remaining > 0 {
            let n = Swift.min(remaining, 8)
            var chunk: UInt8 = c.isReading ? 0 : extensionData[i]
            try c.u(n, &chunk, "reserved_payload_extension_data")
            if c.isReading { extensionData.append(chunk) }
            remaining &-= n
            i &+= 1
        }
        var one: UInt8 = 1
        do { try c.u(1, &one, "bit_equal_to_one", 1...1) } catch where error.code == .valueOutOfRange {
            throw H264Error.invalid(.invalidBitstream, "bit_equal_to_one is 0")
        }
        while c.bitPosition & 7 != 0 {
            var zero: UInt8 = 0
            do { try c.u(1, &zero, "bit_equal_to_zero", 0...0) } catch where error.code == .valueOutOfRange {
                throw H264Error.invalid(.invalidBitstream, "bit_equal_to_zero is 1")
            }
        }
    }
}
