import H264
import RTP
import Testing
import TestSupport

@Suite struct RTCPParsingTests {
    /// An RTCP packet: V=2, the padding bit, a count, a type, then `body` (whose length in
    /// 32-bit words, less one, is written unless `length` is given).
    static func packet(_ type: UInt8, count: UInt8 = 0, body: [UInt8], padding: Bool = false, version: UInt8 = 2,
                       length: Int? = nil) -> [UInt8] {
        let words = length ?? (body.count + 4) / 4 - 1
        return [version << 6 | (padding ? 0x20 : 0) | count, type, UInt8(words >> 8), UInt8(words & 0xFF)] + body
    }

    static func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static let senderInfo = u32(7) + u32(0xE000_0000) + u32(0x8000_0000) + u32(90_000) + u32(10) + u32(1000)

    /// The compound packet `RTCP.senderReportAndBye` writes reads back to its fields.
    @Test func readsItsOwnSenderReportAndBye() throws {
        let bytes = RTCP.senderReportAndBye(ssrc: 0x0102_0304, ntpTimestamp: 0xE000_0001_8000_0000, rtpTimestamp: 90_000,
                                            packetCount: 5, octetCount: 600)
        let packets = try RTCP.packets(in: bytes[...])
        #expect(packets == [.senderReport(RTCPSenderReport(ssrc: 0x0102_0304, ntpTimestamp: 0xE000_0001_8000_0000,
                                                           rtpTimestamp: 90_000, packetCount: 5, octetCount: 600)),
                            .bye(ssrcs: [0x0102_0304])])
    }

    /// FFmpeg 5.1's RTP muxer with `-rtpflags send_bye`, its last datagram (captured): a sender
    /// report (99 packets, 77,931 bytes) and a BYE. And an RR + SDES + BYE with a reason, padded.
    @Test func readsFFmpegsCompoundPacket() throws {
        let hex = "80c800063e7d509feebff3ee54bc6a7e51643c44000000630001306b81cb00013e7d509f"
        var bytes: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            bytes.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        let packets = try RTCP.packets(in: bytes[...])
        #expect(packets.count == 2)
        guard case .senderReport(let sr)? = packets.first else {
            Issue.record("no sender report: \(packets)")
            return
        }
        #expect(sr.ssrc == 0x3E7D_509F && sr.packetCount == 99 && sr.octetCount == 77_931 && sr.rtpTimestamp == 0x5164_3C44)
        #expect(packets.last == .bye(ssrcs: [0x3E7D_509F]))

        let reason: [UInt8] = [4] + Array("done".utf8) + [0, 0, 0]  // length, text, padding to a word
        let block = [UInt8](repeating: 0, count: 24)
        let compound = Self.packet(RTCP.receiverReportType, count: 1, body: Self.u32(9) + block)
            + Self.packet(RTCP.sourceDescriptionType, count: 1, body: Self.u32(9) + [1, 2, 0x41, 0x42, 0, 0, 0, 0])
            + Self.packet(RTCP.byeType, count: 2, body: Self.u32(9) + Self.u32(10) + reason + [0, 0, 0, 4], padding: true)
        #expect(try RTCP.packets(in: compound[...]) == [.receiverReport(ssrc: 9), .other(packetType: 202), .bye(ssrcs: [9, 10])])
    }

    static let sr = packet(RTCP.senderReportType, body: senderInfo)

    static let hostile: [(String, [UInt8], RTPError.Code)] = [
        ("empty", [], .truncated),
        ("three bytes", [0x80, 200, 0], .truncated),
        ("version 1", packet(RTCP.senderReportType, body: senderInfo, version: 1), .invalidPacket),
        ("version 0 after a report", sr + packet(RTCP.byeType, count: 1, body: u32(7), version: 0), .invalidPacket),
        ("length past the end", packet(RTCP.senderReportType, body: senderInfo, length: 7), .truncated),
        ("length 65535 in a short datagram", packet(RTCP.byeType, body: [], length: 65535), .truncated),
        ("two bytes after the last packet", sr + [0x80, 203], .truncated),
        ("padding in the first of two", packet(RTCP.senderReportType, body: senderInfo, padding: true) + sr, .invalidPacket),
        ("padding count 0", packet(RTCP.byeType, count: 1, body: u32(7) + [0, 0, 0, 0], padding: true), .invalidPacket),
        ("padding longer than the packet", packet(RTCP.byeType, count: 1, body: u32(7) + [0, 0, 0, 9], padding: true), .invalidPacket),
        ("sender report cut", packet(RTCP.senderReportType, body: Array(senderInfo.prefix(20))), .truncated),
        ("sender report without its blocks", packet(RTCP.senderReportType, count: 2, body: senderInfo), .truncated),
        ("receiver report without its block", packet(RTCP.receiverReportType, count: 1, body: u32(7)), .truncated),
        ("BYE of 3 with 1", packet(RTCP.byeType, count: 3, body: u32(7)), .truncated),
        ("BYE of 31 with padding eating them", packet(RTCP.byeType, count: 31, body: [UInt8](repeating: 0, count: 123) + [124], padding: true),
         .truncated),
        ("65 packets", [UInt8]((0..<65).map { _ in packet(RTCP.byeType, body: []) }.joined()), .limitExceeded),
        ("65,536 bytes", packet(204, body: [UInt8](repeating: 0, count: 65_532)), .limitExceeded),
    ]

    /// Malformed compound packets: the error named by its code, never a trap.
    @Test(arguments: hostile)
    func rejected(name: String, bytes: [UInt8], code: RTPError.Code) {
        #expect(throws: RTPError(code, name)) { try RTCP.packets(in: bytes[...]) }
    }

    /// Every prefix of a valid compound packet either reads as the packets it holds whole or
    /// throws a typed error; the same for every one-byte change (never a trap).
    @Test func prefixesAndMutations() throws {
        let whole = RTCP.senderReportAndBye(ssrc: 3, ntpTimestamp: 1, rtpTimestamp: 2, packetCount: 3, octetCount: 4)
        let full = try RTCP.packets(in: whole[...])
        for n in 0..<whole.count {
            do {
                let read = try RTCP.packets(in: whole[..<n])
                #expect(n == 28 && read == Array(full.prefix(1)), "prefix \(n)")
            } catch {
                #expect(error.code == .truncated, "prefix \(n): \(error)")
            }
        }
        var rng = SplitMix64(seed: 27)
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes = whole
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            if let packets = try? RTCP.packets(in: bytes[...]) {
                accepted += 1
                #expect(packets.count <= whole.count / 4)
            }
        }
        #expect(accepted > 0 && accepted < 20_000)
    }

    /// The sender report's mapping: one second of 90 kHz ticks is 2^32 in NTP units, either
    /// side of the report and across the 32-bit wrap of RTP timestamps.
    @Test func wallClockMapping() {
        let report = RTCPSenderReport(ssrc: 1, ntpTimestamp: 0xE000_0000_8000_0000, rtpTimestamp: 0xFFFF_0000,
                                      packetCount: 0, octetCount: 0)
        #expect(report.ntpTimestamp(at: 0xFFFF_0000) == 0xE000_0000_8000_0000)
        #expect(report.ntpTimestamp(at: 0xFFFF_0000 &+ 90_000) == 0xE000_0001_8000_0000)  // wraps past 2^32
        #expect(report.ntpTimestamp(at: 0xFFFF_0000 &- 45_000) == 0xE000_0000_0000_0000)  // half a second before
        #expect(report.ntpTimestamp(at: 0xFFFF_0000 &+ 3_000) == UInt64(0xE000_0000_8000_0000) + (3_000 << 32) / 90_000)
        // The farthest reachable: 2^31 ticks before, and a clock rate that cannot divide.
        #expect(report.ntpTimestamp(at: 0x7FFF_0000) == UInt64(0xE000_0000_8000_0000) - (UInt64(1) << 63) / 90_000)
        #expect(report.ntpTimestamp(at: 5, clockRate: 0) == report.ntpTimestamp)
        let now = 1_700_000_000.25
        #expect(abs(RTCP.unixSeconds(ntpTimestamp: RTCP.ntpTimestamp(unixSeconds: now)) - now) < 1e-6)
    }

    /// RFC 5761's rule on the RTP port: a second octet in 192...223 is RTCP; RTP with payload
    /// type 96, marker bit or not, is not.
    @Test func multiplexedRTCPIsRecognised() {
        #expect(RTCP.isMultiplexedRTCP(Self.sr[...]))
        #expect(RTCP.isMultiplexedRTCP(Self.packet(206, count: 1, body: Self.u32(1) + Self.u32(2))[...]))
        #expect(!RTCP.isMultiplexedRTCP([0x80, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x41][...]))
        #expect(!RTCP.isMultiplexedRTCP([0x80, 0xE0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x41][...]))
        #expect(!RTCP.isMultiplexedRTCP([0x40, 200, 0, 6][...]))  // version 1
        #expect(!RTCP.isMultiplexedRTCP([0x80][...]))
    }
}
