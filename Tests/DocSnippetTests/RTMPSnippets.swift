import FLV
import Foundation
import H264
import MP4
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

    /// The server article's snippets: a server that allows one stream key, our publisher
    /// sending an encoder's frames to it, and the publish recorded to MP4 (every frame, and
    /// FFmpeg decodes it when present).
    @Test(.timeLimit(.minutes(1)))
    func serveAndRecord() async throws {
        let streamKey = "key-7"
        let path = try Support.temporaryDirectory() + "/ingest.mp4"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let frames = try SnippetSupport.frames(count: 30, width: 320, height: 180)
        let encoder = try X264Encoder(options: .init(width: 320, height: 180))
        let server = try Self.makeServer(streamKey: streamKey, port: 0)
        defer { server.close() }
        let publishing = Task.detached {
            let rtmp = try RTMPVideoPublisher(url: "rtmp://127.0.0.1:\(server.localPort)/live/\(streamKey)",
                                              metadata: FLVMetadata(width: 320, height: 180, frameRate: 30),
                                              parameterSets: encoder.parameterSets)
            for frame in frames { for encoded in try encoder.encode(frame) { try rtmp.send(encoded) } }
            for encoded in try encoder.flush() { try rtmp.send(encoded) }
            return try rtmp.finish()
        }
        // snippet: rtmp-server-record
        for try await ingest in server.publishedStreams {
            let recorder = MP4Recorder(file: try MP4File(creatingAtPath: path), mode: .fragmented())
            for try await event in ingest {
                if case .video(let accessUnit) = event { try recorder.write(accessUnit) }
            }
            try recorder.finish()
            break   // one publish here; a service starts a task per publish and goes on
        }
        // end snippet
        let sent = try await publishing.value
        #expect(sent.framesSent == frames.count)
        let reader = try MP4Reader(MP4File(readingAtPath: path))
        #expect(reader.tracks.first?.sampleCount == frames.count)
    }

    static func makeServer(streamKey: String, port: Int) throws -> RTMPServer {
        // snippet: rtmp-server
        var options = RTMPServer.Options()
        options.authorize = { request in
            request.streamName == streamKey ? .allow : .reject(reason: "unknown stream key")
        }
        let server = try RTMPServer(host: "127.0.0.1", port: port, options: options)   // 1935: RTMP's port
        // end snippet
        return server
    }
}
