/// The few leading fields of a sequence parameter set that framing code needs: the avcC record
/// (profile, constraint flags, level, chroma format, bit depths) and little else.
///
/// TEMPORARY: to be replaced by the full `SequenceParameterSet` parser once it is merged. This is
/// the only place outside that parser that reads SPS fields; it reads 7.3.2.1.1 up to
/// `bit_depth_chroma_minus8` and stops.
struct SPSEssentials: Hashable, Sendable {
    /// `profile_idc`.
    var profileIDC: UInt8
    /// The byte of `constraint_set0_flag` ... `constraint_set5_flag` and `reserved_zero_2bits`.
    var constraintFlags: UInt8
    /// `level_idc`.
    var levelIDC: UInt8
    /// `seq_parameter_set_id`.
    var id: UInt32
    /// `chroma_format_idc` (1 when absent).
    var chromaFormatIDC: UInt32 = 1
    /// `bit_depth_luma_minus8` (0 when absent).
    var bitDepthLumaMinus8: UInt32 = 0
    /// `bit_depth_chroma_minus8` (0 when absent).
    var bitDepthChromaMinus8: UInt32 = 0

    /// The profiles whose SPS carries `chroma_format_idc` and the bit depths (7.3.2.1.1).
    static func hasChromaInfo(_ profileIDC: UInt8) -> Bool {
        switch profileIDC {
        case 100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135: return true
        default: return false
        }
    }

    /// Reads the fields from an SPS NAL unit (type 7, or 15 for a subset SPS).
    /// - Throws: ``H264Error/Code/truncated`` or ``H264Error/Code/invalidExpGolomb`` for a cut
    ///   or malformed SPS, ``H264Error/Code/valueOutOfRange`` for values outside Table 7.3.2.1.1's
    ///   ranges.
    init(_ sps: NALUnit) throws(H264Error) {
        var r = BitReader(sps.rbsp)
        profileIDC = UInt8(truncatingIfNeeded: try r.readBits(8))
        constraintFlags = UInt8(truncatingIfNeeded: try r.readBits(8))
        levelIDC = UInt8(truncatingIfNeeded: try r.readBits(8))
        id = try r.readUE()
        guard id <= 31 else { throw .outOfRange("seq_parameter_set_id", Int64(id)) }
        guard Self.hasChromaInfo(profileIDC) else { return }
        chromaFormatIDC = try r.readUE()
        guard chromaFormatIDC <= 3 else { throw .outOfRange("chroma_format_idc", Int64(chromaFormatIDC)) }
        if chromaFormatIDC == 3 { _ = try r.readFlag() }  // separate_colour_plane_flag
        bitDepthLumaMinus8 = try r.readUE()
        guard bitDepthLumaMinus8 <= 6 else { throw .outOfRange("bit_depth_luma_minus8", Int64(bitDepthLumaMinus8)) }
        bitDepthChromaMinus8 = try r.readUE()
        guard bitDepthChromaMinus8 <= 6 else { throw .outOfRange("bit_depth_chroma_minus8", Int64(bitDepthChromaMinus8)) }
    }
}
