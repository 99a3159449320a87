import Foundation
import H264
import RTP
import Testing
import TestSupport

/// A stray RTP packet, as one left over from an earlier session: a P slice of SSRC 0x5EED, no
/// marker bit, sent to `port` before the real sender starts.
func sendStrayPacket(to port: Int) throws {
    var packet: [UInt8] = []
    RTPHeader(marker: false, payloadType: 96, sequenceNumber: 7, timestamp: 12_345, ssrc: 0x5EED).write(to: &packet)
    packet += [0x41, 0x9A, 0x02, 0x03]
    let socket = try UDPSocket(sendingTo: "127.0.0.1", port: port)
    try packet.withUnsafeBytes { try socket.send($0) }
}

/// Real senders that end with an RTCP BYE (FFmpeg's RTP muxer with `-rtpflags send_bye`, and
/// `h264 rtp-send`), received by the library over the RTP and RTCP ports after a stray packet:
/// the receiver stops because of the BYE (its idle timeout is far away), starts at the first
/// decodable access unit, and what it wrote decodes to the source's frames.
@Suite(.enabled(if: FFmpeg.isPresent, "needs ffmpeg (with libx264)"))
struct RTCPByeTests {
    struct Received {
        var stop: RTPReceiver.Stop
        var report: RTPLossReport
        var senderReport: RTCPSenderReport?
        var ntpTimestamps: [UInt64?]
        var annexB: [UInt8]
    }

    /// Receives on a free even port and the next one (RTCP) from the sender `sender(port)`
    /// starts, after a stray packet.
    static func receive(_ sender: (Int) -> (String, [String])) throws -> Received {
        let port = Ports.freeEvenPort()
        var sockets = try UDPSocketPair(receivingOn: port, address: "127.0.0.1")
        var receiver = try RTPReceiver(.init(depacketizer: .init(payloadType: 96), duration: .seconds(40), idleTimeout: .seconds(20),
                                             firstPacketTimeout: .seconds(20), skipsUntilDecodable: true))
        try sendStrayPacket(to: port)
        let (program, args) = sender(port)
        let process = try Support.start(program, args)
        var annexB: [UInt8] = []
        var times: [UInt64?] = []
        let stop = try receiver.run(from: &sockets) { au in
            times.append(au.ntpTimestamp)
            for unit in au.nalUnits { AnnexB.append(unit, to: &annexB) }
        }
        #expect(!Support.wait(process, timeout: 10), "the sender did not end")
        #expect(process.terminationStatus == 0, "the sender failed")
        return Received(stop: stop, report: receiver.report, senderReport: receiver.senderReport, ntpTimestamps: times, annexB: annexB)
    }

    static func expectFramesOfTheSource(_ received: Received, _ stream: String) throws {
        let output = try Support.temporaryFile(received.annexB, name: "received.264")
        defer { try? FileManager.default.removeItem(atPath: (output as NSString).deletingLastPathComponent) }
        let reference = try SenderStreams.reference(stream)
        #expect(reference.count == 50)
        #expect(try FFmpeg.frameMD5s(file: output) == reference)
    }

    /// FFmpeg's RTP muxer: a sender report at the start (the access units get its wall-clock
    /// time, which is today's) and a sender report + BYE at the end (`send_bye`).
    @Test(.timeLimit(.minutes(5)))
    func stopsAtFFmpegsBye() throws {
        let path = try SenderStreams.path("baseline")
        let received = try Self.receive { port in
            ("ffmpeg", ["-nostdin", "-loglevel", "error", "-readrate", "4", "-i", path, "-c", "copy", "-f", "rtp", "-payload_type", "96",
                        "-rtpflags", "send_bye", "rtp://127.0.0.1:\(port)?pkt_size=1200"])
        }
        #expect(received.stop == .bye)
        let r = received.report
        #expect(r.sourceChanges == 1 && r.accessUnitsSkipped == 1 && r.accessUnitsDelivered == 50, "\(r)")
        #expect(r.packetsLost == 0 && r.byesIgnored == 0 && r.rtcpDatagramsRejected == 0 && r.senderReports >= 2)
        let times = received.ntpTimestamps.compactMap { $0 }
        try #require(times.count >= 40)
        #expect(abs(RTCP.unixSeconds(ntpTimestamp: times[0]) - Date().timeIntervalSince1970) < 120)
        // Consecutive pictures 40 ms apart on the sender's clock (under the first report:
        // the last one, sent after the last packet, maps FFmpeg's paced clock anew).
        let early = times.prefix(40)
        #expect(zip(early, early.dropFirst()).allSatisfy { abs(Int64(bitPattern: $1 &- $0) - (Int64(1) << 32) / 25) < 1000 })
        #expect(received.senderReport?.packetCount == UInt32(r.packetsReceived - 1))  // the stray one was not FFmpeg's
        try Self.expectFramesOfTheSource(received, path)
    }

    /// `h264 rtp-send`: its sender report and BYE go to the RTCP port half a second after the
    /// last packet.
    @Test(.timeLimit(.minutes(5)), .enabled(if: Support.h264 != nil, "needs the built h264 tool"))
    func stopsAtRTPSendsBye() throws {
        let h264 = try #require(Support.h264)
        let path = try SenderStreams.path("bframes")
        let sdp = try Support.temporaryDirectory() + "/sent.sdp"
        defer { try? FileManager.default.removeItem(atPath: (sdp as NSString).deletingLastPathComponent) }
        let received = try Self.receive { port in
            (h264, ["rtp-send", path, "--to", "127.0.0.1:\(port)", "--speed", "4", "--sdp", sdp])
        }
        #expect(received.stop == .bye)
        let r = received.report
        #expect(r.sourceChanges == 1 && r.accessUnitsSkipped == 1 && r.accessUnitsDelivered == 50, "\(r)")
        #expect(r.packetsLost == 0 && r.senderReports == 1)
        #expect(received.senderReport?.packetCount == UInt32(r.packetsReceived - 1))
        try Self.expectFramesOfTheSource(received, path)
    }
}
