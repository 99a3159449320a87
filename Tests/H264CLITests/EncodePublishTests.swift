import CommandLineSupport
import Foundation
import Testing
import H264
import FLV
import TestSupport
@testable import H264CLI

/// `h264 encode --rtmp URL`: the test pattern published live to nginx-rtmp, read back from its
/// recording.
@Suite struct EncodePublishTests {
    static var canPublish: Bool { NginxServer.isAvailable && FFmpeg.isPresent }

    @Test(.enabled(if: canPublish, "needs nginx with libnginx-mod-rtmp, ffmpeg and ffprobe"))
    func encodeAndPublishTheTestPattern() throws {
        let server = try NginxServer()
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let local = dir + "/local.flv"
        // Published and written to a file at once: the two must carry the same samples.
        var args = Arguments(["--rtmp", "rtmp://127.0.0.1:\(server.port)/live/enc", "-o", local, "--size", "160x96",
                              "--frames", "50", "--fps", "25", "--bframes", "2", "--force-keyframes", "0,25",
                              "--preset", "ultrafast", "--threads", "1"])
        try EncodeCommand.run(&args)
        server.stopAfterStreamEnds()
        let recording = server.recording("enc")
        #expect(FileManager.default.fileExists(atPath: recording), "\(server.log)")

        let probe = try FFmpeg.packets(recording)
        #expect(probe.errors.isEmpty, "\(probe.errors)")
        #expect(probe.packets.count == 50)
        #expect(probe.packets.filter(\.key).count == 2)
        #expect(probe.packets.contains { $0.pts != $0.dts })
        let decode = try FFmpeg.decode(recording)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")

        let recorded = try FLVVideoTrack(reading: [UInt8](try Data(contentsOf: URL(fileURLWithPath: recording))))
        let written = try FLVVideoTrack(reading: [UInt8](try Data(contentsOf: URL(fileURLWithPath: local))))
        #expect(recorded.samples == written.samples)
        #expect(recorded.samples.filter(\.isKeyframe).count == 2)
    }
}
