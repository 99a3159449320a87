/// An access unit delimiter: `access_unit_delimiter_rbsp()` (7.3.2.4, nal_unit_type 9).
public struct AccessUnitDelimiter: SyntaxStructure, Hashable {
    /// `primary_pic_type` (0...7, Table 7-5): which slice types the primary picture may hold.
    public var primaryPicType: PrimaryPicType = .any

    /// Creates a delimiter.
    public init(primaryPicType: PrimaryPicType) { self.primaryPicType = primaryPicType }

    /// Creates a delimiter that allows every slice type (`primary_pic_type` 7).
    public init() {}

    /// Parses a delimiter from its RBSP.
    public init(rbsp: ArraySlice<UInt8>) throws(H264Error) {
        try self.init(rbsp: rbsp, context: .empty)
    }

    /// The syntax of 7.3.2.4. A delimiter depends on no parameter set: `context` is not used.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {
        try c.u(3, &primaryPicType, "primary_pic_type")
        try c.trailingBits()
    }
}
