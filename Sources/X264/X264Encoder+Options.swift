import H264
import H264Video

extension X264Encoder {
    /// How an ``X264Encoder`` encodes, in the vocabulary of `VTCompressionSession` properties.
    public struct Options: Sendable {
        /// Frame width in pixels; must be even for 4:2:0 input, and for 4:2:2.
        public var width: Int
        /// Frame height in pixels; must be even for 4:2:0 input.
        public var height: Int
        /// The pixel format of the frames passed to ``X264Encoder/encode(_:options:)``. BGRA and
        /// ARGB are converted to I420 with the matrix and range of ``color`` (BT.601 limited
        /// range when nil).
        public var pixelFormat: PixelFormat = .i420
        /// The frame rate the frames are expected at (`ExpectedFrameRate`), frames per second:
        /// 30 unless set. 29.97 and the other NTSC rates map to n*1000/1001.
        ///
        /// As VideoToolbox's, a hint: x264's rate control spends its bits per frame by it
        /// (an average bitrate is this rate times the bits per frame). What depends on time
        /// follows the frames' timestamps instead:
        ///
        /// - ``maxKeyframeIntervalDuration`` is measured on the frames' presentation times: a
        ///   keyframe is forced once one is due, at any frame rate (a 15 fps capture asking
        ///   for 2 s gets keyframes 2 s apart, not 60 frames apart).
        /// - The SPS's VUI timing (`timing_info_present_flag`, `num_units_in_tick`,
        ///   `time_scale`, `fixed_frame_rate_flag`) claims this rate only when it was set: the
        ///   SPS is written when the encoder opens, before any frame says what the rate is,
        ///   so an encoder left at the default writes no timing info (a player times the
        ///   pictures by their container timestamps, as it does VideoToolbox's). A
        ///   constant bitrate (NAL HRD) and ``pictureTiming`` need a clock tick in the SPS:
        ///   they write this rate's, so set it to the capture's rate with them.
        public var expectedFrameRate: Double {
            get { explicitFrameRate ?? 30 }
            set { explicitFrameRate = newValue }
        }
        /// ``expectedFrameRate`` when it was set, nil when it is the default.
        var explicitFrameRate: Double?
        /// Bitrate or quality target.
        public var rateControl: RateControl = .averageBitrate(2_000_000)
        /// Hard limits on bytes per window (`DataRateLimits`): no window of a limit's length
        /// ever holds more than its bytes. Mapped to x264's VBV (see ``X264Encoder``).
        public var dataRateLimits: [DataRateLimit] = []
        /// The peak rate of a ``RateControl/variableBitrate(_:)`` encoder's VBV, bits per
        /// second (`VBVMaxBitRate`); nil for no VBV.
        public var vbvMaxBitrate: Int?
        /// The VBV buffer of a constant or variable bitrate, in seconds of its rate
        /// (`VBVBufferDuration`); nil: 2.5 seconds, as VideoToolbox.
        public var vbvBufferDuration: Double?
        /// How full the VBV buffer is at the start, percent (`VBVInitialDelayPercentage`);
        /// nil: 90, as VideoToolbox and x264.
        public var vbvInitialDelayPercentage: Double?
        /// The H.264 profile (`ProfileLevel`).
        public var profile: Profile = .high
        /// The level (Table A-1) the stream signals and keeps to; nil (the default): chosen by
        /// x264 from the size, frame rate and bitrate. `ProfileLevel.Level("3.1")` parses one.
        public var level: ProfileLevel.Level?
        /// Low latency (`RealTime`): x264's `zerolatency` tune (no lookahead, no frame delay).
        public var realTime = false
        /// Inter prediction (`AllowTemporalCompression`); false codes every frame as an IDR
        /// picture.
        public var allowTemporalCompression = true
        /// B-frames (`AllowFrameReordering`).
        public var allowFrameReordering = true
        /// Keyframes after the first as I pictures with a recovery point SEI that B-frames
        /// before them may reference across (`AllowOpenGOP`); false: every keyframe is an IDR.
        public var allowOpenGOP = false
        /// The most frames the encoder may hold before the access unit of a frame comes out
        /// (`MaxFrameDelayCount`); nil for no bound. Frame threads (at most 1 + n/4; sliced
        /// threads below that), then B-frames and the lookahead are cut to fit.
        public var maxFrameDelayCount: Int?
        /// Frames of rate-control lookahead (`SuggestedLookAheadFrameCount`), 0...250; nil: the
        /// preset's.
        public var lookaheadFrameCount: Int?
        /// The most reference frames, `max_num_ref_frames` of the SPS (`ReferenceBufferCount`),
        /// 1...16; nil: the preset's. Below 4 B-frames are not used as references, below 2 there
        /// are no B-frames.
        public var referenceFrameCount: Int?
        /// CAVLC or CABAC (`H264EntropyMode`); nil: the preset's (CABAC except `ultrafast`
        /// and `fastdecode`), CAVLC in the Baseline profile.
        public var entropyMode: EntropyMode?
        /// The lowest QP any frame may use (`MinAllowedFrameQP`), 0...51.
        public var minFrameQP: Int?
        /// The highest QP any frame may use (`MaxAllowedFrameQP`), 0...51.
        public var maxFrameQP: Int?
        /// Most consecutive B-frames when reordering is allowed (0...16); nil: the preset's.
        public var maxConsecutiveBFrames: Int?
        /// Most frames from one keyframe to the next (`MaxKeyFrameInterval`); nil: x264's 250.
        public var maxKeyframeInterval: Int?
        /// Most seconds from one keyframe to the next (`MaxKeyFrameIntervalDuration`),
        /// measured on the frames' presentation times: a frame whose `pts` is this long after
        /// the last keyframe's (less half a frame, for timestamp jitter) is made a keyframe, an
        /// IDR picture (an I picture with a recovery point with ``allowOpenGOP``). With
        /// ``maxKeyframeInterval``, whichever comes first applies. With
        /// ``periodicIntraRefresh`` the refresh cycle is counted in frames, this many seconds
        /// at ``expectedFrameRate``.
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
        /// Periodic intra refresh instead of IDR pictures (for low-latency streaming): the
        /// first picture is an IDR, every later one a P picture, and a column of intra
        /// macroblocks sweeps across the picture once per refresh cycle. Each cycle starts with
        /// a recovery point SEI (`isRandomAccessPoint` true, `isSyncSample` false) whose
        /// recovery frame count covers the sweep: a decoder that starts there shows correct
        /// pictures once it has passed.
        ///
        /// - A cycle starts at most ``maxKeyframeInterval`` frames (or
        ///   ``maxKeyframeIntervalDuration`` seconds, whichever is fewer) after the last one:
        ///   the interval bounds the refresh period rather than the distance between IDRs.
        /// - Scene cuts do not insert I or IDR pictures (x264's scene-cut detection is off):
        ///   the refresh recovers from a change of scene, and the pictures keep an even size.
        /// - `FrameEncodeOptions.forceKeyframe` still makes that frame an IDR picture (x264's
        ///   `X264_TYPE_IDR`), and the next cycle is counted from it.
        /// - x264 uses one reference frame and no open GOP with intra refresh, and turns intra
        ///   refresh off when ``allowTemporalCompression`` is false (every picture an IDR).
        ///
        /// B-frames may be combined with it: a cycle then starts at the first P picture at or
        /// after the interval, up to ``maxConsecutiveBFrames`` frames later. Streaming setups
        /// usually turn them off (``maxConsecutiveBFrames`` 0 or ``allowFrameReordering`` false).
        /// ``X264Encoder/requestIntraRefresh()`` starts a cycle on demand (a receiver's picture
        /// loss) instead of forcing an IDR picture.
        public var periodicIntraRefresh = false
        /// Access unit delimiter NAL units before each access unit.
        public var accessUnitDelimiters = false
        /// SPS and PPS in band, before every IDR picture. Off by default: the parameter sets
        /// travel out of band (``X264Encoder/parameterSets``, the avcC), as VideoToolbox's
        /// samples carry none; an Annex-B writer puts them before each IDR with
        /// `annexBSample(parameterSets: encoder.parameterSets)`. Turn it on for a stream that
        /// must carry them itself (x264's `--repeat-headers`, its CLI's default).
        public var repeatParameterSets = false
        /// Pixel aspect ratio written in the VUI (`sar_width`:`sar_height`); nil for unspecified.
        public var pixelAspectRatio: (width: Int, height: Int)?
        /// Interlaced coding (PAFF/MBAFF) with this field order; nil for progressive frames.
        public var fieldOrder: FieldOrder?
        /// Colour description written in the VUI (`ColorPrimaries`, `TransferFunction`,
        /// `YCbCrMatrix`), and used for BGRA/ARGB conversion.
        public var color: ColorDescription?
        /// A mastering display colour volume SEI message on every IDR picture
        /// (`MasteringDisplayColorVolume`); primaries in the message's order (x264 writes
        /// green, blue, red).
        public var masteringDisplayColourVolume: SEIMasteringDisplayColourVolume?
        /// A content light level SEI message on every IDR picture (`ContentLightLevelInfo`).
        public var contentLightLevelInfo: SEIContentLightLevelInfo?
        /// A pic_timing SEI message on every picture, with `pic_struct_present_flag` in the SPS
        /// (x264's `--pic-struct`): needed for frames that carry a time code
        /// (`FrameEncodeOptions.seiMessages` with a pic_timing, see ``X264Encoder``).
        public var pictureTiming = false
        /// This stream continues one encoded before (`MoreFramesBeforeStart`) or is continued
        /// by one encoded after (`MoreFramesAfterEnd`): x264's `stitchable`, parameter sets
        /// that do not depend on this stream's rate control (`pic_init_qp` 26), so segments
        /// encoded apart can be joined.
        public var moreFramesBeforeStart = false
        /// See ``moreFramesBeforeStart``.
        public var moreFramesAfterEnd = false
        /// Where x264's log messages go; nil drops them (errors are still kept for the
        /// message of a failed open).
        public var logHandler: (@Sendable (LogLevel, String) -> Void)?
        /// The most verbose level passed to ``logHandler``.
        public var logLevel: LogLevel = .warning

        /// Creates the options for `width` x `height` frames; every other setting has a default.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// How slice data is entropy coded (`H264EntropyMode`).
    public enum EntropyMode: Hashable, Sendable {
        /// Context-adaptive variable-length coding (`entropy_coding_mode_flag` 0): any profile.
        case cavlc
        /// Context-adaptive binary arithmetic coding (`entropy_coding_mode_flag` 1): Main
        /// profile and above; smaller output, slower decoding.
        case cabac
    }

    /// Which field of an interlaced frame comes first in time.
    public enum FieldOrder: Hashable, Sendable {
        /// Top field first.
        case topFieldFirst
        /// Bottom field first.
        case bottomFieldFirst
    }

    /// A bitrate or quality target.
    public enum RateControl: Hashable, Sendable {
        /// Average bitrate in bits per second (`AverageBitRate`): a long-term average, not a
        /// limit. x264's one-pass ABR, as the x264 CLI's `--bitrate` (see ``X264Encoder``).
        case averageBitrate(Int)
        /// Constant bitrate in bits per second (`ConstantBitRate`): x264's CBR with NAL HRD
        /// parameters and filler data, so every window of the VBV's buffer carries the rate.
        case constantBitrate(Int)
        /// Variable bitrate in bits per second (`VariableBitRate`): ABR with the VBV of
        /// ``Options/vbvMaxBitrate`` and ``Options/vbvBufferDuration``, as the
        /// x264 CLI's `--bitrate --vbv-maxrate --vbv-bufsize`.
        case variableBitrate(Int)
        /// Constant rate factor, 0 (lossless) ... 51: constant perceived quality.
        case constantQuality(Double)
        /// Constant quantiser, 0 (lossless) ... 51.
        case constantQP(Int)

        /// VideoToolbox's `Quality`, 0.0 ... 1.0, which fixes the quantiser: constant QP
        /// `round(51 * (1 - quality))` (0.25 low: 38, 0.5 normal: 26, 0.75 high: 13, 1.0
        /// lossless, which needs High 4:4:4).
        public static func quality(_ quality: Double) -> RateControl {
            .constantQP(Int((51 * (1 - Swift.min(1, Swift.max(0, quality)))).rounded()))
        }

        /// VideoToolbox's `ConstantQualityFactor`, 0.0 ... 1.0, consistent visual quality:
        /// constant rate factor `51 * (1 - factor)`.
        public static func constantQualityFactor(_ factor: Double) -> RateControl {
            .constantQuality(51 * (1 - Swift.min(1, Swift.max(0, factor))))
        }
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

        /// The `profile_idc` of the profile.
        public var profileIDC: Int {
            switch self {
            case .baseline: return 66
            case .main: return 77
            case .high: return 100
            case .high10: return 110
            case .high422: return 122
            case .high444: return 244
            }
        }

        var allowsChroma: ChromaFormat {
            switch self {
            case .baseline, .main, .high, .high10: return .yuv420
            case .high422: return .yuv422
            case .high444: return .yuv444
            }
        }
    }

    /// The level: the core's `ProfileLevel.Level`, nil for automatic.
    @available(*, deprecated, message: "the level is the core's ProfileLevel.Level, nil for automatic: level = ProfileLevel.Level(\"3.1\")")
    public typealias Level = ProfileLevel.Level?

    /// x264's presets, fastest to slowest.
    public enum Preset: String, Hashable, Sendable, CaseIterable {
        /// Fastest: no CABAC, no B-frames, no deblocking; large files.
        case ultrafast
        /// Very fast, few analysis options.
        case superfast
        /// A common choice for live encoding.
        case veryfast
        /// Faster than the default.
        case faster
        /// Slightly faster than the default.
        case fast
        /// x264's default.
        case medium
        /// Better compression, slower.
        case slow
        /// Better still, slower still.
        case slower
        /// Close to the best compression.
        case veryslow
        /// Exhaustive search; for tests, not production.
        case placebo
    }

    /// x264's tunes.
    public enum Tune: String, Hashable, Sendable, CaseIterable {
        /// Live-action film.
        case film
        /// Cartoons and flat animation.
        case animation
        /// Keeps film grain.
        case grain
        /// Slideshows and still pictures.
        case stillImage = "stillimage"
        /// Optimises for PSNR (no psychovisual tweaks).
        case psnr
        /// Optimises for SSIM.
        case ssim
        /// Easier decoding: no CABAC, no deblocking, no weighted prediction.
        case fastDecode = "fastdecode"
        /// No lookahead and no frame delay (what ``Options/realTime`` selects).
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
        /// The encoder cannot go on (`X264_LOG_ERROR`).
        case error = 0
        /// Something was adjusted or looks wrong (`X264_LOG_WARNING`).
        case warning = 1
        /// Settings and statistics (`X264_LOG_INFO`).
        case info = 2
        /// Per-frame details (`X264_LOG_DEBUG`).
        case debug = 3
        public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
    }
}

extension X264Encoder {
    /// How an encoder encodes, now ``Options``.
    @available(*, deprecated, renamed: "Options")
    public typealias Configuration = Options
}
