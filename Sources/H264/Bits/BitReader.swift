/// Reads the bit-level syntax elements of ITU-T H.264 clause 7.2 from an RBSP.
///
/// The reader works on the raw byte sequence payload: emulation-prevention bytes must have been
/// removed first (see ``EmulationPrevention``). It never traps on short input: reading past the
/// end throws ``H264Error/Code/truncated``.
///
/// Bit positions count from the first bit of `bytes`, most significant bit first.
public struct BitReader: Sendable {
    /// The bytes read, as given.
    public let bytes: ArraySlice<UInt8>
    /// Number of bits in `bytes`.
    public let bitCount: Int
    /// Position of the next bit to read, counted from the first bit of `bytes`.
    @inlinable public var bitPosition: Int { position }
    @usableFromInline var position: Int = 0

    /// Creates a reader positioned at the first bit of `bytes`.
    @inlinable
    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.bitCount = bytes.count &* 8  // an array's count times 8 cannot overflow Int on 64-bit
    }

    /// Creates a reader over a whole array.
    @inlinable
    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// Bits left before the end of the buffer.
    @inlinable public var bitsRemaining: Int { bitCount &- bitPosition }  // position never exceeds count

    /// True when the next bit starts a byte.
    @inlinable public var byteAligned: Bool { bitPosition & 7 == 0 }

    /// Looks at the next `count` bits (0...64) without consuming them. Bits past the end read as 0.
    @inlinable @inline(__always)
    public func peekBits(_ count: Int) -> UInt64 {
        // Fast path: one unaligned 8-byte load covers up to 57 bits from any bit offset.
        let first = bitPosition >> 3
        if count > 0 && count <= 57 && first <= bytes.count &- 8 {
            let word = bytes.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: first, as: UInt64.self)) }
            return (word << UInt64(bitPosition & 7)) >> UInt64(64 &- count)  // 1 <= count <= 57
        }
        return peekBitsSlowly(count)
    }

    /// ``peekBits(_:)`` near the end of the buffer or for more than 57 bits.
    @usableFromInline @inline(never)
    func peekBitsSlowly(_ count: Int) -> UInt64 {
        precondition(count >= 0 && count <= 64, "peekBits takes 0 to 64 bits")
        if count == 0 { return 0 }
        var byteIndex = bitPosition >> 3
        let offsetInByte = bitPosition & 7
        let base = bytes.startIndex
        let total = bytes.count
        // Fast path: eight whole bytes in the buffer hold the bits (count + offset <= 64).
        if byteIndex <= total &- 8, count <= 64 &- offsetInByte {  // total >= 0, so total - 8 cannot overflow
            let word = bytes.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: byteIndex, as: UInt64.self)) }
            return (word << UInt64(offsetInByte)) >> UInt64(64 &- count)  // 1 <= count <= 64
        }
        var result: UInt64 = 0
        var have = 0
        // First (partial) byte.
        if byteIndex < total {
            let b = UInt64(bytes[base &+ byteIndex]) & (0xFF >> UInt64(offsetInByte))
            result = b
            have = 8 &- offsetInByte
            byteIndex &+= 1
        }
        while have < count {
            let b: UInt64 = byteIndex < total ? UInt64(bytes[base &+ byteIndex]) : 0
            if have > 56 {
                // Only part of this byte fits into 64 bits.
                let take = count &- have
                result = (result << UInt64(take)) | (b >> UInt64(8 &- take))
                return result
            }
            result = (result << 8) | b
            have &+= 8  // have <= 56 here, so at most 64
            byteIndex &+= 1
        }
        if have == 0 { return 0 }
        return result >> UInt64(have &- count)
            & (count == 64 ? UInt64.max : (UInt64(1) << UInt64(count)) &- 1)
    }

    /// Reads `count` bits (0...64) as an unsigned integer: the spec's `u(n)` / `f(n)`.
    /// - Throws: ``H264Error/Code/truncated`` when fewer than `count` bits remain.
    @inlinable
    public mutating func readBits(_ count: Int) throws(H264Error) -> UInt64 {
        guard count <= bitsRemaining else { throw .truncated("needed \(count) bits at bit \(bitPosition), \(bitsRemaining) left") }
        let v = peekBits(count)
        position &+= count  // count <= bitsRemaining
        return v
    }

    /// Reads one bit as a flag: the spec's `u(1)` for flags.
    @inlinable
    public mutating func readFlag() throws(H264Error) -> Bool {
        guard bitPosition < bitCount else { throw .truncated("needed 1 bit at bit \(bitPosition)") }
        let byte = bytes[bytes.startIndex &+ (bitPosition >> 3)]
        let bit = (byte >> UInt8(7 &- (bitPosition & 7))) & 1
        position &+= 1  // < bitCount
        return bit == 1
    }

    /// Reads `count` whole bytes (`count` × `u(8)`); at a byte-aligned position they are copied
    /// in one step.
    /// - Throws: ``H264Error/Code/truncated`` when fewer than `count` bytes remain.
    /// - Complexity: O(count).
    public mutating func readBytes(_ count: Int) throws(H264Error) -> [UInt8] {
        guard count >= 0, count <= bitsRemaining >> 3 else {
            throw .truncated("needed \(count) bytes at bit \(bitPosition), \(bitsRemaining) bits left")
        }
        if byteAligned {
            let start = bytes.startIndex &+ (position >> 3)
            position &+= count << 3  // count * 8 <= bitsRemaining
            return Array(bytes[start..<(start &+ count)])
        }
        var out = [UInt8]()
        out.reserveCapacity(count)
        for _ in 0..<count { out.append(UInt8(truncatingIfNeeded: peekBits(8))); position &+= 8 }
        return out
    }

    /// Skips `count` bits.
    @inlinable
    public mutating func skipBits(_ count: Int) throws(H264Error) {
        guard count >= 0, count <= bitsRemaining else { throw .truncated("cannot skip \(count) bits at bit \(bitPosition)") }
        position &+= count
    }

    /// Reads an unsigned Exp-Golomb code: the spec's `ue(v)` (9.1).
    ///
    /// At most 31 leading zero bits are accepted (values up to 2^32 - 2); more is
    /// ``H264Error/Code/invalidExpGolomb``.
    @inlinable
    public mutating func readUE() throws(H264Error) -> UInt32 {
        // Fast path: codes with at most 28 leading zeros fit one 57-bit look.
        let wide = peekBits(57)
        if wide >> 28 != 0 {
            let length = (wide.leadingZeroBitCount &- 7) &* 2 &+ 1  // zeros <= 28: length <= 57
            guard length <= bitsRemaining else { throw .truncated("ue(v) at bit \(bitPosition) runs past the end") }
            position &+= length
            return UInt32(truncatingIfNeeded: (wide >> UInt64(57 &- length)) &- 1)  // the code is >= 1
        }
        let window = peekBits(32)
        if window != 0 {
            let zeros = window.leadingZeroBitCount &- 32  // 0...31
            let length = zeros &* 2 &+ 1
            guard length <= bitsRemaining else { throw .truncated("ue(v) at bit \(bitPosition) runs past the end") }
            let v = peekBits(length)
            position &+= length
            return UInt32(truncatingIfNeeded: v &- 1)  // v >= 1 and < 2^32... (v - 1) <= 2^32 - 2
        }
        if bitsRemaining < 32 { throw .truncated("ue(v) at bit \(bitPosition) runs past the end") }
        throw H264Error.invalid(.invalidExpGolomb, "ue(v) at bit \(bitPosition) has more than 31 leading zero bits")
    }

    /// Reads a signed Exp-Golomb code: the spec's `se(v)` (9.1.1).
    @inlinable
    public mutating func readSE() throws(H264Error) -> Int32 {
        let k = try readUE()
        // k <= 2^32 - 2, so (k + 1) / 2 <= 2^31 - 1 fits Int32.
        let magnitude = Int32(truncatingIfNeeded: (UInt64(k) &+ 1) >> 1)
        return k & 1 == 1 ? magnitude : 0 &- magnitude
    }

    /// The spec's `more_rbsp_data()` (7.2): true while there are bits before the
    /// `rbsp_stop_one_bit`, the last 1 bit of the buffer once trailing zero bytes are ignored.
    @inlinable
    public var moreRBSPData: Bool {
        guard let stop = rbspStopBitPosition else { return false }
        return bitPosition < stop
    }

    /// The bit position of the `rbsp_stop_one_bit`: the last set bit in the buffer, or nil when
    /// every bit is zero.
    @inlinable
    public var rbspStopBitPosition: Int? {
        var i = bytes.endIndex
        while i > bytes.startIndex {
            i &-= 1
            let b = bytes[i]
            if b != 0 {
                return (i &- bytes.startIndex) &* 8 &+ 7 &- b.trailingZeroBitCount
            }
        }
        return nil
    }

    /// Reads `rbsp_trailing_bits()`: a 1 bit then zero bits up to the byte boundary.
    /// - Throws: ``H264Error/Code/invalidTrailingBits`` when the bits are not of that form.
    @inlinable
    public mutating func readTrailingBits() throws(H264Error) {
        guard try readFlag() else {
            throw H264Error.invalid(.invalidTrailingBits, "rbsp_stop_one_bit is 0 at bit \(bitPosition &- 1)")
        }
        while !byteAligned {
            if try readFlag() {
                throw H264Error.invalid(.invalidTrailingBits, "rbsp_alignment_zero_bit is 1 at bit \(bitPosition &- 1)")
            }
        }
    }

    /// Moves to a bit position previously read from ``bitPosition``.
    @inlinable
    public mutating func seek(toBit position: Int) throws(H264Error) {
        guard position >= 0, position <= bitCount else { throw .truncated("seek to bit \(position) of \(bitCount)") }
        self.position = position
    }
}
