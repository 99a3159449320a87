@testable import RTSP
import Testing
import TestSupport

/// Mutated server bytes through the response reader and the SDP reader (deterministic seeds,
/// bounded count): never a trap, every message within the limits, and the reader always makes
/// progress or asks for more.
@Suite struct RTSPMutationTests {
    static let valid = Array(("$\u{1}\u{0}\u{4}abcdRTSP/1.0 200 OK\r\nCSeq: 2\r\nContent-Base: rtsp://h/cam/\r\nSession: 1;timeout=5\r\n"
                              + "Transport: RTP/AVP/TCP;unicast;interleaved=0-1\r\nRTP-Info: url=trackID=0;seq=1;rtptime=2\r\n"
                              + "WWW-Authenticate: Digest realm=\"r\", nonce=\"n\", qop=\"auth\", algorithm=SHA-256\r\n"
                              + "Content-Length: 20\r\n\r\nv=0\r\nm=video 0 RTP/AVP 9").utf8)
    static let sdp = ScriptedRTSPServer.sdp(fmtp: "packetization-mode=1;sprop-parameter-sets=Z0LAHtkDxWhAAAADAEAAAAwDxYuS,aMuMsg==",
                                            extra: "m=audio 0 RTP/AVP 97\r\na=rtpmap:97 MPEG4-GENERIC/48000/2\r\na=control:trackID=1\r\n")

    @Test(arguments: [UInt64(11), 12, 13, 14])
    func mutatedResponses(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var limits = RTSPLimits()
        limits.maximumLineLength = 200
        limits.maximumHeaderCount = 8
        limits.maximumBodySize = 64
        for _ in 0..<500 {
            var bytes = Self.valid
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let i = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[i] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.insert(contentsOf: repeatElement(bytes[i], count: Int.random(in: 1...300, using: &random)), at: i)
                default: bytes.remove(at: i)
                }
                if bytes.isEmpty { bytes = [0] }
            }
            var reader = RTSPMessageReader(limits: limits)
            reader.append(bytes[...])
            var messages = 0
            while messages < 100 {
                guard let message = try? reader.parse() else { break }
                messages += 1
                if case .response(let r) = message {
                    #expect(r.body.count <= limits.maximumBodySize)
                    #expect(r.headers.count <= limits.maximumHeaderCount)
                    _ = RTSPTransportHeader(r[header: "Transport"] ?? "")
                    _ = RTSPTrack.RTPInfo.parse(r[header: "RTP-Info"] ?? "")
                    _ = try? RTSPAuthenticator.choose(from: r.values(of: "WWW-Authenticate"))
                }
            }
            #expect(messages < 100)  // each message consumes bytes: the input ends
        }
    }

    @Test(arguments: [UInt64(21), 22])
    func mutatedSDP(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let base = try RTSPURL("rtsp://h/cam")
        let original = Array(Self.sdp.utf8)
        for _ in 0..<500 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if let d = try? RTSPSessionDescription(parsing: String(decoding: bytes, as: UTF8.self), base: base, maximumMediaCount: 4) {
                #expect(d.tracks.count <= 4)
            }
        }
        let parsed = try RTSPSessionDescription(parsing: Self.sdp, base: base)
        #expect(parsed.tracks.map(\.url.requestURI) == ["rtsp://h/cam/trackID=0", "rtsp://h/cam/trackID=1"])
        #expect(parsed.tracks.map(\.isH264) == [true, false])
        #expect(parsed.tracks[1].clockRate == 48_000)
        #expect(parsed.videoTrack?.h264?.parameterSets.count == 2)
        #expect(parsed.aggregateURL.requestURI == "rtsp://h/cam")
    }
}
