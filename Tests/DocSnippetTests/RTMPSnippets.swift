import FLV
import Foundation
import H264
import RTMP
import TestSupport
import X264
import Testing

/// The snippets of the RTMP catalog (Sources/RTMP/RTMP.docc); each marked region is shown, as
/// it is, in an article (Docs/check-snippets.py checks it). It publishes to an nginx-rtmp on a
/// loopback port, and skips (with its reason) where nginx with the RTMP module is not installed.
@Suite struct RTMPSnippets {
    @Test(.enabled(if: NginxServer.isAvailable, "needs nginx with libnginx-mod-rtmp"))
    func publishEncodedFrames() throws {
        let server = try NginxServer()
        let url = "rtmp://127.0.0.1:\(server.port)/live/key"
        let frames = try SnippetSupport.frames(count: 30, width: 320, height: 180)
        let encoder = try X264Encoder(options: .init(width: 320, height: 180))
        // snippet: rtmp-publisher
        let metadata = FLVMetadata(width: 320, height: 180, frameRate: 30)
        let rtmp = try RTMPVideoPublisher(url: url, metadata: metadata,    // connects and publishes
                                          parameterSets: encoder.parameterSets)
        for frame in frames {
            for encoded in try encoder.encode(frame) { try rtmp.send(encoded) }   // queues, never waits
        }
        for encoded in try encoder.flush() { try rtmp.send(encoded) }
        let statistics = try rtmp.finish()     // end of sequence, unpublish; waits up to 10 s
        // end snippet
        #expect(statistics.framesSent == frames.count)
        #expect(statistics.framesDropped == 0)
        server.stopAfterStreamEnds()
        let recorded = try FLVVideoTrack(reading: Support.readFile(server.recording("key")))
        #expect(recorded.samples.count == frames.count)
        #expect(recorded.samples.first?.isKeyframe == true)
    }
}
