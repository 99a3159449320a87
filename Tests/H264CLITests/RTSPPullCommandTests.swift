import Foundation
import Testing
import TestSupport

/// `h264 rtsp-pull` against GStreamer's RTSP server with a Digest user: the MP4 it writes has
/// every frame (FFmpeg counts them), the report says so, and the password is printed nowhere.
@Suite struct RTSPPullCommandTests {
    @Test(.enabled(if: Support.h264 != nil && GStreamerRTSPServer.isAvailable && FFmpeg.isPresent,
                   "needs the built h264 tool, GStreamer's RTSP server for Python and FFmpeg"),
          .timeLimit(.minutes(1)), arguments: ["tcp", "udp"])
    func pullsToMP4(transport: String) throws {
        let h264 = try #require(Support.h264)
        let server = try GStreamerRTSPServer(file: try #require(RTSPServedStream.mp4), auth: "digest")
        defer { server.stop() }
        let out = try Support.temporaryDirectory() + "/pulled.mp4"
        let r = try Support.run(h264, ["rtsp-pull", server.url(), "-o", out, "--transport", transport, "--timeout", "5",
                                       "--user", "user", "--password-env", "RTSP_TEST_PASSWORD", "--json"],
                                timeout: 30, environment: ["RTSP_TEST_PASSWORD": "pa:ss"]).checked("h264 rtsp-pull")
        #expect(r.output.contains("\"access_units\":\(RTSPServedStream.frames)"))
        #expect(r.output.contains("\"stopped\":\"bye\""))
        #expect(!(r.output + r.stderr).contains("pa:ss"))
        let frames = try FFmpeg.ffprobe(["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", out])
            .checked("ffprobe").output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(frames) == RTSPServedStream.frames)
    }
}
