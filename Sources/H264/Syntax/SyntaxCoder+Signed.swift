extension SyntaxCoder {
    /// `i(n)` over ``u(_:_:_:)``: reads `bits` bits and sign-extends them, or writes `value`'s
    /// low `bits` bits after checking that it fits.
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for `bits` outside 1...32 or a value that
    ///   does not fit (writing); reading errors of the coder.
    public mutating func i<T: FixedWidthInteger & SignedInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error) {
        guard (1...32).contains(bits) else { throw .outOfRange("\(name) length", Int64(bits)) }
        let half = Int64(1) << Int64(bits &- 1)  // bits <= 32
        var raw: UInt32 = 0
        if !isReading {
            let v = Int64(truncatingIfNeeded: value)
            guard v >= -half, v < half else { throw .outOfRange("\(name)", v) }
            raw = UInt32(truncatingIfNeeded: v) & UInt32(truncatingIfNeeded: (half << 1) &- 1)
        }
        try u(bits, &raw, name)
        if isReading { value = T(truncatingIfNeeded: SyntaxSigned.extend(raw, bits: bits)) }
    }
}

/// Two's-complement helpers for `i(n)`.
enum SyntaxSigned {
    /// Sign-extends the low `bits` (1...32) bits of `raw`.
    static func extend(_ raw: UInt32, bits: Int) -> Int64 {
        let shift = UInt32(32 &- bits)  // bits in 1...32
        return Int64(Int32(bitPattern: raw << shift) >> Int32(shift))
    }
}

extension SyntaxTracer {
    /// `i(n)`, recorded with its signed value (as FFmpeg prints `time_offset`).
    public mutating func i<T: FixedWidthInteger & SignedInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error) {
        let p = inner.bitPosition
        try inner.i(bits, &value, name)
        record(name, Int64(truncatingIfNeeded: value), at: p)
    }
}

extension BoundedSyntaxCoder {
    /// `i(n)`, bounded like the other elements.
    public mutating func i<T: FixedWidthInteger & SignedInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error) {
        guard !isReading || bits <= bitsRemaining else {
            throw .truncated("\(name): \(bits) bits wanted, \(bitsRemaining) left in the payload")
        }
        try inner.i(bits, &value, name)
    }
}
