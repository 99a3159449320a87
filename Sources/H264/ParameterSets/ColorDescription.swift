/// A video signal's colour description: the code points of ITU-T H.264 Tables E-3 to E-5 (the
/// same as ISO/IEC 23091-2, which MP4's `colr` `nclx` box and other codecs use) and the range
/// of its YCbCr code values.
///
/// One type for every place a colour description travels: the SPS's VUI
/// (``VUIParameters/colorDescription``), the header editor (``HeaderEdits/colorDescription``),
/// an encoder's configuration and an MP4 sample entry's `colr` box. Code point 2 is
/// "unspecified" in all three tables, so ``unspecified`` says nothing about the colour.
///
/// ```swift
/// var vui = VUIParameters()
/// vui.colorDescription = .bt709              // writes video_signal_type and colour_description
/// print(vui.colorDescription!)               // primaries 1, transfer 1, matrix 1, limited range
/// ```
public struct ColorDescription: Hashable, Sendable, CustomStringConvertible {
    /// `colour_primaries` (Table E-3): 1 BT.709, 2 unspecified, 5 BT.470BG (BT.601 625-line),
    /// 6 SMPTE 170M (BT.601 525-line), 9 BT.2020.
    public var primaries: UInt8
    /// `transfer_characteristics` (Table E-4): 1 BT.709, 2 unspecified, 6 SMPTE 170M (BT.601),
    /// 13 sRGB (IEC 61966-2-1), 14 BT.2020 10-bit, 16 SMPTE ST 2084 (PQ), 18 ARIB STD-B67 (HLG).
    public var transferCharacteristics: UInt8
    /// `matrix_coefficients` (Table E-5): 0 GBR (identity), 1 BT.709, 2 unspecified,
    /// 5 BT.470BG (BT.601 625-line), 6 SMPTE 170M (BT.601 525-line; the same matrix as 5),
    /// 9 BT.2020 non-constant luminance.
    public var matrixCoefficients: UInt8
    /// `video_full_range_flag`: true when the samples use all of 0...255 ("PC" or "full"
    /// range), false for the video range (Y in 16...235, Cb and Cr in 16...240).
    public var fullRange: Bool

    /// Creates a colour description; a code point not given is 2, "unspecified".
    public init(primaries: UInt8 = 2, transferCharacteristics: UInt8 = 2, matrixCoefficients: UInt8 = 2, fullRange: Bool = false) {
        self.primaries = primaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.fullRange = fullRange
    }

    /// Nothing specified: code points 2, 2, 2, video range (what a decoder infers without a
    /// colour description).
    public static let unspecified = ColorDescription()
    /// HD video (ITU-R BT.709): primaries, transfer and matrix 1, video range.
    public static let bt709 = ColorDescription(primaries: 1, transferCharacteristics: 1, matrixCoefficients: 1)
    /// SD video, 525-line systems (NTSC; ITU-R BT.601 525 as SMPTE 170M): primaries, transfer
    /// and matrix 6, video range. For 625-line (PAL) sources use ``bt601PAL``; the two differ in
    /// primaries only (matrices 5 and 6 are the same).
    public static let bt601 = ColorDescription(primaries: 6, transferCharacteristics: 6, matrixCoefficients: 6)
    /// SD video, 625-line systems (PAL/SECAM; ITU-R BT.601 625 as BT.470BG): primaries 5,
    /// transfer 6, matrix 5, video range, as FFmpeg tags such sources.
    public static let bt601PAL = ColorDescription(primaries: 5, transferCharacteristics: 6, matrixCoefficients: 5)
    /// UHD standard dynamic range (ITU-R BT.2020, non-constant luminance): primaries 9,
    /// transfer 14, matrix 9, video range. HDR uses transfer 16 (PQ) or 18 (HLG) instead.
    public static let bt2020 = ColorDescription(primaries: 9, transferCharacteristics: 14, matrixCoefficients: 9)

    /// True when all three code points are 2 ("unspecified"): a VUI then needs no
    /// `colour_description` (only the range, when it is full).
    public var isUnspecified: Bool { primaries == 2 && transferCharacteristics == 2 && matrixCoefficients == 2 }

    /// `primaries 1, transfer 1, matrix 1, limited range` (the code points, then the range).
    public var description: String {
        "primaries \(primaries), transfer \(transferCharacteristics), matrix \(matrixCoefficients), \(fullRange ? "full" : "limited") range"
    }
}

extension VUIParameters {
    /// The colour description this VUI carries: nil when `video_signal_type_present_flag` is
    /// 0; otherwise `video_full_range_flag` and the three code points (2, 2, 2 when
    /// `colour_description_present_flag` is 0, as E.2.1 infers them).
    ///
    /// Setting a value sets `video_signal_type_present_flag` (keeping `video_format`), the range,
    /// and the code points with `colour_description_present_flag` 1 unless all three are 2 and
    /// the flag was 0 (so a VUI read and set back is unchanged). Setting nil clears both flags
    /// and restores the inferred values (`video_format` 5, video range, 2, 2, 2). An SPS writes
    /// its VUI only with `vui_parameters_present_flag` 1: set that too (``HeaderEdits`` does).
    public var colorDescription: ColorDescription? {
        get {
            guard videoSignalTypePresentFlag else { return nil }
            return ColorDescription(primaries: colourPrimaries, transferCharacteristics: transferCharacteristics,
                                    matrixCoefficients: matrixCoefficients, fullRange: videoFullRangeFlag)
        }
        set {
            guard let d = newValue else {
                videoSignalTypePresentFlag = false
                colourDescriptionPresentFlag = false
                videoFormat = 5
                videoFullRangeFlag = false
                colourPrimaries = 2
                transferCharacteristics = 2
                matrixCoefficients = 2
                return
            }
            videoSignalTypePresentFlag = true
            videoFullRangeFlag = d.fullRange
            colourDescriptionPresentFlag = colourDescriptionPresentFlag || !d.isUnspecified
            colourPrimaries = d.primaries
            transferCharacteristics = d.transferCharacteristics
            matrixCoefficients = d.matrixCoefficients
        }
    }
}

extension SequenceParameterSet {
    /// The colour description of the SPS's VUI (``VUIParameters/colorDescription``); nil when
    /// the SPS has no VUI or its VUI no video signal type.
    public var colorDescription: ColorDescription? {
        vuiParametersPresentFlag ? vui.colorDescription : nil
    }
}
