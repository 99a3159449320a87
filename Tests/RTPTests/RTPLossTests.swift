import H264
import RTP
import Testing
import TestSupport

@Suite struct RTPLossTests {
    /// 5% loss, 3% duplication, reordering inside blocks of 8: every NAL unit none of whose packets
    /// was lost comes back exactly, in order, in the right access unit; losses are reported.
    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"),
          arguments: [("cros-codecs/test-25fps.h264", 1200, UInt64(1)), ("cros-codecs/test-25fps.h264", 300, 2),
                      ("openh264/test_scalinglist_jm.264", 200, 3), ("cros-codecs/test-25fps.h264", 60, 4),
                      ("fate-frext/HCAFF1_HHI.264", 1200, 5), ("openh264/sps_subsetsps_bothVUI.264", 400, 6)])
    func lossReorderDuplication(stream: String, mtu: Int, seed: UInt64) throws {
        let aus = try Corpus.accessUnits(stream)
        let sent = try PacketizedStream(aus, .init(mtu: mtu, ssrc: 99, initialSequenceNumber: 65_500))
        var rng = SplitMix64(seed: seed)
        // The first packet defines where the sequence starts: keep it, in place.
        var lost = Set<Int>()
        for i in 1..<sent.packets.count where Double.random(in: 0..<1, using: &rng) < 0.05 { lost.insert(i) }
        var order: [Int] = []
        var duplicated = 0
        for i in 0..<sent.packets.count where !lost.contains(i) {
            order.append(i)
            if Double.random(in: 0..<1, using: &rng) < 0.03 {
                order.append(i)
                duplicated += 1
            }
        }
        var shuffled = [order[0]]
        var rest = Array(order.dropFirst())
        var start = 0
        while start < rest.count {
            let end = min(start + 8, rest.count)
            rest[start..<end].shuffle(using: &rng)
            start = end
        }
        shuffled += rest

        let (received, report, events) = try depacketize(shuffled.map { sent.packets[$0] })

        // Expected: the NAL units whose packets all arrived, grouped by timestamp.
        var expected: [(timestamp: UInt32, nals: [[UInt8]])] = []
        for (k, packets) in sent.nalPackets.enumerated() where packets.allSatisfy({ !lost.contains($0) }) {
            if expected.last?.timestamp != sent.nalTimestamps[k] { expected.append((sent.nalTimestamps[k], [])) }
            expected[expected.count - 1].nals.append(sent.nalBytes[k])
        }
        #expect(received.map(\.timestamp) == expected.map(\.timestamp))
        #expect(received.map(\.nals) == expected.map(\.nals))

        let lastArrived = order.max() ?? 0
        #expect(report.packetsLost == lost.filter { $0 < lastArrived }.count)
        #expect(report.duplicatePackets + report.lateOrDuplicate == duplicated)
        let partiallyHit = sent.nalPackets.filter { ps in ps.contains(where: lost.contains) && !ps.allSatisfy(lost.contains) }.count
        #expect(report.nalUnitsDropped <= partiallyHit)
        if partiallyHit > 0 { #expect(report.nalUnitsDropped > 0) }
        let lostEvents = events.reduce(0) { n, e in
            if case .packetsLost(_, let c) = e { return n + c }
            return n
        }
        #expect(lostEvents == report.packetsLost)
        #expect(!lost.isEmpty)

        // An access unit not flagged mayBeIncomplete holds every NAL unit sent with its timestamp;
        // whole access units lost are counted (at least one per gap), never more than were sent.
        var d = try RTPDepacketizer()
        var complete: [(timestamp: UInt32, nals: [[UInt8]])] = []
        let sink = { (au: RTPReceivedAccessUnit) in
            if !au.mayBeIncomplete { complete.append((au.timestamp, au.nalUnits.map { Array($0.bytes) })) }
        }
        for i in shuffled { try? d.push(sent.packets[i][...], sink) }
        d.flush(sink)
        var sentByTimestamp: [UInt32: [[UInt8]]] = [:]
        for (k, t) in sent.nalTimestamps.enumerated() { sentByTimestamp[t, default: []].append(sent.nalBytes[k]) }
        let wrong = complete.filter { sentByTimestamp[$0.timestamp] != $0.nals }.map(\.timestamp)
        #expect(wrong.isEmpty)
        let receivedTimestamps = Set(received.map(\.timestamp))
        let lostWhole = Set(sent.nalTimestamps).subtracting(receivedTimestamps).count
        #expect(d.report.accessUnitsLost <= lostWhole)
    }

    @Test func sequenceWrapAndLateArrival() throws {
        var p = try RTPPacketizer(.init(mtu: 100, ssrc: 5, initialSequenceNumber: 65_530))
        var buffer = RTPPacketBuffer()
        let slice = try NALUnit([0x41] + [UInt8](repeating: 0x55, count: 800))
        for t in 0..<3 { try p.packetize(RTPAccessUnit(nalUnits: [slice], timestamp90kHz: Int64(t) * 3000), into: &buffer) }
        let packets = (0..<buffer.count).map { Array(buffer[$0]) }
        // Window 4: packet 15 (of the second access unit) held back beyond it is declared lost, then arrives late.
        var order = Array(0..<packets.count)
        order.remove(at: 15)
        order.append(15)
        let (aus, report, events) = try depacketize(order.map { packets[$0] }, .init(reorderWindow: 4))
        #expect(aus.map(\.timestamp) == [0, 6000])  // the middle access unit lost a fragment
        #expect(aus.allSatisfy { $0.nals == [Array(slice.bytes)] })
        #expect(report.packetsLost == 1 && report.lateOrDuplicate == 1 && report.latePackets == 1 && report.nalUnitsDropped == 1)
        #expect(events.contains(.packetsLost(firstSequenceNumber: 65_530 &+ 15, count: 1)))
        // Printed for a log: the totals first, then each count that is not zero.
        #expect("\(report)" == "\(report.packetsReceived) packets received, 1 lost; 2 access units delivered, "
                + "1 after a reference picture loss; "
                + "late or duplicate 1, late 1, NAL units dropped 1")
    }
}
