/// Filler data: `filler_data_rbsp()` (7.3.2.7, nal_unit_type 12): `0xFF` bytes then
/// `rbsp_trailing_bits()`.
public struct FillerData: Sendable, Hashable {
    /// The number of `ff_byte`s.
    public var size: Int = 0

    /// Creates filler of `size` bytes.
    public init(size: Int = 0) { self.size = size }

    /// Parses filler data from its RBSP.
    public init(rbsp: ArraySlice<UInt8>) throws(H264Error) {
        var r = SyntaxReader(rbsp)
        try code(&r)
    }

    /// The syntax of 7.3.2.7.
    /// - Complexity: O(size); reading stops at the first byte that is not `0xFF`.
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        if c.isReading {
            var n = 0
            while !c.isAtEnd, try c.peekBits(8) == 0xFF {
                try c.fixed(8, 0xFF, "ff_byte")
                n &+= 1  // bounded by the input size
            }
            size = n
        } else {
            guard size >= 0 else { throw .outOfRange("filler size", Int64(size)) }
            for _ in 0..<size { try c.fixed(8, 0xFF, "ff_byte") }
        }
        try c.trailingBits()
    }
}
