/// A sequence parameter set: `seq_parameter_set_rbsp()` (7.3.2.1.1), for every profile.
///
/// Fields hold the coded values in the order of the syntax table; fields that are absent keep
/// the value the specification infers. Derived values (picture size, frame rate, aspect ratio,
/// profile and level names) are in `SequenceParameterSet+Derived.swift`.
///
/// Bytes after `rbsp_trailing_bits()` (some cameras append them) are accepted and kept in
/// ``trailingData``, so that the writer reproduces the NAL unit exactly.
public struct SequenceParameterSet: SyntaxStructure, Hashable {
    /// `profile_idc`.
    public var profileIDC: UInt8 = 66
    /// `constraint_set0_flag` ... `constraint_set5_flag`, index 0 to 5.
    public var constraintSetFlags: [Bool] = [false, false, false, false, false, false]
    /// `reserved_zero_2bits` (kept as coded).
    public var reservedZero2Bits: UInt8 = 0
    /// `level_idc`.
    public var levelIDC: UInt8 = 30
    /// `seq_parameter_set_id` (0...31).
    public var id: UInt8 = 0
    /// `chroma_format_idc` (inferred 4:2:0 for profiles that do not code it, monochrome for
    /// profile 183).
    public var chromaFormat: ChromaFormat = .yuv420
    /// `separate_colour_plane_flag`.
    public var separateColourPlaneFlag = false
    /// `bit_depth_luma_minus8` (0...6).
    public var bitDepthLumaMinus8: UInt8 = 0
    /// `bit_depth_chroma_minus8` (0...6).
    public var bitDepthChromaMinus8: UInt8 = 0
    /// `qpprime_y_zero_transform_bypass_flag`.
    public var qpprimeYZeroTransformBypassFlag = false
    /// `seq_scaling_matrix_present_flag`.
    public var seqScalingMatrixPresentFlag = false
    /// The coded `seq_scaling_list_present_flag[i]` and lists.
    public var scalingMatrix = ScalingMatrix()
    /// `log2_max_frame_num_minus4` (0...12).
    public var log2MaxFrameNumMinus4: UInt8 = 0
    /// `pic_order_cnt_type` (0...2).
    public var picOrderCntType: UInt8 = 0
    /// `log2_max_pic_order_cnt_lsb_minus4` (0...12), with POC type 0.
    public var log2MaxPicOrderCntLsbMinus4: UInt8 = 0
    /// `delta_pic_order_always_zero_flag`, with POC type 1.
    public var deltaPicOrderAlwaysZeroFlag = false
    /// `offset_for_non_ref_pic`, with POC type 1.
    public var offsetForNonRefPic: Int32 = 0
    /// `offset_for_top_to_bottom_field`, with POC type 1.
    public var offsetForTopToBottomField: Int32 = 0
    /// `offset_for_ref_frame[i]`; its count is `num_ref_frames_in_pic_order_cnt_cycle` (0...255).
    public var offsetForRefFrame: [Int32] = []
    /// `max_num_ref_frames`.
    public var maxNumRefFrames: UInt32 = 1
    /// `gaps_in_frame_num_allowed_flag`.
    public var gapsInFrameNumAllowedFlag = false
    /// `pic_width_in_mbs_minus1` (capped at ``maxPicSizeMinus1``).
    public var picWidthInMbsMinus1: UInt32 = 0
    /// `pic_height_in_map_units_minus1` (capped at ``maxPicSizeMinus1``).
    public var picHeightInMapUnitsMinus1: UInt32 = 0
    /// `frame_mbs_only_flag`.
    public var frameMbsOnlyFlag = true
    /// `mb_adaptive_frame_field_flag`.
    public var mbAdaptiveFrameFieldFlag = false
    /// `direct_8x8_inference_flag`.
    public var direct8x8InferenceFlag = true
    /// `frame_cropping_flag`.
    public var frameCroppingFlag = false
    /// `frame_crop_left_offset`.
    public var frameCropLeftOffset: UInt32 = 0
    /// `frame_crop_right_offset`.
    public var frameCropRightOffset: UInt32 = 0
    /// `frame_crop_top_offset`.
    public var frameCropTopOffset: UInt32 = 0
    /// `frame_crop_bottom_offset`.
    public var frameCropBottomOffset: UInt32 = 0
    /// `vui_parameters_present_flag`.
    public var vuiParametersPresentFlag = false
    /// The VUI (inferred values when absent).
    public var vui = VUIParameters()
    /// Bytes after `rbsp_trailing_bits()`, kept so that re-writing is exact.
    public var trailingData: [UInt8] = []

    /// The cap on `pic_width_in_mbs_minus1` and `pic_height_in_map_units_minus1`: 4095
    /// (65,536 luma samples), far beyond every level, so that sizes never overflow.
    public static let maxPicSizeMinus1: UInt32 = 4095

    /// Creates an SPS with default values (Baseline, level 3, 16x16).
    public init() {}

    /// Parses an SPS from its RBSP (the bytes after the NAL unit header, emulation prevention
    /// removed). An SPS depends on no other parameter set.
    /// - Throws: ``H264Error/Code/truncated``, ``H264Error/Code/valueOutOfRange``,
    ///   ``H264Error/Code/invalidExpGolomb``, ``H264Error/Code/invalidTrailingBits``.
    public init(rbsp: ArraySlice<UInt8>) throws(H264Error) {
        try self.init(rbsp: rbsp, context: .empty)
    }

    /// Serialises the SPS into an RBSP (no NAL unit header, no emulation prevention).
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for a value outside its field or one that
    ///   contradicts its inferred value.
    public func rbsp() throws(H264Error) -> [UInt8] { try rbsp(context: .empty) }

    /// True for the profiles whose SPS codes chroma_format_idc, bit depths and scaling lists.
    @inlinable public static func hasChromaInfo(profileIDC: UInt8) -> Bool {
        switch profileIDC {
        case 100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135: return true
        default: return false
        }
    }

    /// `seq_parameter_set_rbsp()`: the data, `rbsp_trailing_bits()` and any trailing bytes.
    /// The SPS depends on no other parameter set: `context` is not used.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {
        try codeData(&c)
        try c.trailingBits()
        try c.trailingData(&trailingData)
    }

    /// `seq_parameter_set_data()` (7.3.2.1.1), shared with the subset SPS.
    /// - Complexity: O(num_ref_frames_in_pic_order_cnt_cycle + scaling lists), bounded.
    public mutating func codeData<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try codeLeadingElements(&c)
        try codeDataBody(&c)
    }

    /// The elements up to `seq_parameter_set_id`, which a partial reader uses
    /// (``NALUnit/parameterSetID``).
    mutating func codeLeadingElements<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.u(8, &profileIDC, "profile_idc")
        try c.prepare(&constraintSetFlags, count: 6, limit: 6, fill: false, "constraint_set_flags")
        try c.flag(&constraintSetFlags[0], "constraint_set0_flag")
        try c.flag(&constraintSetFlags[1], "constraint_set1_flag")
        try c.flag(&constraintSetFlags[2], "constraint_set2_flag")
        try c.flag(&constraintSetFlags[3], "constraint_set3_flag")
        try c.flag(&constraintSetFlags[4], "constraint_set4_flag")
        try c.flag(&constraintSetFlags[5], "constraint_set5_flag")
        try c.u(2, &reservedZero2Bits, "reserved_zero_2bits")
        try c.u(8, &levelIDC, "level_idc")
        try c.ue(&id, "seq_parameter_set_id", 0...31)
    }

    /// `seq_parameter_set_data()` after `seq_parameter_set_id`.
    private mutating func codeDataBody<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        if Self.hasChromaInfo(profileIDC: profileIDC) {
            try c.ue(&chromaFormat, "chroma_format_idc", 0...3)
            if chromaFormat == .yuv444 {
                try c.flag(&separateColourPlaneFlag, "separate_colour_plane_flag")
            } else {
                try c.infer(&separateColourPlaneFlag, false, "separate_colour_plane_flag")
            }
            try c.ue(&bitDepthLumaMinus8, "bit_depth_luma_minus8", 0...6)
            try c.ue(&bitDepthChromaMinus8, "bit_depth_chroma_minus8", 0...6)
            try c.flag(&qpprimeYZeroTransformBypassFlag, "qpprime_y_zero_transform_bypass_flag")
            try c.flag(&seqScalingMatrixPresentFlag, "seq_scaling_matrix_present_flag")
            if seqScalingMatrixPresentFlag {
                try scalingMatrix.code(&c, count: chromaFormat != .yuv444 ? 8 : 12, flagName: "seq_scaling_list_present_flag")
            } else {
                // Flat_4x4_16 and Flat_8x8_16 are inferred: no list is coded.
                try c.infer(&scalingMatrix, ScalingMatrix(), "seq_scaling_list_present_flag")
            }
        } else {
            try c.infer(&chromaFormat, profileIDC == 183 ? .monochrome : .yuv420, "chroma_format_idc")
            try c.infer(&separateColourPlaneFlag, false, "separate_colour_plane_flag")
            try c.infer(&bitDepthLumaMinus8, 0, "bit_depth_luma_minus8")
            try c.infer(&bitDepthChromaMinus8, 0, "bit_depth_chroma_minus8")
            try c.infer(&qpprimeYZeroTransformBypassFlag, false, "qpprime_y_zero_transform_bypass_flag")
            try c.infer(&seqScalingMatrixPresentFlag, false, "seq_scaling_matrix_present_flag")
            try c.infer(&scalingMatrix, ScalingMatrix(), "seq_scaling_list_present_flag")
        }
        try c.ue(&log2MaxFrameNumMinus4, "log2_max_frame_num_minus4", 0...12)
        try c.ue(&picOrderCntType, "pic_order_cnt_type", 0...2)
        if picOrderCntType == 0 {
            try c.ue(&log2MaxPicOrderCntLsbMinus4, "log2_max_pic_order_cnt_lsb_minus4", 0...12)
        } else if picOrderCntType == 1 {
            try c.flag(&deltaPicOrderAlwaysZeroFlag, "delta_pic_order_always_zero_flag")
            try c.se(&offsetForNonRefPic, "offset_for_non_ref_pic", (Int32.min &+ 1)...Int32.max)
            try c.se(&offsetForTopToBottomField, "offset_for_top_to_bottom_field", (Int32.min &+ 1)...Int32.max)
            var cycle = UInt32(truncatingIfNeeded: offsetForRefFrame.count)
            try c.ue(&cycle, "num_ref_frames_in_pic_order_cnt_cycle", 0...255)
            try c.prepare(&offsetForRefFrame, count: Int(cycle), limit: 255, fill: 0, "offset_for_ref_frame")
            for i in 0..<offsetForRefFrame.count {
                try c.se(&offsetForRefFrame[i], SyntaxName("offset_for_ref_frame", i), (Int32.min &+ 1)...Int32.max)
            }
        }
        try c.ue(&maxNumRefFrames, "max_num_ref_frames", 0...255)
        try c.flag(&gapsInFrameNumAllowedFlag, "gaps_in_frame_num_allowed_flag")
        try c.ue(&picWidthInMbsMinus1, "pic_width_in_mbs_minus1", 0...Self.maxPicSizeMinus1)
        try c.ue(&picHeightInMapUnitsMinus1, "pic_height_in_map_units_minus1", 0...Self.maxPicSizeMinus1)
        try c.flag(&frameMbsOnlyFlag, "frame_mbs_only_flag")
        if !frameMbsOnlyFlag {
            try c.flag(&mbAdaptiveFrameFieldFlag, "mb_adaptive_frame_field_flag")
        } else {
            try c.infer(&mbAdaptiveFrameFieldFlag, false, "mb_adaptive_frame_field_flag")
        }
        try c.flag(&direct8x8InferenceFlag, "direct_8x8_inference_flag")
        try c.flag(&frameCroppingFlag, "frame_cropping_flag")
        if frameCroppingFlag {
            // Bounded so that offset * CropUnit (at most 4) stays far from overflow.
            let limit: ClosedRange<UInt32> = 0...(1 << 20)
            try c.ue(&frameCropLeftOffset, "frame_crop_left_offset", limit)
            try c.ue(&frameCropRightOffset, "frame_crop_right_offset", limit)
            try c.ue(&frameCropTopOffset, "frame_crop_top_offset", limit)
            try c.ue(&frameCropBottomOffset, "frame_crop_bottom_offset", limit)
        } else {
            try c.infer(&frameCropLeftOffset, 0, "frame_crop_left_offset")
            try c.infer(&frameCropRightOffset, 0, "frame_crop_right_offset")
            try c.infer(&frameCropTopOffset, 0, "frame_crop_top_offset")
            try c.infer(&frameCropBottomOffset, 0, "frame_crop_bottom_offset")
        }
        // E.2.1: max_num_reorder_frames and max_dec_frame_buffering, when absent, are inferred
        // 0 for the intra profiles with constraint_set3_flag, else MaxDpbFrames (16, as FFmpeg).
        let intra = [44, 86, 100, 110, 122, 244].contains(profileIDC) && constraintSetFlags[3]
        let inferredFrames: UInt32 = intra ? 0 : 16
        try c.flag(&vuiParametersPresentFlag, "vui_parameters_present_flag")
        if vuiParametersPresentFlag {
            try vui.code(&c, inferredDPBFrames: inferredFrames)
        } else {
            try c.infer(&vui, VUIParameters(inferredDPBFrames: inferredFrames), "vui_parameters")
        }
    }
}
