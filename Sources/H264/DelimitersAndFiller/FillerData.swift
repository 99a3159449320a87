/// Filler data: `filler_data_rbsp()` (7.3.2.7, nal_unit_type 12): `0xFF` bytes then
/// `rbsp_trailing_bits()`.
public struct FillerData: SyntaxStructure, Hashable {
    /// The number of `ff_byte`s.
    public var size: Int = 0

    /// Creates filler of `size` bytes.
    public init(size: Int) { self.size = size }

    /// Creates empty filler.
    public init() {}

    /// Parses filler data from its RBSP.
    public init(rbsp: ArraySlice<UInt8>) throws(H264Error) {
        try self.init(rbsp: rbsp, context: .empty)
    }

    /// The syntax of 7.3.2.7. Filler depends on no parameter set: `context` is not used.
    /// - Complexity: O(size); reading stops at the first byte that is not `0xFF`.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {
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
