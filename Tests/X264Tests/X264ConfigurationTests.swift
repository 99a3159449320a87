import Testing
import H264
@testable import X264
import TestSupport

@Suite struct X264ConfigurationTests {
    struct Bad: Sendable, CustomTestStringConvertible {
        let name: String
        let code: X264Error.Code
        let edit: @Sendable (inout X264Encoder.Options) -> Void
        var testDescription: String { name }
    }

    static let bad: [Bad] = [
        Bad(name: "zero width", code: .invalidArgument) { $0.width = 0 },
        Bad(name: "negative height", code: .invalidArgument) { $0.height = -96 },
        Bad(name: "too large", code: .invalidArgument) { $0.width = 1 << 17 },
        Bad(name: "odd width 4:2:0", code: .invalidArgument) { $0.width = 161 },
        Bad(name: "odd height NV12", code: .invalidArgument) { $0.height = 95; $0.pixelFormat = .nv12 },
        Bad(name: "odd height BGRA", code: .invalidArgument) { $0.height = 95; $0.pixelFormat = .bgra },
        Bad(name: "odd width 4:2:2", code: .invalidArgument) { $0.width = 161; $0.pixelFormat = .i422; $0.profile = .high422 },
        Bad(name: "zero frame rate", code: .invalidArgument) { $0.expectedFrameRate = 0 },
        Bad(name: "negative frame rate", code: .invalidArgument) { $0.expectedFrameRate = -30 },
        Bad(name: "NaN frame rate", code: .invalidArgument) { $0.expectedFrameRate = .nan },
        Bad(name: "zero bitrate", code: .invalidArgument) { $0.rateControl = .averageBitrate(0) },
        Bad(name: "negative bitrate", code: .invalidArgument) { $0.rateControl = .averageBitrate(-5) },
        Bad(name: "CRF out of range", code: .invalidArgument) { $0.rateControl = .constantQuality(60) },
        Bad(name: "QP out of range", code: .invalidArgument) { $0.rateControl = .constantQP(-1) },
        Bad(name: "zero data rate limit", code: .invalidArgument) { $0.dataRateLimits = [DataRateLimit(bytes: 0, seconds: 1)] },
        Bad(name: "constant QP with a data rate limit", code: .unsupported) {
            $0.rateControl = .constantQP(30); $0.dataRateLimits = [DataRateLimit(bytes: 100_000, seconds: 1)]
        },
        Bad(name: "zero constant bitrate", code: .invalidArgument) { $0.rateControl = .constantBitrate(0) },
        Bad(name: "VBV max bitrate too small", code: .invalidArgument) { $0.rateControl = .variableBitrate(500_000); $0.vbvMaxBitrate = 10 },
        Bad(name: "zero VBV buffer duration", code: .invalidArgument) { $0.vbvBufferDuration = 0 },
        Bad(name: "VBV initial delay above 100%", code: .invalidArgument) { $0.vbvInitialDelayPercentage = 101 },
        Bad(name: "negative data rate window", code: .invalidArgument) { $0.dataRateLimits = [DataRateLimit(bytes: 100_000, seconds: -1)] },
        Bad(name: "zero keyframe interval", code: .invalidArgument) { $0.maxKeyframeInterval = 0 },
        Bad(name: "negative keyframe duration", code: .invalidArgument) { $0.maxKeyframeIntervalDuration = -2 },
        Bad(name: "negative threads", code: .invalidArgument) { $0.threads = -1 },
        Bad(name: "too many B-frames", code: .invalidArgument) { $0.maxConsecutiveBFrames = 17 },
        Bad(name: "zero max slice size", code: .invalidArgument) { $0.maxSliceSize = 0 },
        Bad(name: "bad level", code: .invalidArgument) { $0.level = ProfileLevel.Level(levelIDC: 70) },
        Bad(name: "main with 4:4:4", code: .unsupported) { $0.pixelFormat = .i444; $0.profile = .main },
        Bad(name: "high with 4:2:2", code: .unsupported) { $0.pixelFormat = .i422 },
        Bad(name: "high422 with 4:4:4", code: .unsupported) { $0.pixelFormat = .i444; $0.profile = .high422 },
        Bad(name: "baseline with 4:2:2", code: .unsupported) { $0.pixelFormat = .i422; $0.profile = .baseline },
        Bad(name: "lossless in high", code: .unsupported) { $0.rateControl = .constantQP(0) },
        Bad(name: "interlaced baseline", code: .unsupported) { $0.profile = .baseline; $0.fieldOrder = .topFieldFirst },
        Bad(name: "zero pixel aspect", code: .invalidArgument) { $0.pixelAspectRatio = (0, 1) },
        Bad(name: "x264_encoder_open fails (width > 16384)", code: .encoderFailure) { $0.width = 16386; $0.height = 16 },
    ]

    @Test(arguments: bad)
    func badConfigurationThrows(_ b: Bad) {
        #expect(throws: X264Error(b.code, "")) { try X264Encoder(options: X264Support.config(160, 96, b.edit)) }
    }

    /// A keyframe interval in seconds beyond what frames can count opens as "no forced
    /// keyframes" (x264's keyint clamps), not a conversion trap.
    @Test func hugeKeyframeDurationOpens() throws {
        for s in [1e300, Double.greatestFiniteMagnitude, 3e9] {
            let encoder = try X264Encoder(options: X264Support.config(160, 96) { $0.maxKeyframeIntervalDuration = s })
            #expect(encoder.options.maxKeyframeIntervalDuration == s)
        }
    }

    @Test func openFailureCarriesX264Message() {
        do {
            _ = try X264Encoder(options: X264Support.config(16386, 16))
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .encoderFailure)
            #expect(error.reason.contains("x264_encoder_open failed: "))
        }
    }

    @Test func mismatchedFramesThrow() throws {
        let encoder = try X264Encoder(options: X264Support.config())
        let wrongSize = try VideoFrame(width: 176, height: 96, format: .i420)
        #expect(throws: X264Error(.invalidArgument, "")) { try encoder.encode(wrongSize) }
        let wrongFormat = try VideoFrame(width: 160, height: 96, format: .nv12)
        #expect(throws: X264Error(.invalidArgument, "")) { try encoder.encode(wrongFormat) }
        _ = try encoder.flush()
        #expect(throws: X264Error(.invalidArgument, "")) { try encoder.encode(try VideoFrame(width: 160, height: 96, format: .i420)) }
    }

    @Test func badRateChangesThrow() throws {
        let abr = try X264Encoder(options: X264Support.config())
        #expect(throws: X264Error(.invalidArgument, "")) { try abr.setAverageBitrate(0) }
        #expect(throws: X264Error(.invalidArgument, "")) { try abr.setDataRateLimits([DataRateLimit(bytes: -1, seconds: 1)]) }
        let qp = try X264Encoder(options: X264Support.config { $0.rateControl = .constantQP(30) })
        #expect(throws: X264Error(.unsupported, "")) { try qp.setDataRateLimits([DataRateLimit(bytes: 50_000, seconds: 1)]) }
        _ = try abr.flush()
        #expect(throws: X264Error(.invalidArgument, "")) { try abr.setAverageBitrate(500_000) }
    }

    /// The level of earlier releases (`X264Encoder.Level`, `.auto`, `.idc`) is the core's
    /// level, nil for automatic: the old spellings parse and build the same values. Called
    /// through a protocol the deprecated members witness, so that this test builds without
    /// warnings.
    @Test func deprecatedLevelSpellingsAreTheCoresLevel() {
        typealias L = ProfileLevel.Level?
        #expect(LegacyLevel.parse("3.1") == .some(ProfileLevel.Level(levelIDC: 31)))
        #expect(LegacyLevel.parse("4") == .some(ProfileLevel.Level("4")))
        #expect(LegacyLevel.parse("41") == .some(ProfileLevel.Level(levelIDC: 41)))
        #expect(LegacyLevel.parse("1b") == .some(ProfileLevel.Level(levelIDC: 11, isLevel1b: true)))
        #expect(LegacyLevel.parse("auto") == .some(L.none))
        #expect(LegacyLevel.parse("3.3") == nil)
        #expect(LegacyLevel.auto == nil)
        #expect(LegacyLevel.idc(31) == ProfileLevel.Level("3.1"))
        #expect(LegacyLevel.idc(9) == ProfileLevel.Level("1b"))
        #expect(LegacyLevel.idc(11) == ProfileLevel.Level("1.1"))
        #expect(X264Encoder.Options(width: 64, height: 64).level == nil)
    }

    /// The level as the encoder signals it: `level_idc` in the SPS, level 1b as High writes it (9).
    @Test func levelReachesTheSPS() throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.level = ProfileLevel.Level("1b") })
        #expect(encoder.activeSettings.levelIDC == 9)
    }

    @Test func frameRateFractions() {
        func f(_ r: Double) -> (UInt32, UInt32) { let v = X264Support.config { $0.expectedFrameRate = r }.frameRateFraction; return (v.num, v.den) }
        #expect(f(30) == (30, 1))
        #expect(f(29.97) == (30000, 1001))
        #expect(f(59.94) == (60000, 1001))
        #expect(f(12.5) == (12500, 1000))
    }
}

private protocol LegacyLevelSpellings {
    static var auto: Self { get }
    static func idc(_ levelIDC: Int) -> Self
    init?(_ text: String)
}

extension Optional: LegacyLevelSpellings where Wrapped == ProfileLevel.Level {}

private enum LegacyLevel {
    static func parse(_ text: String) -> ProfileLevel.Level?? { parse(ProfileLevel.Level?.self, text) }
    static var auto: ProfileLevel.Level? { auto(ProfileLevel.Level?.self) }
    static func idc(_ value: Int) -> ProfileLevel.Level? { idc(ProfileLevel.Level?.self, value) }
    private static func parse<L: LegacyLevelSpellings>(_: L.Type, _ text: String) -> L? { L(text) }
    private static func auto<L: LegacyLevelSpellings>(_: L.Type) -> L { L.auto }
    private static func idc<L: LegacyLevelSpellings>(_: L.Type, _ value: Int) -> L { L.idc(value) }
}
