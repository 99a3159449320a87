/// The NAL unit header (7.3.1) as a syntax structure: `forbidden_zero_bit`, `nal_ref_idc`,
/// `nal_unit_type`, and for types 14, 20 and 21 the three-byte extension (G.7.3.1.1,
/// H.7.3.1.1, J.7.3.1.1).
///
/// ``NALUnit`` reads these fields straight from the first byte; this structure exists so that
/// traces and writers go through the same one description as every other structure.
public struct NALUnitHeader: Sendable, Hashable {
    /// `forbidden_zero_bit` (always 0 in a valid stream).
    public var forbiddenZeroBit: UInt8 = 0
    /// `nal_ref_idc` (0...3).
    public var nalRefIdc: UInt8 = 0
    /// `nal_unit_type` (0...31).
    public var nalUnitType: UInt8 = 0
    /// `svc_extension_flag` (types 14 and 20) or `avc_3d_extension_flag` (type 21).
    public var extensionFlag = false
    /// The remaining 23 bits of the header extension, kept as coded.
    public var extensionBits: UInt32 = 0

    /// Creates a header.
    public init(nalRefIdc: UInt8 = 0, nalUnitType: UInt8 = 0) {
        self.nalRefIdc = nalRefIdc
        self.nalUnitType = nalUnitType
    }

    /// True when the type carries the three-byte extension.
    @inlinable public var hasExtension: Bool { nalUnitType == 14 || nalUnitType == 20 || nalUnitType == 21 }

    /// The header in the order of 7.3.1. For the MVC form of the extension
    /// (`svc_extension_flag` 0) the fields of H.7.3.1.1 are named one by one; the SVC and
    /// 3D-AVC forms are kept as `nal_unit_header_extension_bits`.
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.u(1, &forbiddenZeroBit, "forbidden_zero_bit", 0...0)
        try c.u(2, &nalRefIdc, "nal_ref_idc")
        try c.u(5, &nalUnitType, "nal_unit_type")
        guard hasExtension else { return }
        try c.flag(&extensionFlag, nalUnitType == 21 ? "avc_3d_extension_flag" : "svc_extension_flag")
        if extensionFlag {
            try c.u(23, &extensionBits, "nal_unit_header_extension_bits")
            return
        }
        // MVC (H.7.3.1.1): non_idr_flag u(1), priority_id u(6), view_id u(10), temporal_id u(3),
        // anchor_pic_flag u(1), inter_view_flag u(1), reserved_one_bit u(1).
        let fields: [(Int, StaticString)] = [(1, "non_idr_flag"), (6, "priority_id"), (10, "view_id"), (3, "temporal_id"),
                                             (1, "anchor_pic_flag"), (1, "inter_view_flag"), (1, "reserved_one_bit")]
        var shift = 23
        var out: UInt32 = 0
        for (bits, name) in fields {
            shift &-= bits  // the widths add up to 23
            var v = (extensionBits >> UInt32(shift)) & ((1 << UInt32(bits)) &- 1)
            try c.u(bits, &v, SyntaxName(name))
            out |= v << UInt32(shift)
        }
        extensionBits = out
    }
}
