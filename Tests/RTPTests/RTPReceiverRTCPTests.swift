import H264
import RTP
import Testing
import TestSupport

/// Datagrams handed out with the port each arrived on, a delay each, then silence.
struct ScriptedSessionSource: RTPDatagramSource {
    var datagrams: [([UInt8], RTPChannel)]
    var gap: Duration = .zero

    mutating func receive(into buffer: inout [UInt8], timeout: Duration) throws(RTPError) -> Int? {
        try receiveDatagram(into: &buffer, timeout: timeout)?.count
    }

    mutating func receiveDatagram(into buffer: inout [UInt8], timeout: Duration) throws(RTPError) -> (count: Int, channel: RTPChannel)? {
        guard !datagrams.isEmpty, gap <= timeout else {
            pause(max(timeout, .zero))
            return nil
        }
        if gap > .zero { pause(gap) }
        let (d, channel) = datagrams.removeFirst()
        buffer = d
        return (d.count, channel)
    }
}

@Suite struct RTPReceiverRTCPTests {
    typealias R = RTCPParsingTests
    /// An IDR slice and a P slice whose headers name PPS 0 (first_mb_in_slice 0).
    static let idr: [UInt8] = [0x65, 0x88, 0x84, 0x21, 0x43], p: [UInt8] = [0x41, 0x9A, 0x02, 0x03]
    static let sps = RTPPacketizerTests.sps, pps = RTPPacketizerTests.pps

    /// Packets of SSRC 3 (timestamps 0, 3000, ...): `count` access units, an IDR with its
    /// parameter sets first, P slices after.
    static func stream(_ count: Int) throws -> [[UInt8]] {
        try RTPReceiverTests.packets((0..<count).map { $0 == 0 ? [sps, pps, idr] : [p + [UInt8(truncatingIfNeeded: $0)]] })
    }

    static func bye(_ ssrc: UInt32) -> [UInt8] { R.packet(RTCP.byeType, count: 1, body: R.u32(ssrc)) }

    static func senderReport(_ ssrc: UInt32, ntp: UInt64, rtp: UInt32) -> [UInt8] {
        R.packet(RTCP.senderReportType, body: R.u32(ssrc) + R.u32(UInt32(ntp >> 32)) + R.u32(UInt32(ntp & 0xFFFF_FFFF)) + R.u32(rtp)
                 + R.u32(0) + R.u32(0))
    }

    /// A BYE from the stream's SSRC stops the loop while packets keep coming, on either port
    /// (multiplexed on the RTP port, RFC 5761, or on the RTCP port): the stop reason is `.bye`.
    @Test(.timeLimit(.minutes(5)), arguments: [RTPChannel.rtp, .rtcp])
    func byeStopsTheLoop(channel: RTPChannel) throws {
        let packets = try Self.stream(300)
        var datagrams = packets.prefix(5).map { ($0, RTPChannel.rtp) }
        datagrams.append((Self.bye(3), channel))
        datagrams += packets.dropFirst(5).map { ($0, RTPChannel.rtp) }
        var source = ScriptedSessionSource(datagrams: datagrams, gap: .milliseconds(5))
        var receiver = try RTPReceiver(.init(idleTimeout: .seconds(20), byeGracePeriod: .milliseconds(50)))
        var delivered = 0
        let stop = try receiver.run(from: &source) { _ in delivered += 1 }
        #expect(stop == .bye && receiver.byeReceived)
        #expect(delivered >= 5 && delivered < 300 && !source.datagrams.isEmpty)
        #expect(receiver.report.rtcpPacketsReceived == 1 && receiver.report.byesIgnored == 0)
    }

    /// A BYE for another SSRC, or before the stream began, is counted and ignored: the loop
    /// ends at the idle timeout with every access unit.
    @Test(.timeLimit(.minutes(5)))
    func byeOfAnotherSourceIsIgnored() throws {
        let datagrams = [(Self.bye(3), RTPChannel.rtcp)] + (try Self.stream(5)).map { ($0, RTPChannel.rtp) }
            + [(Self.bye(99), .rtcp), (RTCP.senderReportAndBye(ssrc: 98, ntpTimestamp: 1, rtpTimestamp: 0, packetCount: 0, octetCount: 0), .rtp)]
        var source = ScriptedSessionSource(datagrams: datagrams)
        var receiver = try RTPReceiver(.init(idleTimeout: .milliseconds(300)))
        var delivered = 0
        #expect(try receiver.run(from: &source) { _ in delivered += 1 } == .idle)
        #expect(delivered == 5 && !receiver.byeReceived)
        #expect(receiver.report.byesIgnored == 3 && receiver.report.rtcpPacketsReceived == 4 && receiver.report.senderReports == 1)
        #expect(receiver.senderReport == nil)
    }

    /// Sender reports of the stream's SSRC give each access unit its wall-clock time: one sent
    /// before the first RTP packet (as FFmpeg does) maps the first access units, a later one
    /// the rest; one of another SSRC changes nothing. Access units before any report have none.
    @Test func senderReportsGiveWallClockTimes() throws {
        let packets = try Self.stream(6)
        let first = RTCPSenderReport(ssrc: 3, ntpTimestamp: 0xE000_0000_0000_0000, rtpTimestamp: 0, packetCount: 0, octetCount: 0)
        let second = RTCPSenderReport(ssrc: 3, ntpTimestamp: 0xE000_0010_0000_0000, rtpTimestamp: 9000, packetCount: 0, octetCount: 0)
        var receiver = try RTPReceiver(.init())
        var aus: [RTPReceivedAccessUnit] = []
        receiver.receive(Self.senderReport(3, ntp: first.ntpTimestamp, rtp: first.rtpTimestamp)[...], channel: .rtcp) { aus.append($0) }
        for packet in packets.prefix(3) { receiver.receive(packet[...]) { aus.append($0) } }
        receiver.receive(Self.senderReport(7, ntp: 5, rtp: 5)[...], channel: .rtcp) { aus.append($0) }
        #expect(receiver.senderReport == first)
        receiver.receive(Self.senderReport(3, ntp: second.ntpTimestamp, rtp: second.rtpTimestamp)[...]) { aus.append($0) }  // multiplexed
        for packet in packets.dropFirst(3) { receiver.receive(packet[...]) { aus.append($0) } }
        receiver.finish { aus.append($0) }
        #expect(receiver.senderReport == second && receiver.report.senderReports == 3)
        #expect(aus.map(\.timestamp) == [0, 3000, 6000, 9000, 12000, 15000])
        #expect(aus.map(\.ntpTimestamp) == aus.enumerated().map { i, au in (i < 3 ? first : second).ntpTimestamp(at: au.timestamp) })
        #expect(aus[1].ntpTimestamp == UInt64(0xE000_0000_0000_0000) + (3000 << 32) / 90_000)
        #expect(aus[3].ntpTimestamp == UInt64(0xE000_0010_0000_0000))

        var late = try RTPReceiver(.init())
        var times: [UInt64?] = []
        #expect(packets.count == 6)  // one packet per access unit, each with the marker bit
        for packet in packets.prefix(2) { late.receive(packet[...]) { times.append($0.ntpTimestamp) } }
        late.receive(Self.senderReport(3, ntp: 1 << 40, rtp: 0)[...], channel: .rtcp) { times.append($0.ntpTimestamp) }
        late.receive(packets[2][...]) { times.append($0.ntpTimestamp) }
        late.finish { times.append($0.ntpTimestamp) }
        #expect(times == [nil, nil, UInt64(1 << 40) + (6000 << 32) / 90_000])
    }

    /// Malformed RTCP on either port is counted, its error kept by code, and the stream goes on.
    @Test func hostileRTCPIsCountedAndIgnored() throws {
        var receiver = try RTPReceiver(.init())
        var delivered = 0
        let packets = try Self.stream(4)
        receiver.receive(packets[0][...]) { _ in delivered += 1 }
        let hostile = R.hostile.map(\.1).filter { !$0.isEmpty }
        for (i, bytes) in hostile.enumerated() {
            receiver.receive(bytes[...], channel: i.isMultiple(of: 2) ? .rtcp : .rtp) { _ in delivered += 1 }
        }
        receiver.receive([][...], channel: .rtcp) { _ in delivered += 1 }
        for packet in packets.dropFirst() { receiver.receive(packet[...]) { _ in delivered += 1 } }
        receiver.finish { _ in delivered += 1 }
        #expect(delivered == 4)
        // Every hostile datagram whose second byte is an RTCP type counts as RTCP on the RTP
        // port; the others there are RTP (rejected as RTP).
        let asRTCP = hostile.enumerated().filter { i, b in i.isMultiple(of: 2) || RTCP.isMultiplexedRTCP(b[...]) }.count + 1
        #expect(receiver.report.rtcpDatagramsRejected == asRTCP)
        #expect(receiver.report.packetsRejected == hostile.count + 1 - asRTCP)
        #expect(receiver.errorCount == hostile.count + 1 && receiver.errors.count == RTPReceiver.maximumKeptErrors)
        #expect(receiver.errors.first?.code == .truncated && receiver.errors[1].code == .invalidPacket)
    }

    /// The sockets of a session over loopback: each datagram comes with its port, and a
    /// datagram waiting on the RTCP port is read within two calls however many wait on the RTP
    /// port.
    @Test(.timeLimit(.minutes(5)))
    func socketPairSaysWhichPort() throws {
        var pair = try UDPSocketPair(receivingOn: 0, rtcpPort: 0, address: "127.0.0.1")
        let rtcpPort = try #require(pair.rtcp?.localPort)
        #expect(rtcpPort != pair.rtp.localPort)
        let toRTP = try UDPSocket(sendingTo: "127.0.0.1", port: pair.rtp.localPort)
        let toRTCP = try UDPSocket(sendingTo: "127.0.0.1", port: rtcpPort)
        for i in 0..<5 { try [UInt8(i)].withUnsafeBytes { try toRTP.send($0) } }
        try [UInt8(0xBB)].withUnsafeBytes { try toRTCP.send($0) }
        var buffer: [UInt8] = []
        var got: [(UInt8, RTPChannel)] = []
        while let (n, channel) = try pair.receiveDatagram(into: &buffer, timeout: .milliseconds(500)) {
            #expect(n == 1)
            got.append((buffer[0], channel))
        }
        #expect(got.count == 6)
        #expect(got.prefix(2).contains { $0 == (0xBB, .rtcp) })
        #expect(got.filter { $0.1 == .rtp }.map(\.0) == [0, 1, 2, 3, 4])
        #expect(throws: RTPError(.invalidArgument, "")) { try UDPSocketPair(receivingOn: 65535, address: "127.0.0.1") }
    }

    /// With `skipsUntilDecodable`, nothing comes out before an IDR picture whose PPS and SPS are
    /// known: a P picture first (a stray packet, a late join) and an IDR whose PPS is unknown are
    /// skipped and counted; parameter sets seen in skipped access units still count, and the
    /// SDP's go in front of the IDR. Without it, everything is delivered.
    @Test(arguments: [true, false])
    func skipsUntilTheFirstDecodableAccessUnit(skips: Bool) throws {
        let packets = try RTPReceiverTests.packets([[Self.p], [Self.idr], [Self.sps, Self.pps], [Self.idr], [Self.p]])
        var receiver = try RTPReceiver(.init(skipsUntilDecodable: skips))
        var aus: [[[UInt8]]] = []
        for packet in packets { receiver.receive(packet[...]) { aus.append($0.nalUnits.map { Array($0.bytes) }) } }
        receiver.finish { aus.append($0.nalUnits.map { Array($0.bytes) }) }
        if skips {
            #expect(aus == [[Self.sps, Self.pps, Self.idr], [Self.p]])
            #expect(receiver.report.accessUnitsSkipped == 3 && receiver.report.accessUnitsDelivered == 2)
        } else {
            #expect(aus.count == 5 && receiver.report.accessUnitsSkipped == 0 && receiver.report.accessUnitsDelivered == 5)
        }

        var fromSDP = try RTPReceiver(.init(parameterSets: [try NALUnit(Self.sps), try NALUnit(Self.pps)], skipsUntilDecodable: true))
        var first: [[UInt8]]?
        for packet in try RTPReceiverTests.packets([[Self.idr]]) { fromSDP.receive(packet[...]) { first = $0.nalUnits.map { Array($0.bytes) } } }
        fromSDP.finish { first = $0.nalUnits.map { Array($0.bytes) } }
        #expect(first == [Self.sps, Self.pps, Self.idr] && fromSDP.report.accessUnitsSkipped == 0)
    }
}
