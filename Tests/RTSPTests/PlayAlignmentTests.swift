import Foundation
import H264
import RTP
@testable import RTSP
import Testing

/// `PLAY` with `Range` and `RTP-Info` (RFC 2326 12.29, 12.33): the first packets aligned, the
/// times starting at the range's start, whatever part of `RTP-Info` a camera sends.
@Suite struct PlayAlignmentTests {
    /// A scripted server that sends three packets of the old position before the `PLAY` reply
    /// (sequence numbers 97...99, before `RTP-Info`'s 100), then the stream. With a full
    /// `RTP-Info` (or one whose url matches no track, the only track's entry all the same) they
    /// are dropped and the announced `rtptime` is the range's start (10 s); with `RTP-Info`
    /// partial (no `seq`, no `rtptime`) or absent, nothing is dropped and the first access unit
    /// is at the range's start.
    @Test(arguments: ["full", "otherURL", "urlOnly", "none"])
    func firstPacketsAligned(rtpInfo: String) throws {
        let (packets, count) = try ScriptedRTSPServer.fixturePackets()
        // The old position: the same pictures numbered 97... at RTP time 500,000.
        let old = try Self.packets(sequence: 97, timestamp: 500_000).prefix(3)
        let aligned = rtpInfo == "full" || rtpInfo == "otherURL"
        let server = try ScriptedRTSPServer { request, c in
            switch request.method {
            case "DESCRIBE": c.reply(request, body: ScriptedRTSPServer.sdp())
            case "SETUP": c.reply(request, "200 OK", ["Transport: RTP/AVP/TCP;unicast;interleaved=0-1", "Session: 77"])
            case "PLAY":
                if aligned { for p in old { c.frame(0, p[...]) } }  // before the reply
                var headers = ["Session: 77", "Range: npt=10.000-"]
                switch rtpInfo {
                case "full": headers.append("RTP-Info: url=trackID=0;seq=100;rtptime=0")
                case "otherURL": headers.append("RTP-Info: url=rtsp://elsewhere/stream;seq=100;rtptime=0")
                case "urlOnly": headers.append("RTP-Info: url=trackID=0")
                default: break
                }
                c.reply(request, "200 OK", headers)
                for p in packets { c.frame(0, p) }
                c.frame(1, RTCPTestPackets.bye(ssrc: 0x1234)[...])
            default: c.reply(request)
            }
        }
        defer { server.finish() }
        let client = try RTSPClient(url: server.url, options: .init(requestTimeout: .seconds(5), silenceTimeout: .seconds(5),
                                                                    range: RTSPRange(start: .seconds(10))))
        defer { client.close() }
        try client.start()
        var units: [RTPReceivedAccessUnit] = []
        let stop = try client.receive { if case .video(let au) = $0 { units.append(au) } }
        #expect(stop == .bye)
        #expect(server.requests.first { $0.method == "PLAY" }?.headers["range"] == "npt=10.000-")
        #expect(client.playedRange == RTSPRange(start: .seconds(10)))
        #expect(client.report.packetsBeforeStart == (aligned ? 3 : 0))
        #expect(client.report.packetsLost == 0)
        #expect(units.count == count)
        let pts = units.compactMap { $0.timestamps?.pts }
        #expect(pts.first == 900_000)
        #expect(pts.dropFirst().first == Int64(903_600))
        #expect(units.first?.timestamp == 0)
    }

    /// The fixture numbered from `sequence` at `timestamp`.
    static func packets(sequence: UInt16, timestamp: UInt32) throws -> [[UInt8]] {
        let (packets, _) = try ScriptedRTSPServer.fixturePackets()
        return packets.enumerated().map { n, p in
            var b = Array(p)
            let s = sequence &+ UInt16(n)
            b[2] = UInt8(s >> 8); b[3] = UInt8(s & 0xFF)
            let t = (UInt32(b[4]) << 24 | UInt32(b[5]) << 16 | UInt32(b[6]) << 8 | UInt32(b[7])) &+ timestamp
            b[4] = UInt8(t >> 24); b[5] = UInt8(t >> 16 & 0xFF); b[6] = UInt8(t >> 8 & 0xFF); b[7] = UInt8(t & 0xFF)
            return b
        }
    }

    /// `Range` values as servers write them.
    @Test func rangeValues() {
        #expect(RTSPRange(parsing: "npt=10-") == RTSPRange(start: .seconds(10)))
        #expect(RTSPRange(parsing: "npt = 0:01:02.5-0:02:00") == RTSPRange(start: .milliseconds(62_500), end: .seconds(120)))
        #expect(RTSPRange(parsing: "npt=now-") == RTSPRange(start: nil))
        #expect(RTSPRange(parsing: "npt=-20.25;time=20260101T000000Z") == RTSPRange(start: .zero, end: .milliseconds(20_250)))
        #expect(RTSPRange(parsing: "npt=0.000000000001-") == RTSPRange(start: .zero))
        for bad in ["smpte=10:07:00-", "clock=19961108T142300Z-", "npt=", "npt=-", "npt=1:2-", "npt=0:60:00-", "npt=x-",
                    "npt=99999999999999-", "npt=1.2.3-", "npt=" + String(repeating: "9", count: 300) + "-"] {
            #expect(RTSPRange(parsing: bad) == nil, "\(bad)")
        }
        #expect(RTSPRange().description == "npt=0.000-")
        #expect(RTSPRange(start: .milliseconds(12_345), end: .seconds(20)).description == "npt=12.345-20.000")
        #expect(RTSPRange(start: nil).description == "npt=now-")
        #expect(RTSPRange(start: .milliseconds(62_500)).startTicks == 5_625_000)
    }
}
