import H264
import H264Video

extension X264Encoder {
    /// The colour description of the VUI with `Int` code points: replaced by the core's
    /// `ColorDescription` (`UInt8` code points, the type the VUI, the header editor and MP4's
    /// `colr` box share), which ``Options/colorDescription`` takes.
    @available(*, deprecated, message: "use ColorDescription (module H264) and Options.colorDescription")
    public struct ColorDescription: Hashable, Sendable {
        /// `colour_primaries` (1 BT.709, 5 BT.470BG, 6 SMPTE 170M, 9 BT.2020).
        public var primaries: Int
        /// `transfer_characteristics` (1 BT.709, 6 SMPTE 170M, 13 sRGB, 16 PQ, 18 HLG).
        public var transfer: Int
        /// `matrix_coefficients` (1 BT.709, 5 BT.470BG, 6 SMPTE 170M, 9 BT.2020 NCL).
        public var matrix: Int
        /// `video_full_range_flag`.
        public var fullRange: Bool

        /// Creates a colour description.
        public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool = false) {
            self.primaries = primaries
            self.transfer = transfer
            self.matrix = matrix
            self.fullRange = fullRange
        }

        /// The same description with `Int` code points.
        public init(_ description: H264.ColorDescription) {
            self.init(primaries: Int(description.primaries), transfer: Int(description.transferCharacteristics),
                      matrix: Int(description.matrixCoefficients), fullRange: description.fullRange)
        }

        /// The core's description; each code point clamped to 0...255 (the 8 bits the VUI codes).
        public var colorDescription: H264.ColorDescription {
            H264.ColorDescription(primaries: UInt8(clamping: primaries), transferCharacteristics: UInt8(clamping: transfer),
                                  matrixCoefficients: UInt8(clamping: matrix), fullRange: fullRange)
        }

        /// HD video: BT.709 primaries, transfer and matrix, limited range.
        public static let bt709 = ColorDescription(primaries: 1, transfer: 1, matrix: 1)
        /// SD video: SMPTE 170M (BT.601 525) primaries, transfer and matrix, limited range.
        public static let bt601 = ColorDescription(primaries: 6, transfer: 6, matrix: 6)

        /// The conversion used for RGB input: BT.709 for matrix 1, BT.601 otherwise.
        public var conversion: ColorConversion { colorDescription.conversion }
    }
}

extension X264Encoder.Options {
    /// The colour description with `Int` code points: ``colorDescription`` seen through the
    /// deprecated ``X264Encoder/ColorDescription``. A code point outside 0...255 leaves
    /// ``colorDescription`` nil and makes the encoder's creation throw
    /// `X264Error.Code.invalidArgument`, as before.
    @available(*, deprecated, renamed: "colorDescription")
    public var color: X264Encoder.ColorDescription? {
        get { colorDescription.map(X264Encoder.ColorDescription.init) }
        set {
            guard let c = newValue else { colorDescription = nil; return }
            guard [c.primaries, c.transfer, c.matrix].allSatisfy((0...255).contains) else {
                colorDescription = nil  // clears rejectedColor
                rejectedColor = "\(c.primaries), \(c.transfer), \(c.matrix)"
                return
            }
            colorDescription = c.colorDescription
        }
    }
}
