/// End of sequence (7.3.2.5, nal_unit_type 10): a NAL unit whose RBSP is empty. Only its NAL
/// unit header is coded.
public struct EndOfSequence: SyntaxStructure, Hashable {
    /// Creates the marker.
    public init() {}
    /// The (empty) syntax of 7.3.2.5.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {}
}
