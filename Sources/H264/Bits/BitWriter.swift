/// Writes the bit-level syntax elements of ITU-T H.264 clause 7.2 into an RBSP.
///
/// The mirror of ``BitReader``: `u(n)`, `ue(v)`, `se(v)`, flags and `rbsp_trailing_bits()`.
/// The result is an RBSP; apply ``EmulationPrevention/ebsp(from:)`` before framing it.
public struct BitWriter: Sendable {
    /// The bytes written so far; the last byte may be partial (its low bits are zero).
    public private(set) var bytes: [UInt8] = []
    /// Number of bits written.
    public private(set) var bitCount: Int = 0

    /// Creates an empty writer.
    public init() {}

    /// True when the next bit starts a byte.
    @inlinable public var byteAligned: Bool { bitCount & 7 == 0 }

    /// Appends the low `count` bits (0...64) of `value`, most significant first.
    public mutating func writeBits(_ value: UInt64, _ count: Int) {
        precondition(count >= 0 && count <= 64, "writeBits takes 0 to 64 bits")
        var remaining = count
        while remaining > 0 {
            let used = bitCount & 7
            if used == 0 { bytes.append(0) }
            let free = 8 &- used
            let take = Swift.min(free, remaining)
            let shifted = value >> UInt64(remaining &- take)
            let chunk = UInt8(truncatingIfNeeded: shifted) & UInt8(truncatingIfNeeded: (1 << take) &- 1)
            bytes[bytes.count &- 1] |= chunk << UInt8(free &- take)
            remaining &-= take
            bitCount &+= take
        }
    }

    /// Appends one bit.
    public mutating func writeFlag(_ flag: Bool) { writeBits(flag ? 1 : 0, 1) }

    /// Appends an unsigned Exp-Golomb code, `ue(v)`, for values up to 2^32 - 2.
    public mutating func writeUE(_ value: UInt32) {
        let v = UInt64(value) &+ 1  // <= 2^32 - 1 + 1: no overflow in UInt64
        let bits = 64 &- v.leadingZeroBitCount
        writeBits(0, bits &- 1)
        writeBits(v, bits)
    }

    /// Appends a signed Exp-Golomb code, `se(v)`.
    public mutating func writeSE(_ value: Int32) {
        let m = UInt32(value.magnitude)
        if value > 0 { writeUE(m &* 2 &- 1) }  // m <= 2^31 - 1: 2m - 1 fits UInt32
        else { writeUE(UInt32(truncatingIfNeeded: UInt64(m) &* 2)) }
    }

    /// Appends `rbsp_trailing_bits()`: a 1 bit, then zero bits to the byte boundary.
    public mutating func writeTrailingBits() {
        writeFlag(true)
        alignWithZeros()
    }

    /// Appends zero bits up to the next byte boundary.
    public mutating func alignWithZeros() {
        let pad = (8 &- (bitCount & 7)) & 7
        writeBits(0, pad)
    }

    /// Appends whole bytes; the writer must be byte aligned.
    public mutating func writeBytes<C: Collection>(_ other: C) where C.Element == UInt8 {
        precondition(byteAligned, "writeBytes needs a byte-aligned writer")
        bytes.append(contentsOf: other)
        bitCount &+= other.count &* 8
    }
}
