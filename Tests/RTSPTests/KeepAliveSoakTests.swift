import Foundation
import H264
import MediaSupport
import RTP
@testable import RTSP
import Testing

/// Whether the long real-time tests run (they take half a minute each).
enum LongTests {
    static let isOn = ProcessInfo.processInfo.environment["H264_LONG_TESTS"] == "1"
}

/// A camera's 5 s session timeout held past 30 s by the client's keep-alives alone. Opt-in:
/// it runs in real time for 32 s.
@Suite(.enabled(if: LongTests.isOn, "a 32 s real-time session: H264_LONG_TESTS=1 swift test --filter KeepAliveSoakTests"))
struct KeepAliveSoakTests {
    /// The scripted camera (`Session: ...;timeout=5`, GET_PARAMETER not listed, so the client's
    /// keep-alive is OPTIONS) streams a picture every 40 ms from a thread of its own and drops
    /// the session (closes the connection) when no request has named it for 5 s: RTCP does not
    /// count, as on cameras that only watch RTSP. The client receives for 32 s: the session is
    /// never dropped, a keep-alive goes at least every 2.5 s (half the timeout), and pictures
    /// arrive until the end.
    @Test(.timeLimit(.minutes(5))) func sessionHeldPastThirtySeconds() throws {
        let (packets, _) = try ScriptedRTSPServer.fixturePackets()
        let seen = ThreadLock((last: Date(), expired: false, longestGap: 0.0, sent: 0))
        let holding = 32.0
        let server = try ScriptedRTSPServer(lifetime: .seconds(60)) { request, c in
            if request.headers["session"] == "soak" {
                seen.withLock { s in
                    s.longestGap = max(s.longestGap, Date().timeIntervalSince(s.last))
                    s.last = Date()
                }
            }
            switch request.method {
            case "OPTIONS": c.reply(request, "200 OK", ["Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN"])
            case "DESCRIBE": c.reply(request, body: ScriptedRTSPServer.sdp())
            case "SETUP": c.reply(request, "200 OK", ["Transport: RTP/AVP/TCP;unicast;interleaved=0-1", "Session: soak;timeout=5"])
            case "PLAY":
                c.reply(request, "200 OK", ["Session: soak", "RTP-Info: url=trackID=0;seq=100;rtptime=0"])
                seen.withLock { $0.last = Date() }
                Thread.detachNewThread {
                    let end = Date().addingTimeInterval(holding + 3)
                    var n = 0
                    while Date() < end {
                        if seen.withLock({ Date().timeIntervalSince($0.last) > 5 }) {
                            seen.withLock { $0.expired = true }
                            c.socket.close()  // the session timed out: the camera hangs up
                            return
                        }
                        // The fixture again and again, numbered on: sequence and RTP time continue.
                        let loop = n / packets.count
                        var p = Array(packets[n % packets.count])
                        let seq = UInt16(truncatingIfNeeded: 100 + n)
                        p[2] = UInt8(seq >> 8); p[3] = UInt8(seq & 0xFF)
                        let t = (UInt32(p[4]) << 24 | UInt32(p[5]) << 16 | UInt32(p[6]) << 8 | UInt32(p[7]))
                            &+ UInt32(truncatingIfNeeded: loop * 1_000 * 3_600)
                        p[4] = UInt8(t >> 24); p[5] = UInt8(t >> 16 & 0xFF); p[6] = UInt8(t >> 8 & 0xFF); p[7] = UInt8(t & 0xFF)
                        c.frame(0, p[...])
                        seen.withLock { $0.sent += 1 }
                        n += 1
                        Thread.sleep(forTimeInterval: 0.04)
                    }
                }
            default: c.reply(request)
            }
        }
        defer { server.finish() }
        let client = try RTSPClient(url: server.url, options: .init(requestTimeout: .seconds(5), silenceTimeout: .seconds(6)))
        defer { client.close() }
        try client.start()
        #expect(client.sessionTimeout == .seconds(5))
        let end = Date().addingTimeInterval(holding)
        var units = 0, lateUnits = 0
        let stop = try client.receive(until: { Date() > end }) { event in
            guard case .video = event else { return }
            units += 1
            if Date() > end.addingTimeInterval(-2) { lateUnits += 1 }
        }
        #expect(stop == .requested)
        let state = seen.withLock { $0 }
        #expect(!state.expired)
        #expect(state.longestGap < 5)
        let keepAlives = server.requests.filter { $0.method == "OPTIONS" && $0.headers["session"] == "soak" }
        #expect(keepAlives.count >= 11)  // 32 s at one per 2.5 s: 12
        #expect(client.statistics.keepAlivesSent == keepAlives.count)
        #expect(units > 100)
        #expect(lateUnits > 0)  // still streaming in the last 2 s, past 30 s
        #expect(client.report.packetsLost == 0)
        print("keep-alive soak: \(keepAlives.count) keep-alives, longest gap between requests \(state.longestGap) s, \(units) access units, \(state.sent) packets sent")
    }
}
