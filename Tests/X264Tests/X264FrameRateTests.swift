import Testing
import H264
import H264Video
import X264
import TestSupport

/// `expectedFrameRate` is a rate-control hint: the keyframe interval in seconds is measured on
/// the frames' timestamps, and the SPS claims a frame rate only when one was set.
@Suite struct X264FrameRateTests {
    /// `count` frames at 15 fps on a 90 kHz clock (6,000 ticks each), all output.
    static func encode15fps(_ encoder: X264Encoder, count: Int) throws -> [EncodedFrame] {
        let source = try TestPatternSource(width: 160, height: 96, frameCount: count)
        var out: [EncodedFrame] = []
        for i in 0..<count {
            var frame = try source.makeFrame(i)
            frame.pts = Int64(i) * 6000
            frame.timescale = 90_000
            out += try encoder.encode(frame)
        }
        return out + (try encoder.flush())
    }

    /// The SPS of `units` (the first), parsed.
    static func sps(_ units: [NALUnit]) throws -> SequenceParameterSet {
        try SequenceParameterSet(rbsp: try #require(units.first { $0.type == .sps }).rbsp)
    }

    /// A 15 fps capture asking for a keyframe every 2 s, the rate left at its default: keyframes
    /// 2 s apart by the frames' timestamps (every 30 frames, not every 60: the default 30 fps
    /// would have given 4 s).
    @Test func keyframesFollowTheTimestamps() throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.maxKeyframeIntervalDuration = 2 })
        let out = try Self.encode15fps(encoder, count: 150)  // 10 s
        #expect(out.count == 150)
        let keys = out.filter(\.isRandomAccessPoint).map(\.pts).sorted()
        // Every 2 s mark is a keyframe, and no gap between keyframes passes 2 s.
        #expect(Set([0, 180_000, 360_000, 540_000, 720_000]).isSubset(of: Set(keys)), "\(keys)")
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $1 - $0 <= 180_000 }, "\(keys)")
        #expect(out.filter(\.isSyncSample).count >= 5)
    }

    /// Timestamps with jitter (a frame 1 ms early or late): the keyframe still comes at the
    /// frame nearest the 2 s mark, not one frame later.
    @Test func jitterDoesNotDelayAKeyframe() throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.maxKeyframeIntervalDuration = 2 })
        let source = try TestPatternSource(width: 160, height: 96, frameCount: 61)
        var out: [EncodedFrame] = []
        for i in 0..<61 {
            var frame = try source.makeFrame(i)
            frame.pts = Int64(i) * 6000 + (i % 2 == 0 ? -90 : 90) + 90  // ±1 ms, increasing
            frame.timescale = 90_000
            out += try encoder.encode(frame)
        }
        out += try encoder.flush()
        let keyFrameIndices = Set(out.filter(\.isRandomAccessPoint).map { ($0.pts + 3000) / 6000 })
        #expect(keyFrameIndices.isSuperset(of: [0, 30, 60]), "\(keyFrameIndices.sorted())")
    }

    /// The rate left at its default: the SPS has no VUI timing (no claim of 30 fps), the
    /// in-band copies neither; set to 15, it says 15 fps.
    @Test func theSPSClaimsARateOnlyWhenOneWasSet() throws {
        let unset = try X264Encoder(options: X264Support.config { $0.repeatParameterSets = true })
        let sps = try Self.sps(unset.parameterSets)
        #expect(!sps.vui.timingInfoPresentFlag)
        #expect(sps.frameRate == nil)
        let out = try Self.encode15fps(unset, count: 3)
        let inBand = out.flatMap(\.nalUnits).filter { $0.type == .sps }
        #expect(!inBand.isEmpty)
        #expect(inBand.allSatisfy { $0.bytes == unset.parameterSets.first { $0.type == .sps }?.bytes })

        let set = try X264Encoder(options: X264Support.config { $0.expectedFrameRate = 15 })
        let timed = try Self.sps(set.parameterSets)
        #expect(timed.vui.timingInfoPresentFlag)
        #expect(timed.vui.timeScale == 2 * 15 * timed.vui.numUnitsInTick)
    }

    /// A constant bitrate writes NAL HRD, which needs a clock tick: the SPS keeps the timing.
    @Test func hrdKeepsTheTiming() throws {
        let cbr = try X264Encoder(options: X264Support.config { $0.rateControl = .constantBitrate(300_000) })
        #expect(try Self.sps(cbr.parameterSets).vui.timingInfoPresentFlag)
    }

    /// What FFmpeg makes of the untimed stream: it decodes every frame without an error.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"))
    func theUntimedStreamDecodes() throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.maxKeyframeIntervalDuration = 2 })
        let out = try Self.encode15fps(encoder, count: 45)
        let stream = out.flatMap { $0.annexBSample(parameterSets: encoder.parameterSets) }
        let view = try X264Support.ffmpegView(stream)
        #expect(view.errors.isEmpty, "\(view.errors)")
        #expect(view.frameCount == 45)
    }
}
