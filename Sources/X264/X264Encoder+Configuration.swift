import H264

extension X264Encoder {
    /// How an ``X264Encoder`` encodes, in the vocabulary of `VTCompressionSession` properties.
    public struct Configuration: Sendable {
        /// Frame width in pixels; must be even for 4:2:0 input, and for 4:2:2.
        public var width: Int
        /// Frame height in pixels; must be even for 4:2:0 input.
        public var height: Int
        /// The pixel format of the frames passed to ``X264Encoder/encode(_:options:)``. BGRA and
        /// ARGB are converted to I420 with the matrix and range of ``color`` (BT.601 limited
        /// range when nil).
        public var pixelFormat: PixelFormat = .i420
        /// The expected frame rate (`ExpectedFrameRate`), used by rate control and for the
        /// keyframe interval in seconds. 29.97 and the other NTSC rates map to n*1000/1001.
        public var expectedFrameRate: Double = 30
        /// Bitrate or quality target.
        public var rateControl: RateControl = .averageBitrate(2_000_000)
        /// Hard limits on bytes per window (`DataRateLimits`), mapped to the VBV.
        public var dataRateLimits: [DataRateLimit] = []
        /// The H.264 profile (`ProfileLevel`).
        public var profile: Profile = .high
        /// The level: automatic (from size, rate and bitrate) or a given `level_idc`.
        public var level: Level = .auto
        /// Low latency (`RealTime`): x264's `zerolatency` tune (no lookahead, no frame delay).
        public var realTime = false
        /// B-frames (`AllowFrameReordering`).
        public var allowFrameReordering = true
        /// Most frames from one keyframe to the next (`MaxKeyFrameInterval`); nil: x264's 250.
        public var maxKeyframeInterval: Int?
        /// Most seconds from one keyframe to the next (`MaxKeyFrameIntervalDuration`). With
        /// ``maxKeyframeInterval``, whichever comes first applies.
        public var maxKeyframeIntervalDuration: Double?
        /// Speed/quality trade-off.
        public var preset: Preset = .medium
        /// Content tuning.
        public var tune: Tune?
        /// Encoder threads; 0 lets x264 choose.
        public var threads = 0
        /// Slices per picture; 0 lets x264 choose (one, or one per thread with sliced threads).
        public var slices = 0
        /// Most bytes per slice (for RTP packetisation); nil for no limit.
        public var maxSliceSize: Int?
        /// Periodic intra refresh instead of IDR pictures (for low-latency streaming).
        public var periodicIntraRefresh = false
        /// Access unit delimiter NAL units before each access unit.
        public var accessUnitDelimiters = false
        /// SPS and PPS before every IDR picture (needed for Annex-B streams that are joined or
        /// cut; an MP4 writer can turn it off and use the avcC).
        public var repeatParameterSets = true
        /// Colour description written in the VUI, and used for BGRA/ARGB conversion.
        public var color: ColorDescription?
        /// Where x264's log messages go; nil drops them (errors are still kept for the
        /// message of a failed open).
        public var logHandler: (@Sendable (LogLevel, String) -> Void)?
        /// The most verbose level passed to ``logHandler``.
        public var logLevel: LogLevel = .warning

        /// Creates a configuration for `width` x `height` frames; every other setting has a default.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// A bitrate or quality target.
    public enum RateControl: Hashable, Sendable {
        /// Average bitrate in bits per second (`AverageBitRate`): x264's ABR, always with a
        /// VBV (see ``X264Encoder`` on why).
        case averageBitrate(Int)
        /// Constant rate factor, 0 (lossless) ... 51: constant perceived quality (`Quality`).
        case constantQuality(Double)
        /// Constant quantiser, 0 (lossless) ... 51.
        case constantQP(Int)
    }

    /// H.264 profiles (`profile_idc`) x264 can produce.
    public enum Profile: String, Hashable, Sendable, CaseIterable {
        /// Constrained baseline (66): no B-frames, no CABAC, 4:2:0 8-bit.
        case baseline
        /// Main (77): 4:2:0 8-bit.
        case main
        /// High (100): 4:2:0 8-bit with 8x8 transforms.
        case high
        /// High 10 (110): 4:2:0 at 10 bits; 8-bit input is scaled up.
        case high10
        /// High 4:2:2 (122): up to 4:2:2.
        case high422
        /// High 4:4:4 Predictive (244): up to 4:4:4, lossless allowed.
        case high444

        var allowsChroma: ChromaFormat {
            switch self {
            case .baseline, .main, .high, .high10: return .yuv420
            case .high422: return .yuv422
            case .high444: return .yuv444
            }
        }
    }

    /// The level (`level_idc`).
    public enum Level: Hashable, Sendable {
        /// Chosen by x264 from the size, frame rate and bitrate.
        case auto
        /// A given `level_idc`: 10 times the level number (31 for level 3.1; 9 for 1b).
        case idc(Int)

        /// Parses `3.1`, `31`, `1b` or `auto`; nil for anything else.
        public init?(_ text: String) {
            if text == "auto" { self = .auto; return }
            if text == "1b" { self = .idc(9); return }
            let valid: Set<Int> = [9, 10, 11, 12, 13, 20, 21, 22, 30, 31, 32, 40, 41, 42, 50, 51, 52, 60, 61, 62]
            if let d = Double(text), d < 10, let v = Optional(Int((d * 10).rounded())), valid.contains(v) { self = .idc(v); return }
            if let v = Int(text), valid.contains(v) { self = .idc(v); return }
            return nil
        }
    }

    /// x264's presets, fastest to slowest.
    public enum Preset: String, Hashable, Sendable, CaseIterable {
        case ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo
    }

    /// x264's tunes.
    public enum Tune: String, Hashable, Sendable, CaseIterable {
        case film, animation, grain
        case stillImage = "stillimage"
        case psnr, ssim
        case fastDecode = "fastdecode"
        case zeroLatency = "zerolatency"
    }

    /// The colour description of the VUI (ITU-T H.264 E.2.1, Tables E-3 to E-5).
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

        /// HD video: BT.709 primaries, transfer and matrix, limited range.
        public static let bt709 = ColorDescription(primaries: 1, transfer: 1, matrix: 1)
        /// SD video: SMPTE 170M (BT.601 525) primaries, transfer and matrix, limited range.
        public static let bt601 = ColorDescription(primaries: 6, transfer: 6, matrix: 6)

        /// The conversion used for RGB input: BT.709 for matrix 1, BT.601 otherwise.
        public var conversion: ColorConversion {
            ColorConversion(matrix: matrix == 1 ? .bt709 : .bt601, range: fullRange ? .full : .limited)
        }
    }

    /// Severity of an x264 log message.
    public enum LogLevel: Int, Comparable, Hashable, Sendable {
        case error = 0, warning = 1, info = 2, debug = 3
        public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
    }
}
