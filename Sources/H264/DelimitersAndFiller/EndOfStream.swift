/// End of stream (7.3.2.6, nal_unit_type 11): an empty RBSP.
public struct EndOfStream: SyntaxStructure, Hashable {
    /// Creates the marker.
    public init() {}
    /// The (empty) syntax of 7.3.2.6.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {}
}
