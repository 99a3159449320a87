// Seeds for the fuzz targets whose input is not an H.264 stream: each is derived from a fixture
// stream by the library's own writers (an FLV file, RTP datagrams, the bytes an RTMP server
// sends, an SDP document), so the fuzzer starts from well-formed input of the target's format.
// Tests/Fuzz/run.sh asks the fuzz binary for them (FUZZ_MAKE_SEEDS); IntegrationTests checks that each
// seed goes through its body.
import H264
import RTP

enum FuzzSeeds {
    /// Seeds for `target` from Annex-B `streams`, each at most `maximumLength` bytes.
    static func make(target: String, streams: [[UInt8]], maximumLength: Int) -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        switch target {
        case "rtp_depacketize":
            for stream in streams { seeds += rtpSeeds(stream, maximumLength: maximumLength) }
        case "y4m_parse":
            seeds = y4mSeeds()
        case "sdp_parse":
            for stream in streams { seeds += sdpSeeds(stream) }
        case "rtsp_response":
            for stream in streams { seeds += rtspSeeds(stream) }
        default:
            seeds = containerSeeds(target: target, streams: streams)
        }
        return seeds.map { Array($0.prefix(maximumLength)) }
    }

    /// RTP datagrams of a stream as the rtp_depacketize body reads them: a configuration byte,
    /// then each packet behind a 2-byte length; once in order and once with neighbours swapped.
    static func rtpSeeds(_ stream: [UInt8], maximumLength: Int) -> [[UInt8]] {
        let accessUnits = AccessUnits.assemble(annexB: stream[...], leadingData: .skip).accessUnits
        guard var packetizer = try? RTPPacketizer(.init(mtu: 200, ssrc: 0x1234_5678)) else { return [] }
        var packets: [[UInt8]] = []
        var buffer = RTPPacketBuffer()
        var bytes = 0
        for (i, au) in accessUnits.enumerated() where bytes < maximumLength {
            buffer.removeAll()
            try? packetizer.packetize(RTPAccessUnit(nalUnits: au.nalUnits, timestamp90kHz: Int64(i) * 3600), into: &buffer)  // mode 1: never throws
            for k in 0..<buffer.count {
                packets.append(Array(buffer[k]))
                bytes += buffer[k].count + 2
            }
        }
        func framed(_ list: [[UInt8]], configuration: UInt8) -> [UInt8] {
            var out: [UInt8] = [configuration]
            for p in list {
                out += [UInt8(truncatingIfNeeded: p.count >> 8), UInt8(truncatingIfNeeded: p.count)]
                out += p
            }
            return out
        }
        var swapped = packets
        var i = 0
        while i + 1 < swapped.count { swapped.swapAt(i, i + 1); i += 3 }
        // For the receiver (bit 7): the packets, then a sender report + BYE on the RTCP port (the
        // length's top bit).
        let report = RTCP.senderReportAndBye(ssrc: 0x1234_5678, ntpTimestamp: 0xE000_0000_0000_0000, rtpTimestamp: 0,
                                             packetCount: 0, octetCount: 0)
        var session = framed(packets, configuration: 0x83)
        session += [0x80, UInt8(report.count)] + report
        return [framed(packets, configuration: 3), framed(swapped, configuration: 7), session]
    }

    /// Small Y4M streams: the three supported chroma formats, interlacing and range tags, and a
    /// chunk-size byte first.
    static func y4mSeeds() -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for (tag, frameSize) in [("C420jpeg", 8 * 4 + 2 * 4 * 2), ("C422", 8 * 4 + 2 * 4 * 4), ("C444", 8 * 4 * 3)] {
            var s: [UInt8] = [UInt8(truncatingIfNeeded: frameSize)]
            s += Array("YUV4MPEG2 W8 H4 F30000:1001 It A1:1 \(tag) XCOLORRANGE=FULL\n".utf8)
            for f in 0..<3 {
                s += Array("FRAME\n".utf8)
                s += (0..<frameSize).map { UInt8(truncatingIfNeeded: $0 &+ f) }
            }
            seeds.append(s)
        }
        return seeds
    }

    /// An fmtp line and an SDP document from the stream's first SPS and PPS.
    static func sdpSeeds(_ stream: [UInt8]) -> [[UInt8]] {
        var splitter = AnnexB.Splitter(stream[...], leadingData: .skip)
        var sets: [NALUnit] = []
        while sets.count < 2, let unit = try? splitter.next() {
            if unit.type == .sps || unit.type == .pps { sets.append(unit) }
        }
        guard let format = try? H264FormatParameters(parameterSets: sets) else { return [] }
        let session = RTPSessionDescription(connectionAddress: "127.0.0.1", port: 5004, format: format, frameRate: 25)
        return [[0] + Array("a=fmtp:96 \(format)".utf8), [1] + Array(session.text.utf8)]
    }

    /// What a camera sends an RTSP client for a stream, as the rtsp_response body reads it (the
    /// limits' bytes at their largest, 64-byte chunks): the replies to OPTIONS, a Digest
    /// challenge, DESCRIBE (the stream's parameter sets in the SDP), SETUP and PLAY (`RTP-Info`,
    /// `Range`), a server's request, then the stream's first RTP packets and a sender report
    /// as interleaved frames; once whole, once with the frames before the PLAY reply.
    static func rtspSeeds(_ stream: [UInt8]) -> [[UInt8]] {
        var splitter = AnnexB.Splitter(stream[...], leadingData: .skip)
        var sets: [NALUnit] = []
        while sets.count < 2, let unit = try? splitter.next() {
            if unit.type == .sps || unit.type == .pps { sets.append(unit) }
        }
        guard let format = try? H264FormatParameters(parameterSets: sets) else { return [] }
        let sdp = "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=cam\r\nt=0 0\r\na=control:*\r\nm=video 0 RTP/AVP 96\r\n"
            + "a=rtpmap:96 H264/90000\r\na=fmtp:96 \(format)\r\na=control:trackID=0\r\nm=audio 0 RTP/AVP 8\r\na=control:trackID=1\r\n"
        func reply(_ cseq: Int, _ status: String = "200 OK", _ headers: [String] = [], body: String = "") -> [UInt8] {
            var text = "RTSP/1.0 \(status)\r\nCSeq: \(cseq)\r\n"
            for h in headers { text += h + "\r\n" }
            if !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
            return Array((text + "\r\n" + body).utf8)
        }
        var frames: [UInt8] = []
        let accessUnits = AccessUnits.assemble(annexB: stream[...], leadingData: .skip).accessUnits.prefix(3)
        if var packetizer = try? RTPPacketizer(.init(mtu: 200, ssrc: 0x1234_5678)) {
            var buffer = RTPPacketBuffer()
            for (i, au) in accessUnits.enumerated() {
                try? packetizer.packetize(RTPAccessUnit(nalUnits: au.nalUnits, timestamp90kHz: Int64(i) * 3600), into: &buffer)
            }
            for k in 0..<min(buffer.count, 12) {
                let p = buffer[k]
                frames += [0x24, 0, UInt8(p.count >> 8), UInt8(p.count & 0xFF)] + p
            }
        }
        let report = RTCP.senderReportAndBye(ssrc: 0x1234_5678, ntpTimestamp: 0xE000_0000_0000_0000, rtpTimestamp: 0,
                                             packetCount: 0, octetCount: 0)
        frames += [0x24, 1, UInt8(report.count >> 8), UInt8(report.count & 0xFF)] + report
        let head = reply(1, "200 OK", ["Public: OPTIONS, DESCRIBE, SETUP, PLAY, GET_PARAMETER, TEARDOWN"])
            + reply(2, "401 Unauthorized", ["WWW-Authenticate: Basic realm=\"cam\"",
                                            "WWW-Authenticate: Digest realm=\"cam\", nonce=\"abc123\", algorithm=MD5, qop=\"auth\""])
            + reply(3, "200 OK", ["Content-Base: rtsp://camera.local/cam/", "Content-Type: application/sdp"], body: sdp)
            + reply(4, "200 OK", ["Transport: RTP/AVP/TCP;unicast;interleaved=0-1;ssrc=12345678", "Session: 1A2B;timeout=60"])
            + Array("SET_PARAMETER rtsp://camera.local/cam RTSP/1.0\r\nCSeq: 9\r\n\r\n".utf8)
        let play = reply(5, "200 OK", ["Session: 1A2B", "Range: npt=0.000-", "RTP-Info: url=trackID=0;seq=0;rtptime=0,url=trackID=1;seq=7"])
        let config: [UInt8] = [0xFF, 0xFF, 63]
        return [config + head + play + frames, config + head + frames + play]
    }
}

