/// The NAL unit header (7.3.1) as a syntax structure: `forbidden_zero_bit`, `nal_ref_idc`,
/// `nal_unit_type`, and for types 14, 20 and 21 the three-byte extension (G.7.3.1.1,
/// H.7.3.1.1, J.7.3.1.1).
///
/// ``NALUnit`` reads these fields straight from the first byte; this structure exists so that
/// traces and writers go through the same one description as every other structure.
public struct NALUnitHeader: SyntaxStructure, Hashable {
    /// `forbidden_zero_bit` (always 0 in a valid stream).
    public var forbiddenZeroBit: UInt8 = 0
    /// `nal_ref_idc` (0...3).
    public var nalRefIdc: UInt8 = 0
    /// `nal_unit_type`.
    public var nalUnitType = NALUnitType.unspecified
    /// `svc_extension_flag` (types 14 and 20) or `avc_3d_extension_flag` (type 21).
    public var extensionFlag = false
    /// The remaining 23 bits of the header extension, kept as coded.
    public var extensionBits: UInt32 = 0

    /// Creates a header.
    public init(nalRefIdc: UInt8 = 0, nalUnitType: NALUnitType = .unspecified) {
        self.nalRefIdc = nalRefIdc
        self.nalUnitType = nalUnitType
    }

    /// Creates an empty header (type 0).
    public init() {}

    /// The header of `nal`, taken from its first bytes (a ``NALUnit`` has checked them).
    @inlinable
    public init(_ nal: borrowing NALUnit) {
        let first = nal.headerByte
        forbiddenZeroBit = first >> 7
        nalRefIdc = (first >> 5) & 3
        nalUnitType = NALUnitType(rawValue: first)
        guard nalUnitType.hasHeaderExtension else { return }
        // A NAL unit of these types has its four header bytes (its initialiser checks).
        let s = nal.bytes.startIndex
        let bits = UInt32(nal.bytes[s &+ 1]) << 16 | UInt32(nal.bytes[s &+ 2]) << 8 | UInt32(nal.bytes[s &+ 3])
        extensionFlag = bits >> 23 != 0
        extensionBits = bits & 0x7F_FFFF
    }

    /// True when the type carries the three-byte extension.
    @inlinable public var hasExtension: Bool { nalUnitType.hasHeaderExtension }

    /// `IdrPicFlag`: type 5, or type 20 in its MVC form (`svc_extension_flag` 0) with
    /// `non_idr_flag` 0.
    @inlinable public var idrPicFlag: Bool {
        nalUnitType == .idrSlice || (nalUnitType == .sliceExtension && !extensionFlag && extensionBits >> 22 == 0)
    }

    /// The header in the order of 7.3.1. For the MVC form of the extension
    /// (`svc_extension_flag` 0) the fields of H.7.3.1.1 are named one by one; the SVC and
    /// 3D-AVC forms are kept as `nal_unit_header_extension_bits`. The header depends on no
    /// parameter set: `context` is not used.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {
        try c.u(1, &forbiddenZeroBit, "forbidden_zero_bit", 0...0)
        try c.u(2, &nalRefIdc, "nal_ref_idc")
        try c.u(5, &nalUnitType, "nal_unit_type")
        guard hasExtension else { return }
        try c.flag(&extensionFlag, nalUnitType == .sliceExtensionDepth ? "avc_3d_extension_flag" : "svc_extension_flag")
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
