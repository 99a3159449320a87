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
    /// Deadlines far above the tests' own: in the main run the cooperative pool (2 threads on
    /// the CI machine) can be held for minutes by synchronous tests waiting on child
    /// processes, and a publisher starved that long must not meet the server's idle deadline
    /// (the tests of the deadlines themselves set their own).
    static func allowing(_ configure: (inout RTMPServer.Options) -> Void = { _ in }) -> RTMPServer.Options {
        var options = RTMPServer.Options(handshakeTimeout: .seconds(600), idleTimeout: .seconds(600))
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

    /// A publish to our server restreamed (`AsyncRTMPPublisher.restream`) to a second one: the
    /// second gets the metadata, every access unit at the times the first got (a source with
    /// B-frames: its negative first DTS moved by the source publisher, its audio moved with
    /// it), and every audio and data tag as it came, at the same times; the AAC sequence
    /// header is a tag like the others. A video tag is refused by `send(tag:time:)`.
    @Test(.timeLimit(.minutes(5)))
    func restreamForwardsVideoAudioAndData() async throws {
        let upstream = try RTMPServer(host: "127.0.0.1", port: 0, options: Self.allowing())
        let downstream = try RTMPServer(host: "127.0.0.1", port: 0, options: Self.allowing())
        let (frames, parameterSets) = try Self.encodedFrames(30)
        let restreaming = Task { () throws -> RTMPPublisher.Statistics in
            var publishes = upstream.publishedStreams.makeAsyncIterator()
            let ingest = try #require(try await publishes.next())
            let out = try await AsyncRTMPPublisher(url: "rtmp://127.0.0.1:\(downstream.localPort)/live/out", metadata: FLVMetadata(),
                                                   options: .init(queueCapacity: 500))
            return try await out.restream(ingest)
        }
        let collectingDownstream = Self.collectFirstPublish(downstream)
        let source = try await AsyncRTMPPublisher(url: "rtmp://127.0.0.1:\(upstream.localPort)/live/in",
                                                  metadata: FLVMetadata(width: 160, height: 96, frameRate: 25),
                                                  parameterSets: parameterSets, options: .init(queueCapacity: 500))
        await #expect(throws: RTMPError(.invalidArgument, "")) {
            try await source.send(tag: FLVTag(type: .video, timestamp: 0, body: [0x17, 1, 0, 0, 0][...]), time: 0)
        }
        try await source.send(tag: ReconnectTests.audioConfiguration, time: frames[0].timestamps(timescale: 1000)?.dts ?? 0)
        let cue = FLVTag(type: .script, timestamp: 0, body: AMF0.encode([.string("onCuePoint"), .string("here")])[...])
        for (i, frame) in frames.enumerated() {
            try await source.send(frame)
            let time = frame.timestamps(timescale: 1000)?.dts ?? 0
            try await source.send(tag: ReconnectTests.audioFrame(i), time: time)
            if i == 10 { try await source.send(tag: cue, time: time) }
        }
        let sent = try await source.finish()
        #expect(sent.framesSent == frames.count && sent.tagsSent == frames.count + 1 && sent.tagsDropped == 0, "\(sent)")
        let restreamed = try await restreaming.value
        #expect(restreamed.framesSent == frames.count && restreamed.tagsSent == frames.count + 1, "\(restreamed)")
        let (_, events, error) = try await collectingDownstream.value
        #expect(error == nil, "\(String(describing: error))")

        // What the source publisher made of the frames and tags: the times the first server got.
        var builder = FLVSampleBuilder(parameterSets: parameterSets)
        let videoTimes = try frames.map { try builder.sample($0).sample }
        let shift = videoTimes[0].dts - (frames[0].timestamps(timescale: 1000)?.dts ?? 0)
        #expect(shift > 0, "the source's first DTS is not negative: the test shows nothing about moved times")
        let video = Self.videoSamples(events)
        #expect(video.map(\.flvSample.dts) == videoTimes.map(\.dts))
        #expect(video.map(\.flvSample.pts) == videoTimes.map(\.pts))
        #expect(video.map(\.data) == videoTimes.map(\.data))
        let tags = events.compactMap { if case .tag(let tag, let time) = $0 { (tag, time) } else { nil } }
        let audio = tags.filter { $0.0.type == .audio }
        #expect(audio.count == frames.count + 1)
        #expect(audio.first.map { RTMPRelayMessage.isAudioSequenceHeader($0.0.body) } == true)
        for (i, (tag, time)) in audio.dropFirst().enumerated() {
            #expect(tag.body == ReconnectTests.audioFrame(i).body && time == videoTimes[i].dts, "audio tag \(i) at \(time) ms")
        }
        let data = tags.filter { $0.0.type == .script }
        #expect(data.count == 1 && data.first?.0.body == cue.body && data.first?.1 == videoTimes[10].dts)
        #expect(events.contains { if case .metadata(let m) = $0 { m.width == 160 } else { false } })
        upstream.close()
        downstream.close()
    }

    /// `RTMPVideoPublisher.forward` for a consumer that joins part-way (a restream connected
    /// late): the frames before the first keyframe are skipped (false), then every one goes;
    /// an event's mapping: metadata sent, the decoder configuration and end of sequence not
    /// (false), tags at their time; `isAudioSequenceHeader` tells the AAC configuration apart.
    @Test(.timeLimit(.minutes(2)))
    func forwardJoinsAtARandomAccessPoint() async throws {
        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: Self.allowing())
        let (frames, parameterSets) = try Self.encodedFrames(30)
        let collecting = Self.collectFirstPublish(server)
        let firstKey = try #require(frames.indices.dropFirst().first { frames[$0].isRandomAccessPoint })
        let url = "rtmp://127.0.0.1:\(server.localPort)/live/late"
        // The synchronous publisher on a thread of its own: its waits must not hold the pool
        // the server's consumer task runs on.
        let (skipped, mapped, statistics) = try await HostileClientTests.onThread { () throws -> (Int, [Bool], RTMPPublisher.Statistics) in
            let publisher = try RTMPVideoPublisher(url: url, metadata: FLVMetadata(), parameterSets: parameterSets,
                                                   options: .init(queueCapacity: 500))
            var skipped = 0
            for (i, frame) in frames.enumerated() where i > 0 {
                if try !publisher.forward(frame) { skipped += 1 }
            }
            let last = frames.last?.timestamps(timescale: 1000)?.dts ?? 0
            let mapped = try [RTMPIngestStream.Event.decoderConfiguration([1, 2, 3], timestamp: 0), .endOfSequence(timestamp: 0),
                              .metadata(FLVMetadata(width: 160, height: 96, frameRate: 25)),
                              .tag(ReconnectTests.audioFrame(0), time: last)].map { try publisher.forward($0) }
            return (skipped, mapped, try publisher.finish(timeout: .seconds(20)))
        }
        #expect(skipped == firstKey - 1)
        #expect(mapped == [false, false, true, true])
        #expect(statistics.framesSent == frames.count - firstKey && statistics.tagsSent == 1, "\(statistics)")
        let (_, events, error) = try await collecting.value
        #expect(error == nil)
        let video = Self.videoSamples(events)
        #expect(video.count == frames.count - firstKey && video.first?.isRandomAccessPoint == true)
        #expect(events.contains { if case .metadata(let m) = $0 { m.width == 160 } else { false } })

        #expect(RTMPIngestStream.Event.tag(ReconnectTests.audioConfiguration, time: 0).isAudioSequenceHeader)
        #expect(!RTMPIngestStream.Event.tag(ReconnectTests.audioFrame(1), time: 0).isAudioSequenceHeader)
        #expect(!RTMPIngestStream.Event.tag(FLVTag(type: .script, timestamp: 0, body: [0xAF, 0x00][...]), time: 0).isAudioSequenceHeader)
        #expect(!RTMPIngestStream.Event.metadata(FLVMetadata()).isAudioSequenceHeader)
        server.close()
    }
}
