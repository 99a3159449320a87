import Foundation
import Testing
import TestSupport

/// `h264 rtsp-pull` against GStreamer's RTSP server with a Digest user: the MP4 it writes has
/// every frame (FFmpeg counts them), the report says so, and the password is printed nowhere.
@Suite struct RTSPPullCommandTests {
    @Test(.enabled(if: Support.h264 != nil && GStreamerRTSPServer.isAvailable && FFmpeg.isPresent,
                   "needs the built h264 tool, GStreamer's RTSP server for Python and FFmpeg"),
          .timeLimit(.minutes(5)), arguments: ["tcp", "udp"])
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
        #expect(!r.stderr.contains("packets "), "no live line when stderr is not a terminal: \(r.stderr)")
        let frames = try FFmpeg.ffprobe(["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", out])
            .checked("ffprobe").output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(frames) == RTSPServedStream.frames)
    }

    /// `-o out.ts` and `-o DIR/` (HLS with TS segments) through the shared output, with
    /// `--progress`: stderr carries the live loss and jitter line, stdout only the JSON report
    /// (with the jitter), and the output holds every frame (our demuxer counts them; FFmpeg
    /// decodes them).
    @Test(.enabled(if: Support.h264 != nil && GStreamerRTSPServer.isAvailable && FFmpeg.isPresent,
                   "needs the built h264 tool, GStreamer's RTSP server for Python and FFmpeg"),
          .timeLimit(.minutes(5)), arguments: ["pulled.ts", "hls/"])
    func pullsToTransportStreamAndHLS(target: String) throws {
        let h264 = try #require(Support.h264)
        let server = try GStreamerRTSPServer(file: try #require(RTSPServedStream.mp4))
        defer { server.stop() }
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Support.run(h264, ["rtsp-pull", server.url(), "-o", dir + "/" + target, "--timeout", "5", "--progress", "--json"],
                                timeout: 30).checked("h264 rtsp-pull")
        let report = try #require(JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any], "\(r.output)")
        #expect(report["access_units"] as? Int == RTSPServedStream.frames && report["jitter_ms"] is Double)
        let progress = r.stderr.split(separator: "\n").filter { $0.hasPrefix("packets ") }
        #expect(!progress.isEmpty && progress.allSatisfy { $0.contains(" received, 0 lost  access units ") && $0.hasSuffix(" ms") },
                "\(r.stderr)")
        let file = target.hasSuffix("/") ? dir + "/hls/index.m3u8" : dir + "/" + target
        if target.hasSuffix("/") {
            let playlist = String(decoding: Support.readFile(file), as: UTF8.self)
            #expect(playlist.contains("#EXT-X-ENDLIST") && playlist.contains("segment-00001.ts"), "\(playlist)")
        }
        // A transport stream's stream is listed under its program too: the first line counts.
        let frames = try FFmpeg.ffprobe(["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                                         "-of", "csv=p=0", file]).checked("ffprobe").output.split(separator: "\n").first
        #expect(frames.flatMap { Int($0) } == RTSPServedStream.frames)
    }
}
