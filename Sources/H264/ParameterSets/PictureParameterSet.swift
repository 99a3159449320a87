/// A picture parameter set: `pic_parameter_set_rbsp()` (7.3.2.2).
///
/// The fields after `redundant_pic_cnt_present_flag` are present only when
/// `more_rbsp_data()` (7.2) says so; ``hasExtendedFields`` records it. The syntax depends on
/// the SPS it names (`chroma_format_idc` for pic scaling lists, `bit_depth_luma_minus8` for the
/// range of `pic_init_qp_minus26`), looked up in the ``SyntaxContext``.
///
/// Bytes after `rbsp_trailing_bits()` are kept in ``trailingData`` for exact re-writing.
public struct PictureParameterSet: SyntaxStructure, Hashable {
    /// `pic_parameter_set_id` (0...255).
    public var id: UInt8 = 0
    /// `seq_parameter_set_id` (0...31).
    public var spsID: UInt8 = 0
    /// `entropy_coding_mode_flag` (CABAC when 1).
    public var entropyCodingModeFlag = false
    /// `bottom_field_pic_order_in_frame_present_flag`.
    public var bottomFieldPicOrderInFramePresentFlag = false
    /// `num_slice_groups_minus1` (0...7).
    public var numSliceGroupsMinus1: UInt8 = 0
    /// `slice_group_map_type` (0...6).
    public var sliceGroupMapType: UInt8 = 0
    /// `run_length_minus1[iGroup]` (map type 0).
    public var runLengthMinus1: [UInt32] = []
    /// `top_left[iGroup]` (map type 2).
    public var topLeft: [UInt32] = []
    /// `bottom_right[iGroup]` (map type 2).
    public var bottomRight: [UInt32] = []
    /// `slice_group_change_direction_flag` (map types 3-5).
    public var sliceGroupChangeDirectionFlag = false
    /// `slice_group_change_rate_minus1` (map types 3-5).
    public var sliceGroupChangeRateMinus1: UInt32 = 0
    /// `slice_group_id[i]` (map type 6); its count is `pic_size_in_map_units_minus1 + 1`.
    public var sliceGroupID: [UInt8] = []
    /// `num_ref_idx_l0_default_active_minus1` (0...31).
    public var numRefIdxL0DefaultActiveMinus1: UInt8 = 0
    /// `num_ref_idx_l1_default_active_minus1` (0...31).
    public var numRefIdxL1DefaultActiveMinus1: UInt8 = 0
    /// `weighted_pred_flag`.
    public var weightedPredFlag = false
    /// `weighted_bipred_idc` (0...2).
    public var weightedBipredIDC: UInt8 = 0
    /// `pic_init_qp_minus26`.
    public var picInitQpMinus26: Int8 = 0
    /// `pic_init_qs_minus26`.
    public var picInitQsMinus26: Int8 = 0
    /// `chroma_qp_index_offset` (-12...12).
    public var chromaQpIndexOffset: Int8 = 0
    /// `deblocking_filter_control_present_flag`.
    public var deblockingFilterControlPresentFlag = false
    /// `constrained_intra_pred_flag`.
    public var constrainedIntraPredFlag = false
    /// `redundant_pic_cnt_present_flag`.
    public var redundantPicCntPresentFlag = false
    /// True when the optional tail (`transform_8x8_mode_flag` ...) is coded.
    public var hasExtendedFields = false
    /// `transform_8x8_mode_flag`.
    public var transform8x8ModeFlag = false
    /// `pic_scaling_matrix_present_flag`.
    public var picScalingMatrixPresentFlag = false
    /// The coded `pic_scaling_list_present_flag[i]` and lists.
    public var scalingMatrix = ScalingMatrix()
    /// `second_chroma_qp_index_offset` (-12...12; equals `chroma_qp_index_offset` when absent).
    public var secondChromaQpIndexOffset: Int8 = 0
    /// Bytes after `rbsp_trailing_bits()`, kept so that re-writing is exact.
    public var trailingData: [UInt8] = []

    /// The cap on `pic_size_in_map_units_minus1 + 1` for slice group map type 6.
    public static let maxSliceGroupIDs = 1 << 18

    /// Creates a PPS with default values.
    public init() {}

    /// `SliceGroupChangeRate`.
    public var sliceGroupChangeRate: Int { Int(sliceGroupChangeRateMinus1) &+ 1 }  // < 2^32

    /// The syntax of 7.3.2.2, with the SPS it names looked up in `context`.
    /// - Throws: ``H264Error/Code/missingParameterSet`` when pic scaling lists are coded and
    ///   the SPS is unknown (without them, an unknown SPS only widens the range checked for
    ///   `pic_init_qp_minus26`); the coder's errors otherwise.
    /// - Complexity: O(slice group ids + scaling lists), capped.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {
        try codeLeadingElements(&c)
        let sps = context.sps(id: Int(spsID))
        try c.flag(&entropyCodingModeFlag, "entropy_coding_mode_flag")
        try c.flag(&bottomFieldPicOrderInFramePresentFlag, "bottom_field_pic_order_in_frame_present_flag")
        try c.ue(&numSliceGroupsMinus1, "num_slice_groups_minus1", 0...7)
        if numSliceGroupsMinus1 > 0 {
            try codeSliceGroups(&c)
        }
        try c.ue(&numRefIdxL0DefaultActiveMinus1, "num_ref_idx_l0_default_active_minus1", 0...31)
        try c.ue(&numRefIdxL1DefaultActiveMinus1, "num_ref_idx_l1_default_active_minus1", 0...31)
        try c.flag(&weightedPredFlag, "weighted_pred_flag")
        try c.u(2, &weightedBipredIDC, "weighted_bipred_idc", 0...2)
        let qpLow = -26 &- 6 &* Int8(sps?.bitDepthLumaMinus8 ?? 6)  // bit depth <= 6: >= -62
        try c.se(&picInitQpMinus26, "pic_init_qp_minus26", qpLow...25)
        try c.se(&picInitQsMinus26, "pic_init_qs_minus26", -26...25)
        try c.se(&chromaQpIndexOffset, "chroma_qp_index_offset", -12...12)
        try c.flag(&deblockingFilterControlPresentFlag, "deblocking_filter_control_present_flag")
        try c.flag(&constrainedIntraPredFlag, "constrained_intra_pred_flag")
        try c.flag(&redundantPicCntPresentFlag, "redundant_pic_cnt_present_flag")
        hasExtendedFields = c.moreRBSPData(writerAnswer: hasExtendedFields)
        if hasExtendedFields {
            try c.flag(&transform8x8ModeFlag, "transform_8x8_mode_flag")
            try c.flag(&picScalingMatrixPresentFlag, "pic_scaling_matrix_present_flag")
            if picScalingMatrixPresentFlag {
                guard let sps else {
                    throw H264Error.invalid(.missingParameterSet, "PPS \(id) has scaling lists but SPS \(spsID) is unknown")
                }
                let count: Int = transform8x8ModeFlag ? (sps.chromaFormat != .yuv444 ? 8 : 12) : 6
                try scalingMatrix.code(&c, count: count, flagName: "pic_scaling_list_present_flag")
            } else {
                // The SPS's lists (fall-back rule B) are inferred: no list is coded.
                try c.infer(&scalingMatrix, ScalingMatrix(), "pic_scaling_list_present_flag")
            }
            try c.se(&secondChromaQpIndexOffset, "second_chroma_qp_index_offset", -12...12)
        } else {
            try c.infer(&transform8x8ModeFlag, false, "transform_8x8_mode_flag")
            try c.infer(&picScalingMatrixPresentFlag, false, "pic_scaling_matrix_present_flag")
            try c.infer(&scalingMatrix, ScalingMatrix(), "pic_scaling_list_present_flag")
            try c.infer(&secondChromaQpIndexOffset, chromaQpIndexOffset, "second_chroma_qp_index_offset")
        }
        try c.trailingBits()
        try c.trailingData(&trailingData)
    }

    /// `pic_parameter_set_id` and `seq_parameter_set_id`, which a partial reader uses
    /// (``NALUnit/parameterSetID``, ``NALUnit/referencedParameterSetID``).
    mutating func codeLeadingElements<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.ue(&id, "pic_parameter_set_id", 0...255)
        try c.ue(&spsID, "seq_parameter_set_id", 0...31)
    }

    private mutating func codeSliceGroups<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.ue(&sliceGroupMapType, "slice_group_map_type", 0...6)
        let groups = Int(numSliceGroupsMinus1) &+ 1  // 2...8
        let anyValue: ClosedRange<UInt32> = 0...(UInt32.max &- 1)
        switch sliceGroupMapType {
        case 0:
            try c.prepare(&runLengthMinus1, count: groups, limit: 8, fill: 0, "run_length_minus1")
            for i in 0..<groups { try c.ue(&runLengthMinus1[i], SyntaxName("run_length_minus1", i), anyValue) }
        case 2:
            try c.prepare(&topLeft, count: groups &- 1, limit: 8, fill: 0, "top_left")
            try c.prepare(&bottomRight, count: groups &- 1, limit: 8, fill: 0, "bottom_right")
            for i in 0..<(groups &- 1) {
                try c.ue(&topLeft[i], SyntaxName("top_left", i), anyValue)
                try c.ue(&bottomRight[i], SyntaxName("bottom_right", i), anyValue)
            }
        case 3, 4, 5:
            try c.flag(&sliceGroupChangeDirectionFlag, "slice_group_change_direction_flag")
            try c.ue(&sliceGroupChangeRateMinus1, "slice_group_change_rate_minus1", anyValue)
        case 6:
            var sizeMinus1 = UInt32(truncatingIfNeeded: Swift.max(sliceGroupID.count, 1) &- 1)
            try c.ue(&sizeMinus1, "pic_size_in_map_units_minus1", 0...UInt32(Self.maxSliceGroupIDs &- 1))
            try c.prepare(&sliceGroupID, count: Int(sizeMinus1) &+ 1, limit: Self.maxSliceGroupIDs, fill: 0, "slice_group_id")
            // Ceil(Log2(num_slice_groups_minus1 + 1)) bits, 1...3.
            let g: Int = groups &- 1
            let bits: Int = 64 &- g.leadingZeroBitCount
            for i in 0..<sliceGroupID.count {
                try c.u(bits, &sliceGroupID[i], SyntaxName("slice_group_id", i), 0...numSliceGroupsMinus1)
            }
        default:
            break
        }
    }
}
