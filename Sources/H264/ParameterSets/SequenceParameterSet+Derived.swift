/// Values the specification derives from the SPS fields (7.4.2.1.1, E.2.1, Annex A).
extension SequenceParameterSet {
    /// `ChromaArrayType`: 0 when `separate_colour_plane_flag` is 1, else `chroma_format_idc`.
    @inlinable public var chromaArrayType: UInt8 { separateColourPlaneFlag ? 0 : chromaFormat.rawValue }

    /// `SubWidthC` and `SubHeightC` (Table 6-1); 1 and 1 for monochrome or separate planes.
    public var chromaSubsampling: (width: Int, height: Int) {
        switch chromaArrayType {
        case 1: return (2, 2)
        case 2: return (2, 1)
        default: return (1, 1)
        }
    }

    /// `PicWidthInMbs`.
    @inlinable public var picWidthInMbs: Int { Int(picWidthInMbsMinus1) &+ 1 }  // capped at 4096
    /// `PicHeightInMapUnits`.
    @inlinable public var picHeightInMapUnits: Int { Int(picHeightInMapUnitsMinus1) &+ 1 }  // capped at 4096
    /// `PicSizeInMapUnits` (at most 4096 * 4096).
    @inlinable public var picSizeInMapUnits: Int { picWidthInMbs &* picHeightInMapUnits }
    /// `FrameHeightInMbs`: twice the map units when fields may be coded.
    @inlinable public var frameHeightInMbs: Int { (frameMbsOnlyFlag ? 1 : 2) &* picHeightInMapUnits }
    /// `MaxFrameNum` (at most 2^16).
    @inlinable public var maxFrameNum: Int { 1 << (Int(log2MaxFrameNumMinus4) &+ 4) }
    /// `MaxPicOrderCntLsb` (at most 2^16).
    @inlinable public var maxPicOrderCntLsb: Int { 1 << (Int(log2MaxPicOrderCntLsbMinus4) &+ 4) }

    /// `CropUnitX` and `CropUnitY` (7-19 to 7-22).
    public var cropUnit: (x: Int, y: Int) {
        let fields = frameMbsOnlyFlag ? 1 : 2
        if chromaArrayType == 0 { return (1, fields) }
        let s = chromaSubsampling
        return (s.width, s.height &* fields)
    }

    /// Decoded frame width in luma samples before cropping.
    public var codedWidth: Int { picWidthInMbs &* 16 }
    /// Decoded frame height in luma samples before cropping.
    public var codedHeight: Int { frameHeightInMbs &* 16 }

    /// Frame width in luma samples after cropping; 0 when the crop offsets exceed the picture.
    /// No overflow is possible: sizes are capped at 65,536 and offsets at 2^20.
    public var width: Int {
        guard frameCroppingFlag else { return codedWidth }
        let crop = cropUnit.x &* (Int(frameCropLeftOffset) &+ Int(frameCropRightOffset))
        return Swift.max(0, codedWidth &- crop)
    }

    /// Frame height in luma samples after cropping; 0 when the crop offsets exceed the picture.
    public var height: Int {
        guard frameCroppingFlag else { return codedHeight }
        let crop = cropUnit.y &* (Int(frameCropTopOffset) &+ Int(frameCropBottomOffset))
        return Swift.max(0, codedHeight &- crop)
    }

    /// The frame rate from the VUI timing info, `time_scale / (2 * num_units_in_tick)`, as a
    /// fraction; nil without timing info or with a zero field.
    public var frameRate: (numerator: UInt64, denominator: UInt64)? {
        guard vuiParametersPresentFlag, vui.timingInfoPresentFlag, vui.numUnitsInTick > 0, vui.timeScale > 0 else { return nil }
        return (UInt64(vui.timeScale), UInt64(vui.numUnitsInTick) &* 2)  // < 2^33
    }

    /// The sample aspect ratio (Table E-1, or `sar_width:sar_height` for Extended_SAR); nil when
    /// absent or unspecified.
    public var sampleAspectRatio: (width: Int, height: Int)? {
        guard vuiParametersPresentFlag, vui.aspectRatioInfoPresentFlag else { return nil }
        let table: [(Int, Int)] = [(1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
                                   (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1)]
        let idc = Int(vui.aspectRatioIDC)
        if idc == 255 {
            guard vui.sarWidth > 0, vui.sarHeight > 0 else { return nil }
            return (Int(vui.sarWidth), Int(vui.sarHeight))
        }
        guard idc >= 1, idc <= table.count else { return nil }
        return table[idc &- 1]
    }

    /// `constraint_set<n>_flag` (n in 0...5).
    public func constraintSet(_ n: Int) -> Bool { n >= 0 && n < constraintSetFlags.count && constraintSetFlags[n] }

    /// The profile's name (Annex A, G, H, I), taking the constraint flags into account
    /// (``ProfileLevel/profileName``).
    public var profileName: String { ProfileLevel(self).profileName }

    /// True for level 1b: `level_idc` 9, or 11 with `constraint_set3_flag` in the Baseline,
    /// Main and Extended profiles (A.3.1, A.3.2).
    public var isLevel1b: Bool { ProfileLevel(self).isLevel1b }

    /// The level as written in Table A-1: "1b", "3.1", "4".
    public var levelName: String { ProfileLevel(self).level.name }

    /// What SEI buffering_period and pic_timing need from this SPS.
    public var seiTimingInfo: SEITimingInfo {
        SEITimingInfo(nalHRD: vui.nalHRD?.seiFieldLengths, vclHRD: vui.vclHRD?.seiFieldLengths,
                      picStructPresent: vuiParametersPresentFlag && vui.picStructPresentFlag)
    }
}
