import H264
import H264Fixtures
import RTP
import Testing

/// Times of received access units from their RTP timestamps: presentation times unwrapped,
/// decoding times from the reorder depth (FFmpeg's derivation of a missing DTS).
@Suite struct RTPSampleTimingTests {
    static func times(_ timing: inout RTPSampleTiming, _ timestamps: [UInt32]) -> [(pts: Int64, dts: Int64)] {
        timestamps.map { ts in
            let t = timing.timestamps(forRTPTimestamp: ts)
            #expect(t.timeBase == RTPSampleTiming.timeBase)
            return (t.pts, t.dts)
        }
    }

    /// Without reordering the decoding time is the presentation time, and a 32-bit wrap of the
    /// RTP clock goes on counting.
    @Test func withoutReorderingTimesAreTheTimestampsUnwrapped() {
        var timing = RTPSampleTiming()
        let start = UInt32.max - 5_000
        let timestamps = (0..<5).map { start &+ UInt32($0) * 3_000 }  // wraps after the second
        let times = Self.times(&timing, timestamps)
        #expect(times.map(\.pts) == (0..<5).map { Int64(start) + Int64($0) * 3_000 })
        #expect(times.map(\.dts) == times.map(\.pts))
    }

    /// B pictures (decoding order I0 P3 B1 B2 P6 B4 B5, reorder depth 1): the presentation
    /// times are the timestamps, the decoding times the presentation times in ascending order
    /// one frame late, the first one a frame before the first presentation.
    @Test func bPicturesGetIncreasingDecodingTimes() {
        let d: Int64 = 3_600
        var timing = RTPSampleTiming(reorderDepth: 1, frameDuration: d)
        let base: UInt32 = 1_000_000
        let frames: [Int64] = [0, 3, 1, 2, 6, 4, 5]
        let times = Self.times(&timing, frames.map { base &+ UInt32($0 * d) })
        #expect(times.map(\.pts) == frames.map { Int64(base) + $0 * d })
        #expect(times.map(\.dts) == [-1, 0, 1, 2, 3, 4, 5].map { Int64(base) + $0 * d })
    }

    /// A pyramid (depth 2) across a wrap, and a stream that reorders deeper than it declares:
    /// decoding times never go back (that picture is presented before it is decoded instead).
    @Test func decodingTimesNeverGoBack() {
        let d: Int64 = 1_500
        var timing = RTPSampleTiming(reorderDepth: 2, frameDuration: d)
        let base = UInt32.max - 4 * 1_500
        let frames: [Int64] = [0, 4, 2, 1, 3, 8, 6, 5, 7, 12, 0]  // the last is 12 frames early
        let times = Self.times(&timing, frames.map { base &+ UInt32(truncatingIfNeeded: $0 * d) })
        #expect(times.map(\.pts) == frames.map { Int64(base) + $0 * d })
        #expect(Array(times.map(\.dts).prefix(10)) == [-2, -1, 0, 1, 2, 3, 4, 5, 6, 7].map { Int64(base) + $0 * d })
        #expect(zip(times, times.dropFirst()).allSatisfy { $0.dts <= $1.dts })
        #expect(times.dropLast().allSatisfy { $0.dts <= $0.pts })
        #expect(times.last!.pts < times.last!.dts)
    }

    /// After ``RTPSampleTiming/restart()`` (a new SSRC with a new random timestamp base) the
    /// times go on after the last ones, far enough that the new first decoding times follow.
    @Test func aRestartGoesOnFromTheLastTimes() {
        let d: Int64 = 3_000
        var timing = RTPSampleTiming(reorderDepth: 1, frameDuration: d)
        let before = Self.times(&timing, [90_000, 99_000, 93_000, 96_000])
        timing.restart()
        let after = Self.times(&timing, [7, 9_007, 3_007, 6_007])
        let origin = max(before.last!.pts, before.last!.dts) + 2 * d
        #expect(after.map(\.pts) == [0, 9_000, 3_000, 6_000].map { origin + $0 })
        let all = before + after
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.dts < $1.dts })
        #expect(all.allSatisfy { $0.dts <= $0.pts })
    }

    /// From an SPS: its reorder depth (`max_num_reorder_frames`) and the frame duration of its
    /// VUI timing; without timing, 30 frames per second.
    @Test func fromAnSPS() throws {
        var sps = SequenceParameterSet()
        sps.vuiParametersPresentFlag = true
        sps.vui.bitstreamRestrictionFlag = true
        sps.vui.maxNumReorderFrames = 2
        #expect(RTPSampleTiming(sps: sps).reorderDepth == 2)
        #expect(RTPSampleTiming(sps: sps).frameDuration == RTPSampleTiming.defaultFrameDuration)
        sps.vui.timingInfoPresentFlag = true
        sps.vui.numUnitsInTick = 1_001
        sps.vui.timeScale = 60_000  // 29.97 frames per second
        #expect(RTPSampleTiming(sps: sps).frameDuration == 3_003)
        #expect(RTPSampleTiming(reorderDepth: 40, frameDuration: 0).reorderDepth == 16)
        #expect(RTPSampleTiming(reorderDepth: 40, frameDuration: 0).frameDuration == 1)
    }

    /// An `RTPReceiver` times what it delivers: a B-frame fixture packetised with a random
    /// timestamp base comes out with the packetiser's presentation times (from the first),
    /// decoding times that increase, and samples an MP4 or FLV muxer takes as they are.
    @Test(arguments: [Fixture.highBPyramid, .mainCABACBFrames])
    func aReceiverTimesWhatItDelivers(_ fixture: Fixture) throws {
        let sent = RTPAccessUnit.accessUnits(annexB: fixture.bytes()[...], timing: .init(frameRate: (25, 1), overridesStreamTiming: true))
        #expect(sent.count >= 10)
        var packetizer = try RTPPacketizer(.init(mtu: 1200, ssrc: 7, initialTimestamp: UInt32.max - 20_000))
        var packets = RTPPacketBuffer()
        for au in sent { try packetizer.packetize(au, into: &packets) }
        var receiver = try RTPReceiver(.init())
        var received: [RTPReceivedAccessUnit] = []
        for i in 0..<packets.count { receiver.receive(packets[i]) { received.append($0) } }
        receiver.finish { received.append($0) }
        #expect(received.count == sent.count)
        let times = try received.map { try #require($0.timestamps) }
        #expect(times.map { $0.pts - times[0].pts } == sent.map { $0.timestamp90kHz - sent[0].timestamp90kHz })
        #expect(zip(times, times.dropFirst()).allSatisfy { $0.dts < $1.dts })
        #expect(times.allSatisfy { $0.dts <= $0.pts })
        #expect(received.first?.isSyncSample == true)
        #expect(received.first?.timestamps(timescale: 1_000) != nil)
    }
}
