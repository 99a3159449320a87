import Foundation
import H264
import H264Fixtures
import MP4
import RTP
import Testing
import TestSupport

/// `h264 rtp-receive -o out.mp4` records the sender's RTP timestamps: `h264 rtp-send` sends a
/// stream with B pictures (presentation times out of decoding order) over loopback, and the MP4
/// samples' presentation times are the sent RTP timestamps (90 kHz, from the first), in
/// decoding order, whether the packets came paced or in one burst (arrival times play no part);
/// decoding times increase and none comes after its sample's presentation.
@Suite struct RTPReceiveTimingTests {
    /// The presentation times `rtp-send --fps 25` gives the access units of `stream`, on the
    /// 90 kHz clock from the first: what it computes before adding its random offset.
    static func sentTimes(_ stream: [UInt8]) -> [Int64] {
        let sent = RTPAccessUnit.accessUnits(annexB: stream[...], timing: .init(frameRate: (25, 1), overridesStreamTiming: true))
        return sent.map { $0.timestamp90kHz - sent[0].timestamp90kHz }
    }

    @Test(.enabled(if: Support.h264 != nil, "needs the built h264 tool"), .timeLimit(.minutes(5)),
          arguments: [Fixture.highBPyramid, .mainCABACBFrames], [["--speed", "4"], ["--fast"]])
    func mp4SamplesAreTheSentTimestamps(fixture: Fixture, pacing: [String]) throws {
        let h264 = try #require(Support.h264)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stream = fixture.url.path, sdp = dir + "/x.sdp", output = dir + "/out.mp4"
        let port = Ports.freeEvenPort()
        let send = [stream, "--to", "127.0.0.1:\(port)", "--fps", "25"]
        try Support.run(h264, ["rtp-send"] + send + ["--sdp", sdp, "--dry-run"]).checked("rtp-send --dry-run")
        let receiver = try Support.start(h264, ["rtp-receive", sdp, "-o", output, "--idle-timeout", "10", "--wait", "20"])
        var waited = 0.0
        while !(Ports.udpPortIsBound(port) && Ports.udpPortIsBound(port + 1)) && waited < 10 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 0.05
        }
        try Support.run(h264, ["rtp-send"] + send + ["--sdp", dir + "/sent.sdp"] + pacing, timeout: 30).checked("rtp-send")
        #expect(!Support.wait(receiver, timeout: 10), "rtp-receive did not stop at the BYE")
        #expect(receiver.terminationStatus == 0)

        let expected = Self.sentTimes(fixture.bytes())
        #expect(expected.count >= 10)
        #expect(zip(expected, expected.dropFirst()).contains { $0 > $1 }, "the stream has B pictures: times out of decoding order")
        let reader = try MP4Reader(try MP4File(readingAtPath: output))
        let track = try #require(reader.videoTrack)
        #expect(track.timescale == 90_000)
        let samples = try reader.sampleInfos(of: track)
        #expect(samples.count == expected.count)
        let first = try #require(samples.first).presentationTime
        #expect(samples.map { $0.presentationTime - first } == expected)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.decodeTime < $1.decodeTime }, "decoding times increase")
        #expect(samples.allSatisfy { $0.decodeTime <= $0.presentationTime }, "no sample is decoded after it is presented")
        #expect(samples.first?.flags.isSync == true)
    }
}
