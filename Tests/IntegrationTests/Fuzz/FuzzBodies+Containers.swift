// Fuzz bodies for the containers and transport around the core: FLV (reader, streaming reader,
// AMF0, conversion to Annex-B) and what an RTMP server sends (chunks, control messages, AMF0
// commands) through the client session, a pure function of the bytes received. Like
// FuzzBodies.swift, this file compiles into the fuzz binary and into IntegrationTests.
import FLV
import H264
import RTMP

extension FuzzBodies {
    // MARK: - flv_read

    /// An FLV file through the in-memory reader, the streaming reader (in chunks of 1...64
    /// bytes the last byte chooses), AMF0 and the conversion to Annex-B.
    ///
    /// Properties: both readers yield the same events up to the first error; the Annex-B
    /// written is at most a small multiple of the input (start codes for length fields, and
    /// parameter sets inserted at most the input's bytes plus one access unit's bound); AMF0
    /// values are at most one per input byte, their text at most three bytes per input byte
    /// (UTF-8 replacement characters).
    static func flvRead(_ data: [UInt8]) {
        var batch: [FLVVideoEvent] = []
        var writer = FLVAnnexBWriter()
        var annexB: [UInt8] = []
        if var reader = try? FLVReader(data) {
            var steps = 0
            while steps <= data.count {
                steps &+= 1
                guard let event = try? reader.nextVideoEvent() else { break }
                batch.append(event)
                _ = try? writer.add(event, to: &annexB)
            }
        }
        let bound = 4 &* data.count &+ ParameterSetInserter.defaultMaximumBytesPerAccessUnit
        check(annexB.count <= bound, "\(annexB.count) Annex-B bytes from \(data.count) FLV bytes")
        check(writer.inserter.insertedByteCount <= data.count &+ ParameterSetInserter.defaultMaximumBytesPerAccessUnit,
              "\(writer.inserter.insertedByteCount) parameter-set bytes inserted from \(data.count) input bytes")

        var streamed: [FLVVideoEvent] = []
        var stream = FLVStreamParser()
        let chunk = Int(data.last ?? 0) % 64 &+ 1
        var i = 0
        var failed = false
        while i < data.count && !failed {
            let end = min(i &+ chunk, data.count)
            stream.append(data[i..<end])
            i = end
            var steps = 0
            while steps <= data.count {
                steps &+= 1
                do throws(FLVError) {
                    guard let event = try stream.nextVideoEvent() else { break }
                    streamed.append(event)
                } catch {
                    failed = true
                    break
                }
            }
        }
        check(streamed.count <= batch.count || batch.isEmpty && streamed.isEmpty,
              "the streaming reader found \(streamed.count) events, the reader \(batch.count)")
        check(zip(streamed, batch).allSatisfy(sameEvent), "the streaming reader disagrees with the reader")

        // AMF0 over the whole input (as an RTMP command payload would be). Strings are decoded
        // as UTF-8, an invalid byte becoming a 3-byte replacement character.
        if let values = try? AMF0.decodeAll(data[...]) {
            let (count, text) = amf0Size(values)
            check(count <= data.count && text <= 3 &* data.count, "\(count) AMF0 values, \(text) bytes of text from \(data.count) bytes")
        }
        if let track = try? FLVVideoTrack(reading: data) {
            check(track.samples.count <= data.count, "more samples than bytes")
            if let out = try? track.annexB() { check(out.count <= bound, "\(out.count) Annex-B bytes from a track") }
        }
    }

    /// Events equal, metadata compared as printed (a NaN duration is not equal to itself).
    static func sameEvent(_ a: FLVVideoEvent, _ b: FLVVideoEvent) -> Bool {
        if case .metadata(let x) = a, case .metadata(let y) = b { return String(reflecting: x) == String(reflecting: y) }
        return a == b
    }

    /// The number of AMF0 values and the bytes of their strings and names.
    static func amf0Size(_ values: [AMF0Value]) -> (count: Int, text: Int) {
        var count = 0, text = 0
        func visit(_ v: AMF0Value) {
            count &+= 1
            switch v {
            case .string(let s): text &+= s.utf8.count
            case .object(let props), .ecmaArray(let props):
                for p in props {
                    text &+= p.name.utf8.count
                    visit(p.value)
                }
            case .strictArray(let items): for item in items { visit(item) }
            default: break
            }
        }
        for v in values { visit(v) }
        return (count, text)
    }

    // MARK: - rtmp_receive

    /// What an RTMP server sends after the handshake, fed to the client session in pieces:
    /// byte 0 chooses the piece size (1...128) and small limits.
    ///
    /// Properties: the bytes held in incomplete messages stay under the limit; what the
    /// session queues to send in reply (acknowledgements, ping responses) is at most a small
    /// multiple of what came in; commands decode to at most one AMF0 value per byte.
    static func rtmpReceive(_ data: [UInt8]) {
        var values = 0
        let session = rtmpInPieces(data) { (session: inout RTMPSession) throws(RTMPError) -> Bool in
            guard let command = try session.nextCommand() else { return false }
            values &+= amf0Size(command).count
            return true
        }
        check(values <= data.count, "\(values) AMF0 values from \(data.count) bytes")
        check(session.outgoing.count <= 3 &* data.count &+ 64, "\(session.outgoing.count) bytes to send for \(data.count) received")
    }

    /// The piece loop of `rtmp_receive` and `rtmp_serve`: `data` after byte 0 handed to a
    /// session in pieces (byte 0: the piece size, 1...128, from its low 7 bits; small limits
    /// when its high bit is set), `next` called after each piece until it returns false (at
    /// most once per input byte), the first error ending the connection. Checks that the bytes
    /// held in incomplete messages stay under the limit; returns the session (for an empty
    /// input, one that saw nothing, with the large limits).
    static func rtmpInPieces(_ data: [UInt8], _ next: (inout RTMPSession) throws(RTMPError) -> Bool) -> RTMPSession {
        let first = data.first ?? 0
        let small = first & 0x80 != 0
        var session = RTMPSession(maximumMessageSize: small ? 512 : 4 << 20, maximumBufferedBytes: small ? 1024 : 8 << 20)
        let piece = Int(first & 0x7F) &+ 1
        var i = 1
        var failed = false
        while i < data.count && !failed {
            let end = min(i &+ piece, data.count)
            session.receive(data[i..<end])
            i = end
            var steps = 0
            while steps <= data.count {
                steps &+= 1
                do throws(RTMPError) {
                    guard try next(&session) else { break }
                } catch {
                    failed = true  // a connection ends at its first protocol error
                    break
                }
            }
            check(session.reader.bufferedByteCount <= session.reader.maximumBufferedBytes, "incomplete messages past the limit")
        }
        return session
    }
}

extension FuzzBodies {
    // MARK: - rtmp_serve

    /// What a publisher sends after the handshake (commands, metadata, sequence headers,
    /// video, audio) through the server's side: the session in pieces (byte 0 chooses the piece
    /// size, 1...128, and small limits) and the ingest parser on every media message.
    ///
    /// Properties: the bytes held in incomplete messages stay under the limit; the events'
    /// payload bytes are at most the input's; their NAL unit views at most one per payload byte
    /// plus one record's parameter sets (at most 31 + 255) per message; one event per message.
    static func rtmpServe(_ data: [UInt8]) { _ = rtmpServeCounts(data) }

    /// ``rtmpServe(_:)``'s work, with what it saw: messages, events, video events.
    static func rtmpServeCounts(_ data: [UInt8]) -> (messages: Int, events: Int, video: Int) {
        var parser = RTMPIngestParser()
        var messages = 0, events = 0, payload = 0, units = 0, video = 0
        _ = rtmpInPieces(data) { (session: inout RTMPSession) throws(RTMPError) -> Bool in
            guard let message = try session.nextMessage() else { return false }
            messages &+= 1
            if let values = try RTMPSession.command(message) { _ = amf0Size(values) }
            guard let event = try parser.event(for: message) else { return true }
            events &+= 1
            switch event {
            case .video(let au):
                payload &+= au.data.count
                units &+= au.nalUnits.count
                video &+= 1
            case .tag(let tag, _):
                payload &+= tag.body.count
            case .decoderConfiguration(let bytes, _):
                payload &+= bytes.count
            default:
                break
            }
            return true
        }
        check(events <= messages, "\(events) events from \(messages) messages")
        check(payload <= data.count, "\(payload) payload bytes from \(data.count) bytes")
        check(units <= payload &+ messages &* 286, "\(units) NAL unit views for \(payload) payload bytes")
        return (messages, events, video)
    }
}

extension FuzzSeeds {
    /// FLV files written from the fixture streams, and what a server sends to a publisher.
    static func containerSeeds(target: String, streams: [[UInt8]]) -> [[UInt8]] {
        switch target {
        case "flv_read":
            return streams.compactMap { try? FLVConversion.annexBToFLV($0) }
        case "rtmp_receive":
            return rtmpSeeds()
        case "rtmp_serve":
            return rtmpPublisherSeeds(streams: streams)
        case "ts_demux":
            return tsSeeds(streams)
        default:
            return []
        }
    }

    /// The replies of a server to connect, createStream and publish, with the control messages
    /// servers send around them, at two chunk sizes; and a ping and an abort.
    static func rtmpSeeds() -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for (configuration, chunkSize) in [(UInt8(0x0F), 128), (UInt8(0x83), 60)] {
            var w = RTMPChunkWriter()
            var out: [UInt8] = [configuration]
            w.write(.control(.windowAcknowledgementSize, 2_500_000), chunkStreamID: 2, into: &out)
            w.write(RTMPMessage(.setPeerBandwidth, payload: [0, 0x26, 0x25, 0xA0, 2]), chunkStreamID: 2, into: &out)
            w.write(.control(.setChunkSize, UInt32(chunkSize)), chunkStreamID: 2, into: &out)
            w.chunkSize = chunkSize
            let success: [AMF0Property] = [AMF0Property("level", .string("status")),
                                           AMF0Property("code", .string("NetConnection.Connect.Success")),
                                           AMF0Property("description", .string("Connection succeeded."))]
            w.write(.command("_result", transaction: 2, [.object([AMF0Property("fmsVer", .string("FMS/3,0,1,123"))]),
                                                         .object(success)]), chunkStreamID: 3, into: &out)
            w.write(RTMPMessage(.userControl, payload: [0, 6, 0, 0, 0, 42]), chunkStreamID: 2, into: &out)
            w.write(.command("_result", transaction: 5, [.null, .number(1)]), chunkStreamID: 3, into: &out)
            w.write(.command("onStatus", transaction: 0, [.null, .object([AMF0Property("level", .string("status")),
                                                                          AMF0Property("code", .string("NetStream.Publish.Start"))])]),
                    chunkStreamID: 5, into: &out)
            w.write(.control(.acknowledgement, 4096), chunkStreamID: 2, into: &out)
            w.write(.control(.abort, 6), chunkStreamID: 2, into: &out)
            seeds.append(out)
        }
        return seeds
    }

    /// What publishers send: connect, createStream, publish, metadata, then an FLV stream of a
    /// fixture's sequence header and frames, at two chunk sizes (the second with an enhanced
    /// RTMP `avc1` sequence start and an audio tag).
    static func rtmpPublisherSeeds(streams: [[UInt8]]) -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for stream in streams where seeds.count < 4 {
            guard let flv = try? FLVConversion.annexBToFLV(stream), var reader = try? FLVReader(flv) else { continue }
            var tags: [FLVTag] = []
            while tags.count < 12, let tag = try? reader.nextTag() { tags.append(tag) }
            guard tags.filter({ $0.type == .video }).count >= 6 else { continue }  // a stream with frames
            let index = seeds.count
            let chunkSize = index % 2 == 0 ? 4096 : 60
            var w = RTMPChunkWriter()
            var out: [UInt8] = [index % 2 == 0 ? 0x7F : 0x03]  // pieces of 128 or 4 bytes, the default limits
            w.write(.control(.setChunkSize, UInt32(chunkSize)), chunkStreamID: 2, into: &out)
            w.chunkSize = chunkSize
            w.write(.command("connect", transaction: 1, [.object([AMF0Property("app", .string("live")),
                                                                 AMF0Property("tcUrl", .string("rtmp://127.0.0.1/live"))])]),
                    chunkStreamID: 3, into: &out)
            w.write(.command("createStream", transaction: 2, [.null]), chunkStreamID: 3, into: &out)
            w.write(.command("publish", transaction: 0, [.null, .string("key"), .string("live")], streamID: 1), chunkStreamID: 4, into: &out)
            for tag in tags {
                let kind: RTMPMessage.Kind = tag.type == .video ? .video : tag.type == .audio ? .audio : .dataAMF0
                w.write(RTMPMessage(kind, streamID: 1, timestamp: tag.timestamp, payload: Array(tag.body)), chunkStreamID: 6, into: &out)
            }
            if index % 2 == 1 {
                w.write(RTMPMessage(.audio, streamID: 1, timestamp: 0, payload: [0xAF, 0x00, 0x12, 0x10]), chunkStreamID: 5, into: &out)
                w.write(RTMPMessage(.video, streamID: 1, timestamp: 0, payload: [0x90] + Array("avc1".utf8) + [1, 0x64, 0, 0x1F]),
                        chunkStreamID: 6, into: &out)
            }
            seeds.append(out)
        }
        return seeds
    }
}
