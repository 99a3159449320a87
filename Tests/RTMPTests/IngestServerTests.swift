import Foundation
import Testing
import FLV
import H264
import H264Video
import MP4
import TestSupport
import X264
@testable import RTMP

/// `RTMPServer` taking streams in: our own publisher, FFmpeg and GStreamer publishing into it on
/// a loopback port, what comes out (`RTMPIngestStream`) equal to what went in, and the library's
/// recorders taking it without glue.
@Suite struct IngestServerTests {
    /// Options that allow every publish, with deadlines short enough for tests.
    /// Deadlines far above what these tests take even on a loaded machine (a test task starved
    /// for seconds between two sends must not look like an idle publisher); the deadlines
    /// themselves are HostileClientTests' subject.
    static func allowing(_ configure: (inout RTMPServer.Options) -> Void = { _ in }) -> RTMPServer.Options {
        var options = RTMPServer.Options(handshakeTimeout: .seconds(30), idleTimeout: .seconds(60))
        options.authorize = { _ in .allow }
        configure(&options)
        return options
    }

    /// Encoded test-pattern frames (B-frames, so the first DTS is negative and composition
    /// times are not 0), and the encoder's parameter sets.
    static func encodedFrames(_ count: Int, width: Int = 160, height: Int = 96) throws -> (frames: [EncodedFrame], parameterSets: [NALUnit]) {
        var config = X264Encoder.Options(width: width, height: height)
        config.expectedFrameRate = 25
        config.preset = .veryfast
        config.maxConsecutiveBFrames = 2
        config.maxKeyframeInterval = 10
        config.rateControl = .averageBitrate(300_000)
        let encoder = try X264Encoder(options: config)
        let source = try TestPatternSource(width: width, height: height, frameRate: (25, 1), frameCount: count)
        var frames: [EncodedFrame] = []
        for i in 0..<count { frames += try encoder.encode(try source.makeFrame(i)) }
        frames += try encoder.flush()
        return (frames, encoder.parameterSets)
    }

    /// The first publish of `server` and every event it brings, until it ends.
    static func collectFirstPublish(_ server: RTMPServer) -> Task<(RTMPIngestStream, [RTMPIngestStream.Event], (any Error)?), any Error> {
        Task {
            var streams = server.publishedStreams.makeAsyncIterator()
            guard let ingest = try await streams.next() else { throw RTMPError(.connectionClosed, "no publish") }
            var events: [RTMPIngestStream.Event] = []
            do {
                for try await event in ingest { events.append(event) }
            } catch {
                return (ingest, events, error)
            }
            return (ingest, events, nil)
        }
    }

    static func videoSamples(_ events: [RTMPIngestStream.Event]) -> [RTMPReceivedAccessUnit] {
        events.compactMap { if case .video(let au) = $0 { au } else { nil } }
    }

    /// Our `AsyncRTMPPublisher` into our server: the request as sent, the metadata, one
    /// decoder configuration, and every sample equal to the FLV sample the publisher made of
    /// it (payload, DTS, PTS, keyframe flag); keyframes carry the SPS and PPS first, and the
    /// samples' 1 kHz timestamps are the FLV times.
    @Test(.timeLimit(.minutes(5)))
    func ourPublisherIntoOurServer() async throws {
        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: Self.allowing())
        let (frames, parameterSets) = try Self.encodedFrames(30)
        let collecting = Self.collectFirstPublish(server)
        let url = "rtmp://127.0.0.1:\(server.localPort)/live/key-1?token=abc"
        let rtmp = try await AsyncRTMPPublisher(url: url, metadata: FLVMetadata(width: 160, height: 96, frameRate: 25),
                                                parameterSets: parameterSets)
        for frame in frames { try await rtmp.send(frame) }
        let sent = try await rtmp.finish()
        #expect(sent.framesSent == frames.count)
        let (ingest, events, error) = try await collecting.value
        #expect(error == nil, "\(String(describing: error))")
        #expect(ingest.request.application == "live")
        #expect(ingest.request.streamName == "key-1")
        #expect(ingest.request.query == ["token": "abc"])
        #expect(ingest.request.peerHost == "127.0.0.1")
        #expect(ingest.request.tcURL == "rtmp://127.0.0.1:\(server.localPort)/live")

        var builder = FLVSampleBuilder(parameterSets: parameterSets)
        var expected: [FLVVideoSample] = []
        var avcC: [UInt8]?
        for frame in frames {
            let built = try builder.sample(frame)
            if avcC == nil { avcC = built.avcC }
            expected.append(built.sample)
        }
        guard case .metadata(let metadata) = events.first else {
            Issue.record("the first event is not the metadata: \(String(describing: events.first))")
            return
        }
        #expect(metadata.width == 160 && metadata.height == 96)
        let configurations = events.compactMap { if case .decoderConfiguration(let bytes, _) = $0 { bytes } else { nil } }
        #expect(configurations == [avcC].compactMap { $0 })
        let samples = Self.videoSamples(events)
        #expect(samples.count == expected.count)
        #expect(samples.map(\.flvSample) == expected)
        for sample in samples {
            #expect(sample.timestamps?.dts == sample.flvSample.dts)
            #expect(sample.timestamps?.pts == sample.flvSample.pts)
            #expect(sample.timestamps?.timeBase == TimeBase(numerator: 1, denominator: 1000))
            if sample.isKeyframe {
                #expect(sample.nalUnits.prefix(2).map(\.type) == [.sps, .pps])
            }
        }
        #expect(samples.first?.isSyncSample == true)
        if case .endOfSequence = events.last {} else { Issue.record("the last event is not the end of sequence") }
        #expect(ingest.statistics.accessUnits == frames.count)
        #expect(ingest.statistics.eventsDropped == 0)
        server.close()
    }

    /// A wrong stream key is refused before the publish starts (NetStream.Publish.Denied with
    /// the hook's reason), nothing reaches `publishedStreams`, and the right key then publishes;
    /// the hook saw the request as sent.
    @Test(.timeLimit(.minutes(5)))
    func wrongKeyIsRefusedAndNothingRecorded() async throws {
        let seen = Seen()
        let options = Self.allowing { options in
            options.authorize = { request in
                seen.add(request)
                return request.streamName == "right" && request.query["pass"] == "1" ? .allow : .reject(reason: "wrong stream key")
            }
        }
        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: options)
        defer { server.close() }
        let wrong = try RTMPConnection(url: try RTMPURL("rtmp://127.0.0.1:\(server.localPort)/live?pass=1/wrong"))
        #expect {
            try wrong.publish()
        } throws: { error in
            let e = error as? RTMPError
            return e?.code == .connectionRejected && e?.reason.contains("NetStream.Publish.Denied") == true
                && e?.reason.contains("wrong stream key") == true
        }
        #expect(server.statistics.publishesRefused == 1)
        #expect(server.statistics.publishesAccepted == 0)
        #expect(server.core.published.statistics.count == 0)
        #expect(seen.requests.first?.application == "live")
        #expect(seen.requests.first?.streamName == "wrong")
        #expect(seen.requests.first?.query == ["pass": "1"])

        let right = try RTMPConnection(url: try RTMPURL("rtmp://127.0.0.1:\(server.localPort)/live?pass=1/right"))
        try right.publish()
        #expect(server.statistics.publishesAccepted == 1)
        #expect(server.core.published.statistics.count == 1)
        try right.close()
    }

    /// Without an authorization hook every publish is refused.
    @Test(.timeLimit(.minutes(5)))
    func noHookRefusesPublishing() throws {
        let server = try RTMPServer(host: "127.0.0.1", port: 0,
                                    options: RTMPServer.Options(handshakeTimeout: .seconds(5), idleTimeout: .seconds(5)))
        defer { server.close() }
        let connection = try RTMPConnection(url: try RTMPURL("rtmp://127.0.0.1:\(server.localPort)/live/key"))
        #expect {
            try connection.publish()
        } throws: { error in
            (error as? RTMPError)?.code == .connectionRejected && "\(error)".contains("Denied")
        }
        #expect(server.statistics.publishesRefused == 1)
    }

    /// A second publisher of a name is refused by default, and replaces the first under
    /// `.replaceExisting` (whose stream then ends with `cancelled`).
    @Test(.timeLimit(.minutes(5)))
    func duplicatePublishers() async throws {
        let refusing = try RTMPServer(host: "127.0.0.1", port: 0, options: Self.allowing())
        defer { refusing.close() }
        let url = try RTMPURL("rtmp://127.0.0.1:\(refusing.localPort)/live/same")
        let first = try RTMPConnection(url: url)
        try first.publish()
        let second = try RTMPConnection(url: url)
        #expect(throws: RTMPError(.connectionRejected, "")) { try second.publish() }
        #expect(refusing.statistics.publishing == 1)

        let replacing = try RTMPServer(host: "127.0.0.1", port: 0, options: Self.allowing { $0.duplicatePublisher = .replaceExisting })
        defer { replacing.close() }
        let collecting = Self.collectFirstPublish(replacing)
        let url2 = try RTMPURL("rtmp://127.0.0.1:\(replacing.localPort)/live/same")
        let a = try RTMPConnection(url: url2)
        try a.publish()
        let b = try RTMPConnection(url: url2)
        try b.publish()
        // Counted before waiting for the replaced stream's end: on a loaded machine that wait
        // may outlast b's idle timeout.
        #expect(replacing.statistics.publishing == 1)
        #expect(replacing.statistics.publishesAccepted == 2)
        let (_, _, error) = try await collecting.value
        #expect((error as? RTMPError)?.code == .cancelled, "\(String(describing: error))")
    }

    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [RTMPPublishRequest] = []
        func add(_ r: RTMPPublishRequest) { lock.withLock { list.append(r) } }
        var requests: [RTMPPublishRequest] { lock.withLock { list } }
    }
}
