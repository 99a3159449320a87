import Foundation
import H264
import MediaSupport
import RTP
@testable import RTSP
import Testing

/// Camera behaviours from the field, each reproduced by a scripted server: the client must get
/// the stream through, or end with a typed error within its deadline.
@Suite struct CameraQuirkTests {
    /// An SDP without `sprop-parameter-sets` (gortsplib#88), a `SETUP` reply without
    /// interleaved ids (gortsplib#142), RTP sent before the `PLAY` reply, controls relative to
    /// a `Content-Base`, Digest with `qop` (gortsplib#1074), RTCP sender report and BYE.
    @Test func quirkyCamera() throws {
        let (packets, count) = try ScriptedRTSPServer.fixturePackets()
        let server = try ScriptedRTSPServer { request, c in
            switch request.method {
            case "OPTIONS": c.reply(request, "200 OK", ["Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN"])
            case "DESCRIBE": c.reply(request, "200 OK", ["Content-Base: rtsp://127.0.0.1/cam/", "Content-Type: application/sdp"],
                                     body: ScriptedRTSPServer.sdp())
            case "SETUP": c.reply(request, "200 OK", ["Transport: RTP/AVP/TCP;unicast", "Session: 12345678;timeout=60"])
            case "PLAY":
                for p in packets.prefix(3) { c.frame(0, p) }  // before the reply
                c.reply(request, "200 OK", ["Session: 12345678", "RTP-Info: url=rtsp://127.0.0.1/cam/trackID=0;seq=100;rtptime=0"])
                // A sender report: RTP time 0 is NTP time 3_900_000_000 s + 0.5.
                c.frame(1, RTCPTestPackets.senderReport(ssrc: 0x1234, ntp: 3_900_000_000 << 32 | 0x8000_0000, rtp: 0)[...])
                for p in packets.dropFirst(3) { c.frame(0, p) }
                c.frame(1, RTCPTestPackets.bye(ssrc: 0x1234)[...])
            default: c.reply(request)
            }
        }
        defer { server.finish() }
        let client = try RTSPClient(url: server.url, options: .init(requestTimeout: .seconds(5), silenceTimeout: .seconds(5)))
        defer { client.close() }
        try client.start()
        var units: [RTPReceivedAccessUnit] = []
        let stop = try client.receive { if case .video(let au) = $0 { units.append(au) } }
        #expect(stop == .bye)
        #expect(units.count == count)
        #expect(client.report.packetsLost == 0)
        // The parameter sets came in band; the first access unit starts decoding.
        #expect(units.first?.nalUnits.prefix(2).map(\.type) == [.sps, .pps])
        // SETUP went to the control resolved against Content-Base, asking for channels 0-1.
        let setup = try #require(server.requests.first { $0.method == "SETUP" })
        #expect(setup.uri == "rtsp://127.0.0.1/cam/trackID=0")
        #expect(setup.headers["transport"] == "RTP/AVP/TCP;unicast;interleaved=0-1")
        #expect(client.rtpInfo.first??.sequenceNumber == 100)
        // Wall clock from the sender report (delivered after it): RTP 0 + 3000 ticks per 1/30 s... at 25 fps 3600.
        let mapped = units.dropFirst(3).compactMap(\.ntpTimestamp)
        #expect(mapped.count == count - 3)
        if let first = units.dropFirst(3).first, let ntp = first.ntpTimestamp {
            let seconds = RTCP.unixSeconds(ntpTimestamp: ntp) - RTCP.unixSeconds(ntpTimestamp: 3_900_000_000 << 32 | 0x8000_0000)
            #expect(abs(seconds - Double(first.timestamp) / 90_000) < 1e-6)
        }
        // The server's session id went on PLAY.
        #expect(server.requests.first { $0.method == "PLAY" }?.headers["session"] == "12345678")
    }

    /// Digest challenges as cameras send them: MD5 or SHA-256, with `qop=auth` or without
    /// (RFC 2069 form); the server checks the response against the password.
    @Test(arguments: [("MD5", true), ("MD5", false), ("SHA-256", true), ("SHA-256", false), ("", false)])
    func digest(algorithm: String, qop: Bool) throws {
        let nonce = "dcd98b7102dd2f0e8b11d0f600bfb0c093"
        let server = try ScriptedRTSPServer { request, c in
            guard let authorization = request.headers["authorization"] else {
                var challenge = "WWW-Authenticate: Digest realm=\"cam\", nonce=\"\(nonce)\""
                if !algorithm.isEmpty { challenge += ", algorithm=\(algorithm)" }
                if qop { challenge += ", qop=\"auth,auth-int\"" }
                c.reply(request, "401 Unauthorized", ["WWW-Authenticate: Basic realm=\"cam\"", challenge])
                return
            }
            let ok = DigestCheck.verify(authorization, method: request.method, password: "s3cret", sha256: algorithm == "SHA-256")
            c.reply(request, ok ? "200 OK" : "401 Unauthorized", ok ? ["Public: OPTIONS, DESCRIBE"] : [])
        }
        defer { server.finish() }
        let client = try RTSPClient(url: "rtsp://admin:s3cret@127.0.0.1:\(server.port)/cam", options: .init(requestTimeout: .seconds(5)))
        try client.requestOptions()
        try client.requestOptions()  // the second carries the Authorization at once (nc 2 with qop)
        let sent = server.requests.compactMap { $0.headers["authorization"] }
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0.hasPrefix("Digest ") })
        #expect(sent.last?.contains(qop ? "nc=00000002" : "response=") == true)
        // Basic was offered too; Digest was chosen.
        #expect(server.requests.count == 3)
    }

    /// A server that sends an endless header line, endless headers, a 1 GiB body or an
    /// interleaved frame above the limit: a bounded, typed error.
    @Test(arguments: ["line", "headers", "body", "frame"])
    func hostileResponses(kind: String) throws {
        let server = try ScriptedRTSPServer { request, c in
            switch kind {
            case "line":
                c.send("RTSP/1.0 200 OK\r\nCSeq: \(request.cseq)\r\nX-Long: ")
                for _ in 0..<64 { c.send(String(repeating: "a", count: 1024)) }
            case "headers":
                c.send("RTSP/1.0 200 OK\r\nCSeq: \(request.cseq)\r\n")
                for i in 0..<1000 { c.send("X-\(i): y\r\n") }
            case "body":
                c.send("RTSP/1.0 200 OK\r\nCSeq: \(request.cseq)\r\nContent-Length: 1073741824\r\n\r\n")
            default:
                c.frame(0, [UInt8](repeating: 0, count: 4000)[...])
                c.reply(request)
            }
        }
        defer { server.finish() }
        var limits = RTSPLimits()
        if kind == "frame" { limits.maximumInterleavedFrameSize = 2000 }
        let client = try RTSPClient(url: server.url, options: .init(requestTimeout: .seconds(5), limits: limits))
        #expect(throws: RTSPError.invalid(.limitExceeded, "")) { try client.requestOptions() }
    }

    /// A server that accepts and never answers, and one that stops sending media after PLAY:
    /// the request deadline, then the silence timeout.
    @Test func silentServer() throws {
        let mute = try ScriptedRTSPServer { _, _ in }
        defer { mute.finish() }
        let client = try RTSPClient(url: mute.url, options: .init(requestTimeout: .milliseconds(300)))
        #expect(throws: RTSPError.invalid(.timedOut, "")) { try client.requestOptions() }

        let stalled = try ScriptedRTSPServer { request, c in
            switch request.method {
            case "DESCRIBE": c.reply(request, body: ScriptedRTSPServer.sdp())
            case "SETUP": c.reply(request, "200 OK", ["Transport: RTP/AVP/TCP;unicast;interleaved=4-5", "Session: 1"])
            default: c.reply(request)
            }
        }
        defer { stalled.finish() }
        let quiet = try RTSPClient(url: stalled.url, options: .init(requestTimeout: .seconds(5), silenceTimeout: .milliseconds(400)))
        try quiet.start()
        #expect(throws: RTSPError.invalid(.timedOut, "")) { try quiet.receive { _ in } }
    }

    /// Cancelled from another thread while it waits for a response.
    @Test func cancelFromAnotherThread() throws {
        let mute = try ScriptedRTSPServer { _, _ in }
        defer { mute.finish() }
        let client = try RTSPClient(url: mute.url, options: .init(requestTimeout: .seconds(30)))
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.2)
            client.cancel()
        }
        #expect(throws: RTSPError.invalid(.cancelled, "")) { try client.requestOptions() }
    }

    /// Keep-alive at half the session timeout, with GET_PARAMETER since the server lists it;
    /// a lost reference picture asks for a keyframe (PLI on the RTCP channel), rate-limited,
    /// and receiver reports go out.
    @Test func keepAliveAndKeyframeRequests() throws {
        let (packets, _) = try ScriptedRTSPServer.fixturePackets()
        let server = try ScriptedRTSPServer { request, c in
            switch request.method {
            case "OPTIONS": c.reply(request, "200 OK", ["Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER"])
            case "DESCRIBE": c.reply(request, body: ScriptedRTSPServer.sdp())
            case "SETUP": c.reply(request, "200 OK", ["Transport: RTP/AVP/TCP;unicast;interleaved=0-1", "Session: 9;timeout=1"])
            case "PLAY":
                c.reply(request)
                // The first packets, a gap (the 6th is lost), then the rest, slowly: 1.2 s in all.
                for (i, p) in packets.enumerated() where i != 5 {
                    c.frame(0, p)
                    Thread.sleep(forTimeInterval: 1.2 / Double(packets.count))
                }
            default: c.reply(request)
            }
        }
        defer { server.finish() }
        let client = try RTSPClient(url: server.url, options: .init(requestTimeout: .seconds(5), silenceTimeout: .seconds(5),
                                                                    receiverReportInterval: .milliseconds(200),
                                                                    keyframeRequestInterval: .milliseconds(300)))
        defer { client.close() }
        try client.start()
        let end = Date().addingTimeInterval(1.6)
        _ = try client.receive(until: { Date() > end }) { _ in }
        #expect(client.report.packetsLost == 1)
        let keepAlives = server.requests.filter { $0.method == "GET_PARAMETER" }
        #expect(keepAlives.count >= 2)
        #expect(keepAlives.allSatisfy { $0.headers["session"] == "9" })
        let rtcp = server.framesFromClient
        let plis = rtcp.filter { RTCPTestPackets.containsPLI($0, mediaSource: 0x1234) }
        #expect(plis.count >= 1)
        // Rate-limited: at most one per 300 ms over 1.6 s.
        #expect(plis.count <= 6)
        #expect(rtcp.allSatisfy { (try? RTCP.packets(in: $0[...]))?.first == .receiverReport(ssrc: $0.count >= 8 ? UInt32($0[4]) << 24 | UInt32($0[5]) << 16 | UInt32($0[6]) << 8 | UInt32($0[7]) : 0) })
    }
}

/// RTCP packets the scripts send, and a PLI finder.
enum RTCPTestPackets {
    static func senderReport(ssrc: UInt32, ntp: UInt64, rtp: UInt32) -> [UInt8] {
        Array(RTCP.senderReportAndBye(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtp, packetCount: 0, octetCount: 0).prefix(28))
    }

    static func bye(ssrc: UInt32) -> [UInt8] {
        [0x81, 203, 0, 1, UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)]
    }

    /// True when a compound packet holds a PLI (PT 206, FMT 1) for `mediaSource`.
    static func containsPLI(_ compound: [UInt8], mediaSource: UInt32) -> Bool {
        var i = 0
        while i + 4 <= compound.count {
            let length = (Int(compound[i + 2]) << 8 | Int(compound[i + 3]) + 1) * 4
            if compound[i + 1] == 206, compound[i] & 0x1F == 1, i + 12 <= compound.count {
                let media = UInt32(compound[i + 8]) << 24 | UInt32(compound[i + 9]) << 16 | UInt32(compound[i + 10]) << 8 | UInt32(compound[i + 11])
                if media == mediaSource { return true }
            }
            i += length
        }
        return false
    }
}

/// The server's side of Digest: recomputes the response from the password (RFC 7616 3.4.1).
enum DigestCheck {
    static func verify(_ header: String, method: String, password: String, sha256: Bool) -> Bool {
        guard header.hasPrefix("Digest ") else { return false }
        let p = RTSPAuthenticator.parameters(header.dropFirst(7)[...])
        guard let user = p["username"], let realm = p["realm"], let nonce = p["nonce"], let uri = p["uri"], let response = p["response"] else { return false }
        let h: (String) -> String = { hex(sha256 ? SHA256.hash(Array($0.utf8)) : MD5.hash(Array($0.utf8))) }
        let ha1 = h("\(user):\(realm):\(password)"), ha2 = h("\(method):\(uri)")
        if let qop = p["qop"], let nc = p["nc"], let cnonce = p["cnonce"] {
            return response == h("\(ha1):\(nonce):\(nc):\(cnonce):\(qop):\(ha2)")
        }
        return response == h("\(ha1):\(nonce):\(ha2)")
    }
}

/// Redirects and the fall back from UDP to TCP.
@Suite struct RTSPSessionRecoveryTests {
    /// `DESCRIBE` answered 302 with a Location on another server: followed, with the
    /// credentials; a loop of redirects ends after the limit.
    @Test func redirectIsFollowed() throws {
        let target = try ScriptedRTSPServer { request, c in
            switch request.method {
            case "DESCRIBE": c.reply(request, body: ScriptedRTSPServer.sdp())
            default: c.reply(request)
            }
        }
        defer { target.finish() }
        let first = try ScriptedRTSPServer { request, c in
            c.reply(request, "302 Moved Temporarily", ["Location: rtsp://127.0.0.1:\(target.port)/moved"])
        }
        defer { first.finish() }
        let client = try RTSPClient(url: first.url, options: .init(requestTimeout: .seconds(5)))
        let description = try client.describe()
        #expect(client.url.requestURI == "rtsp://127.0.0.1:\(target.port)/moved")
        #expect(description.tracks.first?.url.requestURI == "rtsp://127.0.0.1:\(target.port)/moved/trackID=0")
        #expect(target.requests.first?.uri == "rtsp://127.0.0.1:\(target.port)/moved")
        #expect(client.statistics.redirects == 1)

        let loop = try ScriptedRTSPServer { request, c in c.reply(request, "301 Moved", ["Location: /again"]) }
        defer { loop.finish() }
        #expect(throws: RTSPError.invalid(.requestFailed, "")) {
            try RTSPClient(url: loop.url, options: .init(requestTimeout: .seconds(5), maximumRedirects: 2)).describe()
        }
        #expect(loop.requests.count == 3)
    }

    /// A server that sets UDP up but sends nothing there (UDP blocked on the way): after
    /// `udpFallbackTimeout` the client sets the session up again over TCP and gets the stream.
    @Test func udpFallsBackToTCP() throws {
        let (packets, count) = try ScriptedRTSPServer.fixturePackets()
        let server = try ScriptedRTSPServer { request, c in
            switch request.method {
            case "DESCRIBE": c.reply(request, body: ScriptedRTSPServer.sdp())
            case "SETUP":
                let transport = request.headers["transport"] ?? ""
                if transport.contains("TCP") {
                    c.reply(request, "200 OK", ["Transport: RTP/AVP/TCP;unicast;interleaved=0-1", "Session: tcp1"])
                } else {
                    c.reply(request, "200 OK", [transport.replacingOccurrences(of: "RTP/AVP;", with: "Transport: RTP/AVP;") + ";server_port=9-10", "Session: udp1"])
                }
            case "PLAY":
                c.reply(request)
                if request.headers["session"] == "tcp1" {
                    for p in packets { c.frame(0, p) }
                    c.frame(1, RTCPTestPackets.bye(ssrc: 0x1234)[...])
                }
            default: c.reply(request)
            }
        }
        defer { server.finish() }
        let client = try RTSPClient(url: server.url, options: .init(transport: .udp, requestTimeout: .seconds(5), silenceTimeout: .seconds(5),
                                                                    udpFallbackTimeout: .milliseconds(500)))
        defer { client.close() }
        try client.start()
        var units = 0
        let stop = try client.receive { if case .video = $0 { units += 1 } }
        #expect(stop == .bye)
        #expect(units == count)
        #expect(client.transport == .tcp)
        #expect(client.statistics.fellBackToTCP)
        #expect(server.requests.filter { $0.method == "SETUP" }.map { $0.headers["transport"]?.contains("TCP") == true } == [false, true])
    }
}
