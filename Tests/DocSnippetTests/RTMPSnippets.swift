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
    @Test(.timeLimit(.minutes(5)))
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

    /// The reconnection snippet: a publisher whose server goes away and comes back on the
    /// same port reports the loss and the reconnection through its events handler, and
    /// counts the reconnection.
    @Test(.timeLimit(.minutes(5)))
    func reconnectingPublisher() async throws {
        let first = try Self.makeServer(streamKey: "key", port: 0)
        let url = "rtmp://127.0.0.1:\(first.localPort)/live/key"
        let frames = try SnippetSupport.frames(count: 20, width: 320, height: 180)
        let encoder = try X264Encoder(options: .init(width: 320, height: 180))
        let metadata = FLVMetadata(width: 320, height: 180, frameRate: 30)
        let reports = Reports()
        let report = reports.add
        // snippet: rtmp-reconnect
        var options = RTMPPublisher.Options()
        options.reconnection = RTMPPublisher.Reconnection(maximumOutage: .seconds(120))  // 0.5 s, 1 s, 2 s ... 10 s apart
        let rtmp = try RTMPVideoPublisher(url: url, metadata: metadata, parameterSets: encoder.parameterSets,
                                          options: options, events: { event in   // on the sender thread
            switch event {
            case .lost(let error): report("connection lost: \(error)")
            case .retrying(let attempt, let delay): report("attempt \(attempt) in \(delay)")
            case .connected(let attempt, let dropped): report("published again (attempt \(attempt), \(dropped) frames dropped)")
            case .gaveUp(let error, _): report("gave up: \(error)")   // send and finish throw it from now on
            }
        })
        // end snippet
        for frame in frames.prefix(10) { for encoded in try encoder.encode(frame) { try rtmp.send(encoded) } }
        try await Task.sleep(for: .milliseconds(200))
        first.close()
        let hold = try PortHold(first.localPort)   // nobody else gets the port meanwhile
        try await Task.sleep(for: .milliseconds(300))
        hold.release()
        let second = try Self.makeServer(streamKey: "key", port: first.localPort)
        defer { second.close() }
        for _ in 0..<1000 where rtmp.statistics.reconnections == 0 { try await Task.sleep(for: .milliseconds(10)) }
        for frame in frames.dropFirst(10) { for encoded in try encoder.encode(frame) { try rtmp.send(encoded) } }
        for encoded in try encoder.flush() { try rtmp.send(encoded) }
        // Connected when finishing (a finish during an outage gives up): on a loaded machine the
        // test may stall past the server's idle timeout, which is one more outage and reconnection.
        for _ in 0..<6000 where reports.lines.last?.hasPrefix("published again") != true {
            try await Task.sleep(for: .milliseconds(10))
        }
        let statistics = try rtmp.finish()
        #expect(statistics.reconnections >= 1)
        #expect(reports.lines.first?.hasPrefix("connection lost") == true, "\(reports.lines)")
        #expect(reports.lines.last?.hasPrefix("published again") == true, "\(reports.lines)")
    }

    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ line: String) { lock.withLock { list.append(line) } }
        var lines: [String] { lock.withLock { list } }
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
