import H264

/// The RGB <-> YCbCr matrix of a colour space (`matrix_coefficients`, ITU-T H.264 Table E-5).
public enum ColorMatrix: Sendable, Hashable, CaseIterable {
    /// ITU-R BT.601 (SD video, JPEG): Kr = 0.299, Kb = 0.114. `matrix_coefficients` 6.
    case bt601
    /// ITU-R BT.709 (HD video): Kr = 0.2126, Kb = 0.0722. `matrix_coefficients` 1.
    case bt709

    /// The red weight of luma.
    public var kr: Double { self == .bt601 ? 0.299 : 0.2126 }
    /// The blue weight of luma.
    public var kb: Double { self == .bt601 ? 0.114 : 0.0722 }
}

/// The code values YCbCr samples use (`video_full_range_flag`, ITU-T H.264 E.2.1).
public enum ColorRange: Sendable, Hashable, CaseIterable {
    /// "Video" or "TV" range: Y in 16...235, Cb and Cr in 16...240.
    case limited
    /// "Full" or "PC" range: all of 0...255.
    case full
}

extension ColorDescription {
    /// The RGB -> YCbCr conversion for this description: BT.709 for `matrix_coefficients` 1,
    /// BT.601 otherwise (5 and 6 are BT.601; the others, 2 "unspecified" among them, fall back
    /// to it); full range with `video_full_range_flag`.
    public var conversion: ColorConversion {
        ColorConversion(matrix: matrixCoefficients == 1 ? .bt709 : .bt601, range: fullRange ? .full : .limited)
    }
}
