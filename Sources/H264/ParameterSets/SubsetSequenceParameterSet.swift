/// A subset sequence parameter set: `subset_seq_parameter_set_rbsp()` (7.3.2.1.3,
/// nal_unit_type 15), used by SVC (Annex G), MVC (Annex H) and 3D-AVC.
///
/// The `seq_parameter_set_data()` part is parsed as for an SPS. Parsing stops there, a
/// documented limit: the profile-specific extension that follows (SVC, MVC, MVCD VUI ...) is
/// kept as raw bits, ``extensionHeadBits`` up to the next byte boundary and then
/// ``extensionBytes``, and written back unchanged. Editing the SPS part so that its length in
/// bits changes makes that raw tail meaningless; the writer does not re-align it.
public struct SubsetSequenceParameterSet: SyntaxStructure, Hashable {
    /// The `seq_parameter_set_data()` part (its `trailingData` is unused).
    public var sps = SequenceParameterSet()
    /// The bits between the end of the SPS data and the next byte boundary (0...7 bits).
    public var extensionHeadBits: UInt8 = 0
    /// How many bits ``extensionHeadBits`` holds.
    public var extensionHeadBitCount = 0
    /// The rest of the RBSP, from the byte boundary to the end (stop bit included).
    public var extensionBytes: [UInt8] = []

    /// Creates an empty subset SPS.
    public init() {}

    /// Parses a subset SPS from its RBSP.
    public init(rbsp: ArraySlice<UInt8>) throws(H264Error) {
        try self.init(rbsp: rbsp, context: .empty)
    }

    /// `seq_parameter_set_data()`, then the rest kept raw (`subset_sps_extension_bits`). A subset
    /// SPS depends on no other parameter set: `context` is not used.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {
        try sps.codeData(&c)
        let head = (8 &- (c.bitPosition & 7)) & 7
        if c.isReading { extensionHeadBitCount = head }
        guard extensionHeadBitCount == head else {
            throw H264Error.invalid(.unsupported, "subset SPS data changed length; its raw extension cannot be re-aligned")
        }
        if head > 0 { try c.u(head, &extensionHeadBits, "subset_sps_extension_bits") }
        try c.trailingData(&extensionBytes)
    }
}
