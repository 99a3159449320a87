import H264

extension StreamBuilder {
    /// What the SPS and PPS of a built stream say: size, profile, level, POC type, interlace,
    /// entropy coder and VUI. ``makeParameterSets()`` turns it into a real
    /// `SequenceParameterSet` and `PictureParameterSet`.
    public struct SequenceOptions: Sendable {
        /// Width after cropping, in luma samples (1...4096). A width that is not a multiple of 16
        /// is coded as whole macroblocks with `frame_crop_right_offset`.
        public var width: Int
        /// Height after cropping, in luma samples. Coded as whole macroblocks (macroblock pairs
        /// when `frame_mbs_only_flag` is 0) with `frame_crop_bottom_offset`.
        public var height: Int
        /// `profile_idc` (66, 77, 88, 100, 110, 122, 244 ...).
        public var profileIDC: UInt8
        /// `level_idc` (for example 30 for level 3).
        public var levelIDC: UInt8 = 30
        /// `constraint_set0_flag` ... `constraint_set5_flag`.
        public var constraintSetFlags: [Bool] = [false, false, false, false, false, false]
        /// `chroma_format_idc`; nil picks 3 for profile 244, 2 for 122, else 1. Coded only by
        /// the High profiles.
        public var chromaFormatIDC: UInt8?
        /// Bit depth of luma and chroma; nil picks 10 for profiles 110, 122 and 244, else 8.
        public var bitDepth: UInt8?
        /// `pic_order_cnt_type` (0, 1 or 2).
        public var pocType: UInt8 = 0
        /// `log2_max_frame_num_minus4` + 4 (4...16).
        public var log2MaxFrameNum: UInt8 = 4
        /// `log2_max_pic_order_cnt_lsb_minus4` + 4 (4...16), POC type 0.
        public var log2MaxPicOrderCntLsb: UInt8 = 6
        /// `offset_for_ref_frame[i]` (POC type 1): the expected POC steps of one cycle of
        /// reference frames (at most 255 entries).
        public var pocType1Cycle: [Int32] = [2]
        /// `offset_for_non_ref_pic` (POC type 1).
        public var offsetForNonRefPic: Int32 = -1
        /// `offset_for_top_to_bottom_field` (POC type 1).
        public var offsetForTopToBottomField: Int32 = 1
        /// `max_num_ref_frames`.
        public var maxNumRefFrames: UInt32 = 2
        /// `frame_mbs_only_flag`: false allows field pictures and MBAFF.
        public var frameMbsOnly = true
        /// `mb_adaptive_frame_field_flag` (only with `frameMbsOnly` false).
        public var mbaff = false
        /// `entropy_coding_mode_flag`: CABAC when true.
        public var cabac = false
        /// `bottom_field_pic_order_in_frame_present_flag` (the PPS).
        public var bottomFieldPicOrderInFramePresent = false
        /// `transform_8x8_mode_flag` (High profiles; codes the PPS's optional tail).
        public var transform8x8Mode = false
        /// The frame rate written as VUI timing info (`num_units_in_tick` = denominator,
        /// `time_scale` = 2 × numerator, `fixed_frame_rate_flag` 1); nil for none.
        public var frameRate: (numerator: UInt32, denominator: UInt32)?
        /// The sample aspect ratio (`aspect_ratio_idc` 255, Extended_SAR); nil for none.
        public var sampleAspectRatio: (width: UInt16, height: UInt16)?
        /// The VUI colour description (`colour_primaries`, `transfer_characteristics`,
        /// `matrix_coefficients`) with `video_full_range_flag`; nil for none.
        public var colorDescription: ColorDescription?
        /// The colour description as a tuple.
        @available(*, deprecated, renamed: "colorDescription")
        public var colour: (primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: Bool)? {
            get { colorDescription.map { ($0.primaries, $0.transferCharacteristics, $0.matrixCoefficients, $0.fullRange) } }
            set {
                colorDescription = newValue.map {
                    ColorDescription(primaries: $0.primaries, transferCharacteristics: $0.transfer,
                                     matrixCoefficients: $0.matrix, fullRange: $0.fullRange)
                }
            }
        }
        /// `max_num_reorder_frames` in the VUI's bitstream restriction (with
        /// `max_dec_frame_buffering` = max(this, `max_num_ref_frames`)); nil for none.
        public var maxNumReorderFrames: UInt32?
        /// `seq_parameter_set_id`.
        public var spsID: UInt8 = 0
        /// `pic_parameter_set_id`.
        public var ppsID: UInt8 = 0

        /// Creates a sequence description; every other field keeps its default.
        public init(width: Int, height: Int, profileIDC: UInt8 = 77, levelIDC: UInt8 = 30) {
            self.width = width
            self.height = height
            self.profileIDC = profileIDC
            self.levelIDC = levelIDC
        }

        /// Builds the SPS and PPS this description asks for.
        /// - Throws: `H264Error.Code.invalidArgument` for a size the crop units cannot reach
        ///   (an odd width in 4:2:0, for example), MBAFF without `frameMbsOnly` false, or values
        ///   out of their ranges.
        public func makeParameterSets() throws(H264Error) -> (sps: SequenceParameterSet, pps: PictureParameterSet) {
            guard width > 0, height > 0, width <= 4096, height <= 4096 else {
                throw H264Error.invalid(.invalidArgument, "size \(width)x\(height) outside 1...4096")
            }
            guard frameMbsOnly ? !mbaff : true else { throw H264Error.invalid(.invalidArgument, "MBAFF needs frameMbsOnly false") }
            guard (4...16).contains(log2MaxFrameNum), (4...16).contains(log2MaxPicOrderCntLsb), pocType <= 2 else {
                throw H264Error.invalid(.invalidArgument, "log2 sizes or POC type out of range")
            }
            var sps = SequenceParameterSet()
            sps.profileIDC = profileIDC
            sps.levelIDC = levelIDC
            sps.constraintSetFlags = constraintSetFlags
            sps.id = spsID
            let high = SequenceParameterSet.hasChromaInfo(profileIDC: profileIDC)
            let depth = bitDepth ?? ([110, 122, 244].contains(profileIDC) ? 10 : 8)
            if high {
                let idc = chromaFormatIDC ?? (profileIDC == 244 ? 3 : profileIDC == 122 ? 2 : 1)
                guard let format = ChromaFormat(rawValue: idc) else { throw H264Error.invalid(.invalidArgument, "chroma_format_idc \(idc)") }
                sps.chromaFormat = format
                guard (8...14).contains(depth) else { throw H264Error.invalid(.invalidArgument, "bit depth \(depth)") }
                sps.bitDepthLumaMinus8 = depth - 8
                sps.bitDepthChromaMinus8 = depth - 8
            }
            sps.log2MaxFrameNumMinus4 = log2MaxFrameNum - 4
            sps.picOrderCntType = pocType
            sps.log2MaxPicOrderCntLsbMinus4 = log2MaxPicOrderCntLsb - 4
            if pocType == 1 {
                sps.offsetForRefFrame = pocType1Cycle
                sps.offsetForNonRefPic = offsetForNonRefPic
                sps.offsetForTopToBottomField = offsetForTopToBottomField
            }
            sps.maxNumRefFrames = maxNumRefFrames
            sps.frameMbsOnlyFlag = frameMbsOnly
            sps.mbAdaptiveFrameFieldFlag = mbaff
            sps.direct8x8InferenceFlag = true
            // Sizes are at most 4096, so every sum and product below is small.
            let widthInMbs = (width + 15) / 16
            let mapUnitRows = frameMbsOnly ? 16 : 32
            let heightInMapUnits = (height + mapUnitRows - 1) / mapUnitRows
            sps.picWidthInMbsMinus1 = UInt32(widthInMbs - 1)
            sps.picHeightInMapUnitsMinus1 = UInt32(heightInMapUnits - 1)
            let unit = sps.cropUnit
            let cropX = sps.codedWidth - width, cropY = sps.codedHeight - height
            guard cropX % unit.x == 0, cropY % unit.y == 0 else {
                throw H264Error.invalid(.invalidArgument, "\(width)x\(height) is not a multiple of the crop unit \(unit.x)x\(unit.y)")
            }
            if cropX > 0 || cropY > 0 {
                sps.frameCroppingFlag = true
                sps.frameCropRightOffset = UInt32(cropX / unit.x)
                sps.frameCropBottomOffset = UInt32(cropY / unit.y)
            }
            var vui = VUIParameters()
            var anyVUI = false
            if let sar = sampleAspectRatio {
                vui.aspectRatioInfoPresentFlag = true
                vui.aspectRatioIDC = 255
                vui.sarWidth = sar.width
                vui.sarHeight = sar.height
                anyVUI = true
            }
            if let color = colorDescription {
                vui.colourDescriptionPresentFlag = true  // written even for 2, 2, 2
                vui.colorDescription = color
                anyVUI = true
            }
            if let rate = frameRate {
                guard rate.numerator > 0, rate.denominator > 0, rate.numerator <= UInt32.max / 2 else {
                    throw H264Error.invalid(.invalidArgument, "frame rate \(rate.numerator)/\(rate.denominator)")
                }
                vui.timingInfoPresentFlag = true
                vui.numUnitsInTick = rate.denominator
                vui.timeScale = rate.numerator * 2  // checked above: no overflow
                vui.fixedFrameRateFlag = true
                anyVUI = true
            }
            if let reorder = maxNumReorderFrames {
                vui.bitstreamRestrictionFlag = true
                vui.maxNumReorderFrames = reorder
                vui.maxDecFrameBuffering = Swift.max(reorder, maxNumRefFrames)
                anyVUI = true
            }
            sps.vuiParametersPresentFlag = anyVUI
            sps.vui = vui
            try sps.setInferredValues(context: EmptySyntaxContext())

            var pps = PictureParameterSet()
            pps.id = ppsID
            pps.spsID = spsID
            pps.entropyCodingModeFlag = cabac
            pps.bottomFieldPicOrderInFramePresentFlag = bottomFieldPicOrderInFramePresent
            pps.deblockingFilterControlPresentFlag = true
            if transform8x8Mode {
                pps.hasExtendedFields = true
                pps.transform8x8ModeFlag = true
            }
            // Both must survive their own writers: fail here rather than in the first picture.
            _ = try sps.rbsp()
            _ = try pps.rbsp(context: ParameterSetStore(sps: sps))
            return (sps, pps)
        }
    }
}
