import Foundation
import H264
import H264Fixtures
import MediaSupport
import RTP
@testable import RTSP
import Testing
import TestSupport

/// Loss on the UDP path: a scripted server sends the fixture's packets to the client's
/// `client_port` with some dropped, and listens for RTCP on its `server_port`. The losses are
/// counted, a PLI reaches the server's RTCP port, and every access unit handed on as whole is
/// byte for byte the one sent.
@Suite struct UDPLossTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func lossIsCountedAndAsksForAKeyframe(seed: UInt64) throws {
        let (packets, _) = try ScriptedRTSPServer.fixturePackets(mtu: 300)
        var random = SplitMix64(seed: seed)
        let dropped = Set((0..<4).map { _ in Int.random(in: 5..<(packets.count - 5), using: &random) })
        let rtcp = try DatagramSocket(bindingTo: "127.0.0.1", port: 0)
        let server = try ScriptedRTSPServer { request, c in
            switch request.method {
            case "DESCRIBE": c.reply(request, body: ScriptedRTSPServer.sdp())
            case "SETUP":
                let transport = request.headers["transport"] ?? ""
                c.reply(request, "200 OK", ["Transport: \(transport);server_port=\(rtcp.localPort - 1)-\(rtcp.localPort)", "Session: u"])
            case "PLAY":
                c.reply(request)
            default: c.reply(request)
            }
        }
        defer { server.finish() }
        let client = try RTSPClient(url: server.url, options: .init(transport: .udp, requestTimeout: .seconds(5), silenceTimeout: .seconds(5),
                                                                    receiverReportInterval: .milliseconds(100),
                                                                    keyframeRequestInterval: .milliseconds(50), reorderWindow: 4))
        defer { client.close() }
        try client.start()
        let setup = try #require(server.requests.first { $0.method == "SETUP" }?.headers["transport"])
        let clientPort = try #require(setup.split(separator: "=").last.flatMap { Int($0.split(separator: "-")[0]) })
        // The sender: on its own thread, 2 ms apart, then a BYE to the client's RTCP port.
        let sent = packets
        Thread.detachNewThread {
            guard let rtp = try? DatagramSocket(sendingTo: "127.0.0.1", port: clientPort),
                  let control = try? DatagramSocket(sendingTo: "127.0.0.1", port: clientPort + 1) else { return }
            for (i, p) in sent.enumerated() where !dropped.contains(i) {
                _ = Array(p).withUnsafeBytes { try? rtp.send($0, deadline: .after(.seconds(1))) }
                Thread.sleep(forTimeInterval: 0.002)
            }
            Thread.sleep(forTimeInterval: 0.2)
            _ = RTCPTestPackets.bye(ssrc: 0x1234).withUnsafeBytes { try? control.send($0, deadline: .after(.seconds(1))) }
        }
        var units: [RTPReceivedAccessUnit] = []
        let stop = try client.receive { if case .video(let au) = $0 { units.append(au) } }
        #expect(stop == .bye)
        // Every sequence number dropped is counted lost (none dropped next to another: at most 4).
        #expect(client.report.packetsLost == dropped.count)
        // What is handed on as whole is what was sent.
        let reference = RTPAccessUnit.accessUnits(annexB: Fixture.baselineCAVLC.bytes()[...],
                                                  timing: .init(frameRate: (25, 1), overridesStreamTiming: true))
        var byTime: [UInt32: [[UInt8]]] = [:]
        for au in reference { byTime[UInt32(truncatingIfNeeded: au.timestamp90kHz)] = au.nalUnits.map { Array($0.bytes) } }
        for au in units where !au.mayBeIncomplete {
            let got = au.nalUnits.filter { $0.type == .slice || $0.type == .idrSlice }.map { Array($0.bytes) }
            let expected = (byTime[au.timestamp] ?? []).filter { ($0.first ?? 0) & 0x1F == 1 || ($0.first ?? 0) & 0x1F == 5 }
            #expect(got == expected, "access unit at \(au.timestamp)")
        }
        #expect(units.contains { $0.mayBeIncomplete } || client.report.accessUnitsLost > 0)
        // Most arrive whole (4 packets lost damage at most 8 access units).
        #expect(units.filter { !$0.mayBeIncomplete }.count >= reference.count - 2 * dropped.count)
        // A PLI for the source reached the server's RTCP port.
        var buffer = [UInt8](repeating: 0, count: 2048)
        var plis = 0, reports = 0
        while let n = try? buffer.withUnsafeMutableBytes({ try rtcp.receive(into: $0, deadline: .now) }) {
            let compound = Array(buffer[..<n])
            if (try? RTCP.packets(in: compound[...]))?.first.map({ if case .receiverReport = $0 { true } else { false } }) == true { reports += 1 }
            if RTCPTestPackets.containsPLI(compound, mediaSource: 0x1234) { plis += 1 }
        }
        #expect(plis >= 1)
        #expect(reports >= 1)
    }
}
