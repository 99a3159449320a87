import Foundation
import H264
import RTSP
import TestSupport
import Testing

/// The snippets of the RTSP catalog (Sources/RTSP/RTSP.docc), each shown as it is in an
/// article (Docs/check-snippets.py checks it). It pulls from GStreamer's RTSP server on a
/// loopback port, and skips (with its reason) where that server or FFmpeg is not installed.
@Suite struct RTSPSnippets {
    @Test(.enabled(if: GStreamerRTSPServer.isAvailable && FFmpeg.isPresent, "needs GStreamer's RTSP server for Python and FFmpeg"),
          .timeLimit(.minutes(5)))
    func pullToAnnexB() async throws {
        let server = try GStreamerRTSPServer(file: try #require(RTSPServedStream.mp4), auth: "digest")
        defer { server.stop() }
        let url = server.url("user:pa%3Ass@")
        // snippet: rtsp-pull
        let stream = try await RTSPStream.open(url, options: .init(transport: .tcp))
        var annexB: [UInt8] = []
        for try await event in stream {     // ends at the source's BYE
            if case .video(let accessUnit) = event {
                annexB += AnnexB.write(accessUnit.nalUnits)   // or MP4Recorder.write(accessUnit)
            }
        }
        // end snippet
        let path = try Support.temporaryFile(annexB, name: "pulled.h264")
        #expect(try FFmpeg.frameMD5s(file: path) == FFmpeg.frameMD5s(file: try #require(RTSPServedStream.path)))
    }
}
