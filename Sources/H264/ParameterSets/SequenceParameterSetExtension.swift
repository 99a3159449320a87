/// A sequence parameter set extension: `seq_parameter_set_extension_rbsp()` (7.3.2.1.2,
/// nal_unit_type 13), describing auxiliary (alpha) pictures.
public struct SequenceParameterSetExtension: SyntaxStructure, Hashable {
    /// `seq_parameter_set_id` (0...31).
    public var spsID: UInt8 = 0
    /// `aux_format_idc` (0...3; 0 means no auxiliary pictures).
    public var auxFormatIDC: UInt8 = 0
    /// `bit_depth_aux_minus8` (0...4).
    public var bitDepthAuxMinus8: UInt8 = 0
    /// `alpha_incr_flag`.
    public var alphaIncrFlag = false
    /// `alpha_opaque_value` (`bit_depth_aux_minus8 + 9` bits).
    public var alphaOpaqueValue: UInt16 = 0
    /// `alpha_transparent_value` (`bit_depth_aux_minus8 + 9` bits).
    public var alphaTransparentValue: UInt16 = 0
    /// `additional_extension_flag`.
    public var additionalExtensionFlag = false
    /// Bytes after `rbsp_trailing_bits()`.
    public var trailingData: [UInt8] = []

    /// Creates an extension with no auxiliary pictures.
    public init() {}

    /// Parses the extension from its RBSP.
    public init(rbsp: ArraySlice<UInt8>) throws(H264Error) {
        try self.init(rbsp: rbsp, context: .empty)
    }

    /// The syntax of 7.3.2.1.2. The extension depends on no parameter set: `context` is not used.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {
        try c.ue(&spsID, "seq_parameter_set_id", 0...31)
        try c.ue(&auxFormatIDC, "aux_format_idc", 0...3)
        if auxFormatIDC != 0 {
            try c.ue(&bitDepthAuxMinus8, "bit_depth_aux_minus8", 0...4)
            try c.flag(&alphaIncrFlag, "alpha_incr_flag")
            let bits = Int(bitDepthAuxMinus8) &+ 9  // 9...13
            try c.u(bits, &alphaOpaqueValue, "alpha_opaque_value")
            try c.u(bits, &alphaTransparentValue, "alpha_transparent_value")
        }
        try c.flag(&additionalExtensionFlag, "additional_extension_flag")
        try c.trailingBits()
        try c.trailingData(&trailingData)
    }
}
