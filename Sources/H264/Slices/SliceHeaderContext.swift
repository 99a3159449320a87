/// What a slice header's syntax needs from its SPS and PPS, as a plain value.
///
/// The parameter-set store keeps one per SPS and PPS, made when the set is stored, so that
/// parsing a slice header copies a few bytes instead of two structures full of arrays.
public struct SliceHeaderContext: Sendable, Hashable {
    // From the SPS.
    /// `separate_colour_plane_flag`.
    public var separateColourPlaneFlag = false
    /// `log2_max_frame_num_minus4 + 4`.
    public var frameNumBits = 4
    /// `frame_mbs_only_flag`.
    public var frameMbsOnlyFlag = true
    /// `pic_order_cnt_type`.
    public var picOrderCntType: UInt8 = 0
    /// `log2_max_pic_order_cnt_lsb_minus4 + 4`.
    public var picOrderCntLsbBits = 4
    /// `delta_pic_order_always_zero_flag`.
    public var deltaPicOrderAlwaysZeroFlag = false
    /// `ChromaArrayType`.
    public var chromaArrayType: UInt8 = 1
    /// `bit_depth_luma_minus8`.
    public var bitDepthLumaMinus8: UInt8 = 0
    /// `PicSizeInMapUnits`.
    public var picSizeInMapUnits = 1

    // From the PPS.
    /// `seq_parameter_set_id` of the PPS.
    public var spsID: UInt8 = 0
    /// `entropy_coding_mode_flag`.
    public var entropyCodingModeFlag = false
    /// `bottom_field_pic_order_in_frame_present_flag`.
    public var bottomFieldPicOrderInFramePresentFlag = false
    /// `num_slice_groups_minus1`.
    public var numSliceGroupsMinus1: UInt8 = 0
    /// `slice_group_map_type`.
    public var sliceGroupMapType: UInt8 = 0
    /// `SliceGroupChangeRate`.
    public var sliceGroupChangeRate = 1
    /// `num_ref_idx_l0_default_active_minus1`.
    public var numRefIdxL0DefaultActiveMinus1: UInt8 = 0
    /// `num_ref_idx_l1_default_active_minus1`.
    public var numRefIdxL1DefaultActiveMinus1: UInt8 = 0
    /// `weighted_pred_flag`.
    public var weightedPredFlag = false
    /// `weighted_bipred_idc`.
    public var weightedBipredIDC: UInt8 = 0
    /// `deblocking_filter_control_present_flag`.
    public var deblockingFilterControlPresentFlag = false
    /// `redundant_pic_cnt_present_flag`.
    public var redundantPicCntPresentFlag = false

    /// An empty context.
    public init() {}

    /// The context of a slice that uses `pps` and `sps`.
    public init(sps: SequenceParameterSet, pps: PictureParameterSet) {
        setSPS(sps)
        setPPS(pps)
    }

    /// Takes the SPS part from `sps`.
    public mutating func setSPS(_ sps: SequenceParameterSet) {
        separateColourPlaneFlag = sps.separateColourPlaneFlag
        frameNumBits = Int(sps.log2MaxFrameNumMinus4) &+ 4
        frameMbsOnlyFlag = sps.frameMbsOnlyFlag
        picOrderCntType = sps.picOrderCntType
        picOrderCntLsbBits = Int(sps.log2MaxPicOrderCntLsbMinus4) &+ 4
        deltaPicOrderAlwaysZeroFlag = sps.deltaPicOrderAlwaysZeroFlag
        chromaArrayType = sps.chromaArrayType
        bitDepthLumaMinus8 = sps.bitDepthLumaMinus8
        picSizeInMapUnits = sps.picSizeInMapUnits
    }

    /// Takes the SPS part from another context.
    mutating func setSPS(from o: SliceHeaderContext) {
        separateColourPlaneFlag = o.separateColourPlaneFlag
        frameNumBits = o.frameNumBits
        frameMbsOnlyFlag = o.frameMbsOnlyFlag
        picOrderCntType = o.picOrderCntType
        picOrderCntLsbBits = o.picOrderCntLsbBits
        deltaPicOrderAlwaysZeroFlag = o.deltaPicOrderAlwaysZeroFlag
        chromaArrayType = o.chromaArrayType
        bitDepthLumaMinus8 = o.bitDepthLumaMinus8
        picSizeInMapUnits = o.picSizeInMapUnits
    }

    /// Takes the PPS part from `pps`.
    public mutating func setPPS(_ pps: PictureParameterSet) {
        spsID = pps.spsID
        entropyCodingModeFlag = pps.entropyCodingModeFlag
        bottomFieldPicOrderInFramePresentFlag = pps.bottomFieldPicOrderInFramePresentFlag
        numSliceGroupsMinus1 = pps.numSliceGroupsMinus1
        sliceGroupMapType = pps.sliceGroupMapType
        sliceGroupChangeRate = pps.sliceGroupChangeRate
        numRefIdxL0DefaultActiveMinus1 = pps.numRefIdxL0DefaultActiveMinus1
        numRefIdxL1DefaultActiveMinus1 = pps.numRefIdxL1DefaultActiveMinus1
        weightedPredFlag = pps.weightedPredFlag
        weightedBipredIDC = pps.weightedBipredIDC
        deblockingFilterControlPresentFlag = pps.deblockingFilterControlPresentFlag
        redundantPicCntPresentFlag = pps.redundantPicCntPresentFlag
    }
}
