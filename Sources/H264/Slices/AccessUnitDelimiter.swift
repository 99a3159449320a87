/// An access unit delimiter: `access_unit_delimiter_rbsp()` (7.3.2.4, nal_unit_type 9).
public struct AccessUnitDelimiter: Sendable, Hashable {
    /// `primary_pic_type` (0...7, Table 7-5): which slice types the primary picture may hold.
    public var primaryPicType: UInt8 = 7

    /// Creates a delimiter (7: any slice type).
    public init(primaryPicType: UInt8 = 7) { self.primaryPicType = primaryPicType }

    /// Parses a delimiter from its RBSP.
    public init(rbsp: ArraySlice<UInt8>) throws(H264Error) {
        var r = SyntaxReader(rbsp)
        try code(&r)
    }

    /// The syntax of 7.3.2.4.
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.u(3, &primaryPicType, "primary_pic_type")
        try c.trailingBits()
    }
}
