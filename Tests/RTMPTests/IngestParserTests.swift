import Testing
import FLV
import H264
@testable import RTMP

/// `RTMPIngestParser`: a publisher's messages as events, without sockets: legacy AVC and
/// enhanced RTMP `avc1` video, other codecs refused, times unrolled past the 32-bit wrap,
/// negative composition times clamped, metadata, audio and data kept as tags.
@Suite struct IngestParserTests {
    /// An encoder's avcC and the AVCC payload of its first (IDR) frame.
    static let stream: (avcC: [UInt8], idr: [UInt8], sets: [NALUnit]) = {
        let (frames, sets) = (try? IngestServerTests.encodedFrames(2, width: 64, height: 64)) ?? ([], [])
        var builder = FLVSampleBuilder(parameterSets: sets)
        let built = frames.first.flatMap { try? builder.sample($0) }
        return (built?.avcC ?? [], Array(built?.sample.data ?? []), sets)
    }()

    static func video(_ payload: [UInt8], at time: UInt32 = 0) -> RTMPMessage {
        RTMPMessage(.video, streamID: 1, timestamp: time, payload: payload)
    }

    /// Enhanced RTMP: `[IsExHeader | FrameType | PacketType]`, the FourCC, then the body.
    static func enhanced(frameType: UInt8, packetType: UInt8, fourCC: String = "avc1", _ body: [UInt8]) -> [UInt8] {
        [0x80 | frameType << 4 | packetType] + Array(fourCC.utf8) + body
    }

    @Test func legacyAndEnhancedAVCGiveTheSameEvents() throws {
        let (avcC, idr, sets) = Self.stream
        try #require(!avcC.isEmpty && !idr.isEmpty)
        let legacy: [[UInt8]] = [[0x17, 0, 0, 0, 0] + avcC, [0x17, 1, 0, 0, 40] + idr, [0x17, 2, 0, 0, 0]]
        let enhanced: [[UInt8]] = [Self.enhanced(frameType: 1, packetType: 0, avcC),
                                   Self.enhanced(frameType: 1, packetType: 1, [0, 0, 40] + idr),
                                   Self.enhanced(frameType: 1, packetType: 2, [])]
        for messages in [legacy, enhanced] {
            var parser = RTMPIngestParser()
            let events = try messages.enumerated().map { try parser.event(for: Self.video($1, at: UInt32($0) * 40)) }
            #expect(events[0] == .decoderConfiguration(avcC, timestamp: 0))
            guard case .video(let au) = events[1] else { Issue.record("no access unit: \(String(describing: events[1]))"); continue }
            #expect(au.timestamps == SampleTimestamps(pts: 80, dts: 40, timescale: 1000))
            #expect(au.compositionTime == 40 && au.isKeyframe && au.isSyncSample)
            #expect(Array(au.data) == idr)
            #expect(Array(au.nalUnits.prefix(sets.count)) == sets)
            #expect(events[2] == .endOfSequence(timestamp: 80))
        }
        // CodedFramesX: no composition time field.
        var parser = RTMPIngestParser()
        _ = try parser.event(for: Self.video(Self.enhanced(frameType: 1, packetType: 0, avcC)))
        guard case .video(let au) = try parser.event(for: Self.video(Self.enhanced(frameType: 1, packetType: 3, idr), at: 7)) else {
            Issue.record("CodedFramesX gave no access unit")
            return
        }
        #expect(au.compositionTime == 0 && au.timestamps?.pts == 7 && Array(au.data) == idr)
    }

    /// `hvc1`, `av01` and a legacy CodecID other than 7 are refused as unsupported, naming the
    /// codec, never parsed as AVC.
    @Test(arguments: [Self.enhanced(frameType: 1, packetType: 0, fourCC: "hvc1", [1, 2, 3]),
                      Self.enhanced(frameType: 1, packetType: 1, fourCC: "av01", [0, 0, 0, 1, 2]),
                      [0x1C, 0, 0, 0, 0, 1, 2, 3] as [UInt8]])
    func otherCodecsAreRefused(payload: [UInt8]) {
        var parser = RTMPIngestParser()
        #expect {
            _ = try parser.event(for: Self.video(payload))
        } throws: { error in
            let e = error as? RTMPError
            return e?.code == .unsupported && (e?.reason.contains("hvc1") == true || e?.reason.contains("av01") == true
                                                || e?.reason.contains("CodecID 12") == true)
        }
    }

    /// Times unrolled across the 32-bit wrap (and a small step back kept as one; a time just
    /// below 2^32 right after 0 would be a step back, below 0); a negative
    /// composition time clamps the presentation time to the decoding time and is counted.
    @Test func timesUnrollAndNegativeCompositionTimesClamp() throws {
        let (avcC, idr, _) = Self.stream
        var parser = RTMPIngestParser()
        _ = try parser.event(for: Self.video([0x17, 0, 0, 0, 0] + avcC, at: UInt32.max - 30))
        var times: [Int64] = []
        for t: UInt32 in [UInt32.max - 20, UInt32.max - 5, 10, 5, 30] {
            guard case .video(let au) = try parser.event(for: Self.video([0x27, 1, 0, 0, 0] + idr, at: t)) else { continue }
            times.append(au.timestamps?.dts ?? -1)
        }
        let base = Int64(UInt32.max)
        #expect(times == [base - 20, base - 5, base + 11, base + 6, base + 31])
        guard case .video(let negative) = try parser.event(for: Self.video([0x27, 1, 0xFF, 0xFF, 0xD8] + idr, at: 35)) else {
            Issue.record("no access unit")
            return
        }
        #expect(negative.compositionTime == -40)
        #expect(negative.timestamps?.pts == negative.timestamps?.dts)
        #expect(negative.flvSample.pts == negative.flvSample.dts - 40)
        #expect(parser.negativeCompositionTimes == 1)
        // Audio keeps its own clock, as sent.
        guard case .tag(let tag, let time) = try parser.event(for: RTMPMessage(.audio, streamID: 1, timestamp: 5, payload: [0xAF, 1])) else {
            Issue.record("audio is not a tag")
            return
        }
        #expect(tag.type == .audio && tag.timestamp == 5 && time == 5 && Array(tag.body) == [0xAF, 1])
    }

    /// `@setDataFrame onMetaData` and bare `onMetaData` are metadata; other data is a script
    /// tag as sent, and so is malformed AMF0.
    @Test func dataMessages() throws {
        var parser = RTMPIngestParser()
        let setDataFrame = AMF0.encode([.string("@setDataFrame"), .string("onMetaData"),
                                        .ecmaArray([AMF0Property("width", .number(640)), AMF0Property("height", .number(360))])])
        #expect(try parser.event(for: RTMPMessage(.dataAMF0, streamID: 1, payload: setDataFrame))
                == .metadata(FLVMetadata(width: 640, height: 360)))
        let bare = AMF0.encode([.string("onMetaData"), .object([AMF0Property("framerate", .number(30))])])
        #expect(try parser.event(for: RTMPMessage(.dataAMF0, streamID: 1, payload: bare)) == .metadata(FLVMetadata(frameRate: 30)))
        let text = AMF0.encode([.string("onTextData"), .object([AMF0Property("text", .string("hi"))])])
        #expect(try parser.event(for: RTMPMessage(.dataAMF0, streamID: 1, timestamp: 9, payload: text))
                == .tag(FLVTag(type: .script, timestamp: 9, body: text[...]), time: 9))
        let broken: [UInt8] = [2, 0, 10, 0x6F]
        #expect(try parser.event(for: RTMPMessage(.dataAMF0, streamID: 1, timestamp: 10, payload: broken))
                == .tag(FLVTag(type: .script, timestamp: 10, body: broken[...]), time: 10))
    }

    /// A publisher of `hvc1` over a socket: onStatus NetStream.Publish.Failed naming the codec,
    /// and its stream ends with `unsupported`.
    @Test(.timeLimit(.minutes(5)))
    func hevcPublisherIsRefusedWithAStatus() async throws {
        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: IngestServerTests.allowing())
        defer { server.close() }
        let collecting = IngestServerTests.collectFirstPublish(server)
        let client = try HostileClientTests.RawClient(port: server.localPort)
        try client.publish("hevc")
        client.session.send(RTMPMessage(.video, streamID: 1, payload: Self.enhanced(frameType: 1, packetType: 0, fourCC: "hvc1", [1, 2, 3])),
                            on: 6)
        try client.flush()
        let status = try client.waitFor("NetStream.Publish.Failed")
        #expect(status.dropFirst(3).first?["description"]?.string?.contains("hvc1") == true)
        let (_, _, error) = try await collecting.value
        #expect((error as? RTMPError)?.code == .unsupported, "\(String(describing: error))")
    }
}
