import RTP
import Testing

/// The receiver's RTCP: reception figures as RFC 3550 A.3 and A.8 define them, and the compound
/// packets (receiver report, SDES, PLI, FIR) read back by the library's own RTCP reader.
@Suite struct RTCPFeedbackTests {
    @Test func lossAndSequenceCycles() {
        var s = RTPReceptionStatistics()
        // 65,530 ... 65,535, 0 ... 9 with 3 and 4 lost: a wrap of the 16-bit sequence number.
        var sequence: UInt16 = 65_530
        for i in 0..<16 {
            if sequence != 3 && sequence != 4 {
                s.record(ssrc: 9, sequenceNumber: sequence, timestamp: UInt32(i) * 3000, arrival: Int64(i) * 3000)
            }
            sequence &+= 1
        }
        #expect(s.extendedHighestSequenceNumber == 1 << 16 | 9)
        #expect(s.expected == 16)
        let block = s.makeReportBlock(at: .now)
        #expect(block?.cumulativeLost == 2)
        #expect(block?.fractionLost == UInt8(2 * 256 / 16))
        // Packets that arrive on time have no jitter.
        #expect(block?.jitter == 0)
        // The next interval: nothing lost.
        s.record(ssrc: 9, sequenceNumber: 10, timestamp: 48_000, arrival: 48_000)
        #expect(s.makeReportBlock(at: .now)?.fractionLost == 0)
    }

    @Test func jitterFollowsArrivalVariation() {
        var s = RTPReceptionStatistics()
        // Every other packet arrives 160 ticks late: J converges towards 160 (A.8's 1/16 gain).
        for i in 0..<400 {
            s.record(ssrc: 1, sequenceNumber: UInt16(i), timestamp: UInt32(i) * 3000, arrival: Int64(i) * 3000 + (i % 2 == 0 ? 0 : 160))
        }
        #expect((150...160).contains(s.jitter))
    }

    @Test func compoundPacketsReadBack() throws {
        let block = RTCPReportBlock(ssrc: 0x1234, fractionLost: 12, cumulativeLost: 7, extendedHighestSequenceNumber: 70_000, jitter: 5)
        let feedback = RTCP.pictureLossIndication(sender: 0xAB, mediaSource: 0x1234)
            + RTCP.fullIntraRequest(sender: 0xAB, mediaSource: 0x1234, sequenceNumber: 3)
        for name in ["", "a", "swift-h264", String(repeating: "x", count: 300)] {
            let bytes = RTCP.receiverReport(ssrc: 0xAB, blocks: [block], cname: name, feedback: feedback)
            #expect(bytes.count % 4 == 0)
            let packets = try RTCP.packets(in: bytes[...])
            #expect(packets == [.receiverReport(ssrc: 0xAB), .other(packetType: 202), .other(packetType: 206), .other(packetType: 206)])
        }
        let bytes = RTCP.receiverReport(ssrc: 0xAB, blocks: [block], cname: "c")
        // The report block's fields (RFC 3550 6.4.1), big-endian after the 8-byte header.
        #expect(Array(bytes[8..<12]) == [0, 0, 0x12, 0x34])
        #expect(Array(bytes[12..<16]) == [12, 0, 0, 7])
        #expect(Array(bytes[16..<20]) == [0, 1, 0x11, 0x70])
        #expect(feedback[0] & 0x1F == 1 && feedback[12] & 0x1F == 4)
    }
}
