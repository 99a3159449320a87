/// Changes to make to every SPS of a stream: VUI fields, level, cropping.
///
/// Each edit changes only the fields it names (and the presence flags they need). Nothing
/// here changes a field that slice headers depend on, so slices are re-written unchanged.
public struct HeaderEdits: Sendable, Hashable {
    /// Sample aspect ratio `width:height` (Table E-1 index when one matches, else Extended_SAR).
    public var sampleAspectRatio: (width: UInt16, height: UInt16)? {
        get { sar.map { ($0[0], $0[1]) } }
        set { sar = newValue.map { [$0.width, $0.height] } }
    }
    private var sar: [UInt16]?
    /// Frame rate `numerator/denominator` frames per second (VUI timing info).
    public var frameRate: (numerator: UInt32, denominator: UInt32)? {
        get { rate.map { ($0[0], $0[1]) } }
        set { rate = newValue.map { [$0.numerator, $0.denominator] } }
    }
    private var rate: [UInt32]?
    /// The whole colour description to write (``ColorDescription``: the three code points and
    /// the range), as ``VUIParameters/colorDescription`` writes it; nil when not all four of
    /// ``colourPrimaries``, ``transferCharacteristics``, ``matrixCoefficients`` and
    /// ``fullRange`` are set. Setting it sets those four (nil clears them); set them one by one
    /// to change only some fields and keep the SPS's others.
    public var colorDescription: ColorDescription? {
        get {
            guard let colourPrimaries, let transferCharacteristics, let matrixCoefficients, let fullRange else { return nil }
            return ColorDescription(primaries: colourPrimaries, transferCharacteristics: transferCharacteristics,
                                    matrixCoefficients: matrixCoefficients, fullRange: fullRange)
        }
        set {
            colourPrimaries = newValue?.primaries
            transferCharacteristics = newValue?.transferCharacteristics
            matrixCoefficients = newValue?.matrixCoefficients
            fullRange = newValue?.fullRange
        }
    }
    /// `colour_primaries`.
    public var colourPrimaries: UInt8?
    /// `transfer_characteristics`.
    public var transferCharacteristics: UInt8?
    /// `matrix_coefficients`.
    public var matrixCoefficients: UInt8?
    /// `video_full_range_flag`.
    public var fullRange: Bool?
    /// `level_idc` (level 1b: 9 or 11 with `constraint_set3_flag`, see ``level1b``).
    public var levelIDC: UInt8?
    /// Set level 1b the way the profile requires (11 with `constraint_set3_flag` for Baseline,
    /// Main and Extended, 9 otherwise).
    public var level1b = false
    /// `constraint_set<n>_flag` values to write, by n (0...5; other keys are ignored). Set a
    /// flag only when the stream keeps the constraint it announces (Annex A): setting
    /// `constraint_set1_flag` on a Baseline stream without slice groups, arbitrary slice order
    /// or redundant pictures makes it Constrained Baseline.
    public var constraintSets: [Int: Bool] = [:]
    /// VUI `bitstream_restriction`: `max_num_reorder_frames` and `max_dec_frame_buffering`
    /// (E.2.1) written with `bitstream_restriction_flag` 1, the other restriction fields kept
    /// (or their inferred values when the SPS had none). Declare no more reordering than the
    /// stream has and decoders output each picture as soon as it is decoded.
    public var bitstreamRestriction: (maxNumReorderFrames: UInt32, maxDecFrameBuffering: UInt32)? {
        get { restriction.map { ($0[0], $0[1]) } }
        set { restriction = newValue.map { [$0.maxNumReorderFrames, $0.maxDecFrameBuffering] } }
    }
    private var restriction: [UInt32]?
    /// Cropping in luma samples: left, right, top, bottom; each must be a multiple of the
    /// crop unit (2 for 4:2:0 horizontally, and so on).
    public var crop: [Int]?
    /// Access unit delimiters: insert one before every access unit that lacks one, or remove all.
    public var accessUnitDelimiters: AUDEdit = .keep
    /// SEI messages of these payload types are removed (an SEI NAL unit left empty goes too);
    /// x264, for example, writes its settings in `user_data_unregistered`.
    public var removedSEIPayloadTypes: Set<SEIPayloadType> = []

    /// What to do with access unit delimiters.
    public enum AUDEdit: Sendable, Hashable {
        /// Leave them as they are.
        case keep
        /// Insert one where an access unit has none.
        case insert
        /// Remove every one.
        case remove
    }

    /// No edits.
    public init() {}

    /// True when no SPS field is edited.
    public var editsSPS: Bool {
        sar != nil || rate != nil || colourPrimaries != nil || transferCharacteristics != nil || matrixCoefficients != nil
            || fullRange != nil || levelIDC != nil || level1b || crop != nil || !constraintSets.isEmpty || restriction != nil
    }

    /// Applies the edits to `sps`.
    /// - Throws: ``H264Error/Code/invalidArgument`` for a crop that is not a multiple of the
    ///   crop unit or leaves no picture (7.4.2.1.1: the crop must be smaller than the coded
    ///   picture), an SPS whose own cropping leaves no picture (it is not re-written as if it
    ///   were valid), or a zero frame rate term.
    public func apply(to sps: inout SequenceParameterSet) throws(H264Error) {
        if let sar {
            let table: [(UInt16, UInt16)] = [(1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
                                             (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1)]
            sps.vuiParametersPresentFlag = true
            sps.vui.aspectRatioInfoPresentFlag = true
            if let i = table.firstIndex(where: { $0.0 == sar[0] && $0.1 == sar[1] }) {
                sps.vui.aspectRatioIDC = UInt8(i &+ 1)  // i < 16
            } else {
                sps.vui.aspectRatioIDC = 255
                sps.vui.sarWidth = sar[0]
                sps.vui.sarHeight = sar[1]
            }
        }
        if let rate {
            guard rate[0] > 0, rate[1] > 0, rate[0] <= UInt32.max / 2 else {
                throw H264Error.invalid(.invalidArgument, "frame rate \(rate[0])/\(rate[1]) cannot be coded")
            }
            sps.vuiParametersPresentFlag = true
            sps.vui.timingInfoPresentFlag = true
            sps.vui.numUnitsInTick = rate[1]
            sps.vui.timeScale = rate[0] &* 2  // checked above: no overflow
            sps.vui.fixedFrameRateFlag = true
        }
        if colourPrimaries != nil || transferCharacteristics != nil || matrixCoefficients != nil || fullRange != nil {
            // The fields not edited keep the SPS's values (2, 2, 2 and video range without them).
            var d = sps.colorDescription ?? .unspecified
            if let v = colourPrimaries { d.primaries = v }
            if let v = transferCharacteristics { d.transferCharacteristics = v }
            if let v = matrixCoefficients { d.matrixCoefficients = v }
            if let v = fullRange { d.fullRange = v }
            if !sps.vuiParametersPresentFlag { sps.vui.colorDescription = nil }  // inferred values, whatever the struct held
            sps.vuiParametersPresentFlag = true
            sps.vui.colorDescription = d
        }
        if level1b {
            let legacy = sps.profileIDC == 66 || sps.profileIDC == 77 || sps.profileIDC == 88
            sps.levelIDC = legacy ? 11 : 9
            if legacy { sps.constraintSetFlags[3] = true }
        } else if let levelIDC {
            sps.levelIDC = levelIDC
            if levelIDC == 11, sps.profileIDC == 66 || sps.profileIDC == 77 || sps.profileIDC == 88 {
                sps.constraintSetFlags[3] = false  // 11 means level 1.1 there only without it
            }
        }
        for (n, value) in constraintSets where n >= 0 && n < Swift.min(6, sps.constraintSetFlags.count) { sps.constraintSetFlags[n] = value }
        if let restriction {
            guard restriction[0] <= restriction[1], restriction[1] <= 16 else {
                throw H264Error.invalid(.invalidArgument, "max_num_reorder_frames \(restriction[0]) and max_dec_frame_buffering "
                                        + "\(restriction[1]) must satisfy reorder <= buffering <= 16")
            }
            sps.vuiParametersPresentFlag = true
            sps.vui.bitstreamRestrictionFlag = true
            sps.vui.maxNumReorderFrames = restriction[0]
            sps.vui.maxDecFrameBuffering = restriction[1]
        }
        if let crop {
            guard crop.count == 4, crop.allSatisfy({ $0 >= 0 && $0 <= 65536 }) else {
                throw H264Error.invalid(.invalidArgument, "crop needs four values in 0...65536")
            }
            let unit = sps.cropUnit
            guard crop[0] % unit.x == 0, crop[1] % unit.x == 0, crop[2] % unit.y == 0, crop[3] % unit.y == 0 else {
                throw H264Error.invalid(.invalidArgument, "crop must be a multiple of \(unit.x) horizontally and \(unit.y) vertically")
            }
            guard crop[0] &+ crop[1] < sps.codedWidth, crop[2] &+ crop[3] < sps.codedHeight else {
                throw H264Error.invalid(.invalidArgument, "crop \(crop[0]),\(crop[1]),\(crop[2]),\(crop[3]) (left, right, top, "
                                        + "bottom) leaves no picture of the \(sps.codedWidth)x\(sps.codedHeight) coded picture: "
                                        + "left + right must be below \(sps.codedWidth), top + bottom below \(sps.codedHeight)")
            }
            sps.frameCroppingFlag = crop.contains { $0 != 0 }
            sps.frameCropLeftOffset = UInt32(crop[0] / unit.x)
            sps.frameCropRightOffset = UInt32(crop[1] / unit.x)
            sps.frameCropTopOffset = UInt32(crop[2] / unit.y)
            sps.frameCropBottomOffset = UInt32(crop[3] / unit.y)
        }
        if editsSPS, crop == nil, sps.frameCroppingFlag, sps.width == 0 || sps.height == 0 {
            throw H264Error.invalid(.invalidArgument, "SPS \(sps.id): its cropping (frame_crop offsets \(sps.frameCropLeftOffset), "
                                    + "\(sps.frameCropRightOffset), \(sps.frameCropTopOffset), \(sps.frameCropBottomOffset) in units "
                                    + "of \(sps.cropUnit.x)x\(sps.cropUnit.y)) leaves no picture of the "
                                    + "\(sps.codedWidth)x\(sps.codedHeight) coded picture (7.4.2.1.1); a crop edit replaces it")
        }
        // The edits change presence flags (fixed_frame_rate_flag, frame_cropping_flag): the
        // values inferred from them follow.
        try sps.setInferredValues(context: EmptySyntaxContext())
    }
}
