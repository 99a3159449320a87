/// `vui_parameters()` (E.1.1): video usability information carried in an SPS.
///
/// Fields hold the coded values; absent fields hold the values the specification infers
/// (E.2.1, as FFmpeg infers them), so derived properties work whether or not a field was coded.
/// A reader sets them; a writer checks them (see ``SyntaxStructure``).
public struct VUIParameters: Sendable, Hashable {
    /// `aspect_ratio_info_present_flag`.
    public var aspectRatioInfoPresentFlag = false
    /// `aspect_ratio_idc` (Table E-1; 255 is Extended_SAR).
    public var aspectRatioIDC: UInt8 = 0
    /// `sar_width` (with `aspect_ratio_idc` 255).
    public var sarWidth: UInt16 = 0
    /// `sar_height` (with `aspect_ratio_idc` 255).
    public var sarHeight: UInt16 = 0
    /// `overscan_info_present_flag`.
    public var overscanInfoPresentFlag = false
    /// `overscan_appropriate_flag`.
    public var overscanAppropriateFlag = false
    /// `video_signal_type_present_flag`.
    public var videoSignalTypePresentFlag = false
    /// `video_format` (0...7; 5 is unspecified).
    public var videoFormat: UInt8 = 5
    /// `video_full_range_flag`.
    public var videoFullRangeFlag = false
    /// `colour_description_present_flag`.
    public var colourDescriptionPresentFlag = false
    /// `colour_primaries` (2 is unspecified).
    public var colourPrimaries: UInt8 = 2
    /// `transfer_characteristics` (2 is unspecified).
    public var transferCharacteristics: UInt8 = 2
    /// `matrix_coefficients` (2 is unspecified).
    public var matrixCoefficients: UInt8 = 2
    /// `chroma_loc_info_present_flag`.
    public var chromaLocInfoPresentFlag = false
    /// `chroma_sample_loc_type_top_field` (0...5).
    public var chromaSampleLocTypeTopField: UInt8 = 0
    /// `chroma_sample_loc_type_bottom_field` (0...5).
    public var chromaSampleLocTypeBottomField: UInt8 = 0
    /// `timing_info_present_flag`.
    public var timingInfoPresentFlag = false
    /// `num_units_in_tick`.
    public var numUnitsInTick: UInt32 = 0
    /// `time_scale`.
    public var timeScale: UInt32 = 0
    /// `fixed_frame_rate_flag`.
    public var fixedFrameRateFlag = false
    /// NAL HRD parameters, when `nal_hrd_parameters_present_flag` is 1.
    public var nalHRD: HRDParameters?
    /// VCL HRD parameters, when `vcl_hrd_parameters_present_flag` is 1.
    public var vclHRD: HRDParameters?
    /// `low_delay_hrd_flag` (coded only with an HRD; else inferred `1 - fixed_frame_rate_flag`).
    public var lowDelayHRDFlag = true
    /// `pic_struct_present_flag`.
    public var picStructPresentFlag = false
    /// `bitstream_restriction_flag`.
    public var bitstreamRestrictionFlag = false
    /// `motion_vectors_over_pic_boundaries_flag`.
    public var motionVectorsOverPicBoundariesFlag = true
    /// `max_bytes_per_pic_denom` (0...16).
    public var maxBytesPerPicDenom: UInt8 = 2
    /// `max_bits_per_mb_denom` (0...16).
    public var maxBitsPerMbDenom: UInt8 = 1
    /// `log2_max_mv_length_horizontal` (0...16).
    public var log2MaxMvLengthHorizontal: UInt8 = 15
    /// `log2_max_mv_length_vertical` (0...16).
    public var log2MaxMvLengthVertical: UInt8 = 15
    /// `max_num_reorder_frames` (inferred 16, or 0 for the intra profiles).
    public var maxNumReorderFrames: UInt32 = 16
    /// `max_dec_frame_buffering` (inferred 16, or 0 for the intra profiles).
    public var maxDecFrameBuffering: UInt32 = 16

    /// Creates VUI parameters with every flag 0 and the inferred values.
    public init() {}

    /// Creates VUI parameters with every flag 0 and the values inferred for an SPS whose
    /// `max_num_reorder_frames` and `max_dec_frame_buffering` are inferred as `inferredDPBFrames`.
    public init(inferredDPBFrames: UInt32) {
        maxNumReorderFrames = inferredDPBFrames
        maxDecFrameBuffering = inferredDPBFrames
    }

    /// The syntax of E.1.1.
    /// - Parameter inferredDPBFrames: the value `max_num_reorder_frames` and
    ///   `max_dec_frame_buffering` take without `bitstream_restriction_flag` (E.2.1: 0 for the
    ///   intra profiles with `constraint_set3_flag`, else 16).
    public mutating func code<C: SyntaxCoder>(_ c: inout C, inferredDPBFrames: UInt32) throws(H264Error) {
        try c.flag(&aspectRatioInfoPresentFlag, "aspect_ratio_info_present_flag")
        if aspectRatioInfoPresentFlag {
            try c.u(8, &aspectRatioIDC, "aspect_ratio_idc")
            if aspectRatioIDC == 255 {
                try c.u(16, &sarWidth, "sar_width")
                try c.u(16, &sarHeight, "sar_height")
            }
        } else {
            try c.infer(&aspectRatioIDC, 0, "aspect_ratio_idc")
        }
        try c.flag(&overscanInfoPresentFlag, "overscan_info_present_flag")
        if overscanInfoPresentFlag { try c.flag(&overscanAppropriateFlag, "overscan_appropriate_flag") }
        try c.flag(&videoSignalTypePresentFlag, "video_signal_type_present_flag")
        if videoSignalTypePresentFlag {
            try c.u(3, &videoFormat, "video_format")
            try c.flag(&videoFullRangeFlag, "video_full_range_flag")
            try c.flag(&colourDescriptionPresentFlag, "colour_description_present_flag")
            if colourDescriptionPresentFlag {
                try c.u(8, &colourPrimaries, "colour_primaries")
                try c.u(8, &transferCharacteristics, "transfer_characteristics")
                try c.u(8, &matrixCoefficients, "matrix_coefficients")
            } else {
                try inferColourDescription(&c)
            }
        } else {
            try c.infer(&videoFormat, 5, "video_format")
            try c.infer(&videoFullRangeFlag, false, "video_full_range_flag")
            try inferColourDescription(&c)
        }
        try c.flag(&chromaLocInfoPresentFlag, "chroma_loc_info_present_flag")
        if chromaLocInfoPresentFlag {
            try c.ue(&chromaSampleLocTypeTopField, "chroma_sample_loc_type_top_field", 0...5)
            try c.ue(&chromaSampleLocTypeBottomField, "chroma_sample_loc_type_bottom_field", 0...5)
        } else {
            try c.infer(&chromaSampleLocTypeTopField, 0, "chroma_sample_loc_type_top_field")
            try c.infer(&chromaSampleLocTypeBottomField, 0, "chroma_sample_loc_type_bottom_field")
        }
        try c.flag(&timingInfoPresentFlag, "timing_info_present_flag")
        if timingInfoPresentFlag {
            try c.u(32, &numUnitsInTick, "num_units_in_tick")
            try c.u(32, &timeScale, "time_scale")
            try c.flag(&fixedFrameRateFlag, "fixed_frame_rate_flag")
        } else {
            try c.infer(&fixedFrameRateFlag, false, "fixed_frame_rate_flag")
        }
        try codeHRD(&c, &nalHRD, "nal_hrd_parameters_present_flag")
        try codeHRD(&c, &vclHRD, "vcl_hrd_parameters_present_flag")
        if nalHRD != nil || vclHRD != nil {
            try c.flag(&lowDelayHRDFlag, "low_delay_hrd_flag")
        } else {
            try c.infer(&lowDelayHRDFlag, !fixedFrameRateFlag, "low_delay_hrd_flag")
        }
        try c.flag(&picStructPresentFlag, "pic_struct_present_flag")
        try c.flag(&bitstreamRestrictionFlag, "bitstream_restriction_flag")
        if bitstreamRestrictionFlag {
            try c.flag(&motionVectorsOverPicBoundariesFlag, "motion_vectors_over_pic_boundaries_flag")
            try c.ue(&maxBytesPerPicDenom, "max_bytes_per_pic_denom", 0...16)
            try c.ue(&maxBitsPerMbDenom, "max_bits_per_mb_denom", 0...16)
            try c.ue(&log2MaxMvLengthHorizontal, "log2_max_mv_length_horizontal", 0...16)
            try c.ue(&log2MaxMvLengthVertical, "log2_max_mv_length_vertical", 0...16)
            try c.ue(&maxNumReorderFrames, "max_num_reorder_frames", 0...(UInt32.max &- 1))
            try c.ue(&maxDecFrameBuffering, "max_dec_frame_buffering", 0...(UInt32.max &- 1))
        } else {
            try c.infer(&motionVectorsOverPicBoundariesFlag, true, "motion_vectors_over_pic_boundaries_flag")
            try c.infer(&maxBytesPerPicDenom, 2, "max_bytes_per_pic_denom")
            try c.infer(&maxBitsPerMbDenom, 1, "max_bits_per_mb_denom")
            try c.infer(&log2MaxMvLengthHorizontal, 15, "log2_max_mv_length_horizontal")
            try c.infer(&log2MaxMvLengthVertical, 15, "log2_max_mv_length_vertical")
            try c.infer(&maxNumReorderFrames, inferredDPBFrames, "max_num_reorder_frames")
            try c.infer(&maxDecFrameBuffering, inferredDPBFrames, "max_dec_frame_buffering")
        }
    }

    /// Without `colour_description_present_flag`: 2 (unspecified) for all three.
    private mutating func inferColourDescription<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.infer(&colourPrimaries, 2, "colour_primaries")
        try c.infer(&transferCharacteristics, 2, "transfer_characteristics")
        try c.infer(&matrixCoefficients, 2, "matrix_coefficients")
    }

    private func codeHRD<C: SyntaxCoder>(_ c: inout C, _ hrd: inout HRDParameters?, _ flagName: StaticString) throws(H264Error) {
        var present = hrd != nil
        try c.flag(&present, SyntaxName(flagName))
        if present {
            var h = hrd ?? HRDParameters()
            try h.code(&c)
            hrd = h
        } else {
            hrd = nil
        }
    }
}
