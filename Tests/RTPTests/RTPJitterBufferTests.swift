import H264
import H264Fixtures
import RTP
import Testing

/// The reorder window as a jitter buffer: bounded in packets and in time, late packets told
/// from copies, both wraps (sequence numbers at 2^16, RTP timestamps at 2^32) crossed, and the
/// alignment of an RTSP `PLAY` (the first sequence number and the timestamp origin).
@Suite struct RTPJitterBufferTests {
    /// The baseline fixture (25 frames per second, no B pictures) as RTP packets from the given
    /// sequence number and timestamp, and its number of access units: small packets, so that
    /// its 2 KB make about a hundred.
    static func packets(sequence: UInt16 = 100, timestamp: UInt32 = 0, mtu: Int = 40) throws -> (packets: [[UInt8]], accessUnits: Int) {
        let sent = RTPAccessUnit.accessUnits(annexB: Fixture.baselineCAVLC.bytes()[...],
                                             timing: .init(frameRate: (25, 1), overridesStreamTiming: true))
        var packetizer = try RTPPacketizer(.init(mtu: mtu, payloadType: 96, ssrc: 7, initialSequenceNumber: sequence,
                                                 initialTimestamp: timestamp))
        var buffer = RTPPacketBuffer()
        for au in sent { try packetizer.packetize(au, into: &buffer) }
        return ((0..<buffer.count).map { Array(buffer[$0]) }, sent.count)
    }

    static func sequenceNumber(_ packet: [UInt8]) -> UInt16 { UInt16(packet[2]) << 8 | UInt16(packet[3]) }

    /// A packet after a gap waits at most `maximumReorderDelay`: not released a tick before, released
    /// at it with the gap declared lost; the missing packet arriving afterwards is late (counted,
    /// ignored), a second copy of a processed one is a duplicate.
    @Test func heldPacketIsReleasedAfterTheDelay() throws {
        let (packets, _) = try Self.packets()
        try #require(packets.count >= 60)
        var d = try RTPDepacketizer(.init(reorderWindow: 64, lenient: true, maximumReorderDelay: .milliseconds(100)))
        let t0 = ContinuousClock.now
        var delivered: [UInt32] = []
        let missing = 20
        for i in 0..<missing { try d.push(packets[i][...], arrival: t0) { delivered.append($0.timestamp) } }
        let before = delivered.count
        try d.push(packets[missing + 1][...], arrival: t0.advanced(by: .milliseconds(10))) { delivered.append($0.timestamp) }
        #expect(d.releaseDeadline == t0.advanced(by: .milliseconds(110)))
        d.releaseExpired(at: t0.advanced(by: .milliseconds(109))) { delivered.append($0.timestamp) }
        #expect(d.report.packetsLost == 0)
        d.releaseExpired(at: t0.advanced(by: .milliseconds(110))) { delivered.append($0.timestamp) }
        #expect(d.report.packetsLost == 1)
        #expect(d.report.packetsLostToDelay == 1)
        #expect(d.releaseDeadline == nil)
        _ = d.takeEvents()
        // The lost packet's access unit ends once the next timestamp comes; what was held went on.
        for i in (missing + 2)..<(missing + 40) { try d.push(packets[i][...], arrival: t0.advanced(by: .milliseconds(120))) { delivered.append($0.timestamp) } }
        #expect(delivered.count > before)
        // Too late: given up on.
        try d.push(packets[missing][...], arrival: t0.advanced(by: .milliseconds(130))) { _ in Issue.record("a late packet delivered") }
        #expect(d.report.latePackets == 1)
        // A copy of a processed packet: a duplicate, not late.
        try d.push(packets[missing + 1][...], arrival: t0.advanced(by: .milliseconds(130))) { _ in Issue.record("a copy delivered") }
        #expect(d.report.latePackets == 1)
        #expect(d.report.lateOrDuplicate == 2)
        let ignored = d.takeEvents().compactMap { e -> Bool? in
            if case .packetIgnored(_, let duplicate) = e { return duplicate }
            return nil
        }
        #expect(ignored == [false, true])
    }

    /// Without arrival times, or with the delay off, only the packet count bounds the window.
    @Test func withoutTimesOnlyTheWindowBounds() throws {
        let (packets, _) = try Self.packets()
        var timed = try RTPDepacketizer(.init(reorderWindow: 8, lenient: true, maximumReorderDelay: nil))
        let t0 = ContinuousClock.now
        for i in 0..<10 where i != 5 { try timed.push(packets[i][...], arrival: t0) { _ in } }
        timed.releaseExpired(at: t0.advanced(by: .seconds(3600))) { _ in }
        #expect(timed.releaseDeadline == nil)
        #expect(timed.report.packetsLost == 0)
        for i in 10..<14 { try timed.push(packets[i][...], arrival: t0) { _ in } }  // 13 - 5 >= 8: the window moves past 5
        #expect(timed.report.packetsLost == 1)
        #expect(timed.report.packetsLostToDelay == 0)
        #expect(throws: RTPError.invalid(.invalidArgument, "")) {
            try RTPDepacketizer(.init(maximumReorderDelay: .zero))
        }
    }

    /// Both wraps in one stream: sequence numbers from 65,500 and timestamps from 2^32 - 5 frames,
    /// packets swapped in pairs before the sequence wrap and across it (65,535 after 0), one
    /// packet after it lost and sent again too late. The times are unrolled: each access unit's
    /// presentation time is its RTP timestamp's distance from the first, straight through 2^32.
    @Test func sequenceAndTimestampWraps() throws {
        let start = UInt32.max - 5 * 3_600 + 1
        let total = try Self.packets().packets.count
        try #require(total >= 40)
        let (packets, count) = try Self.packets(sequence: UInt16(65_536 - total / 2), timestamp: start)
        let wrapIndex = try #require(packets.firstIndex { Self.sequenceNumber($0) == 0 })
        // A packet inside an access unit (no marker bit): its loss leaves the access unit's other packets.
        let lostIndex = try #require(packets.indices.first { $0 >= wrapIndex + 2 && packets[$0][1] & 0x80 == 0 })
        #expect(lostIndex + 10 < packets.count)
        var order = Array(packets.indices)
        let swaps = Array(stride(from: 1, to: wrapIndex - 3, by: 4))
        for i in swaps { order.swapAt(i, i + 1) }
        order.swapAt(wrapIndex - 1, wrapIndex)
        order.removeAll { $0 == lostIndex }
        var receiver = try RTPReceiver(.init(depacketizer: .init(reorderWindow: 16, lenient: true, maximumReorderDelay: .milliseconds(50))))
        var units: [RTPReceivedAccessUnit] = []
        let t0 = ContinuousClock.now
        for (n, index) in order.enumerated() {
            let now = t0.advanced(by: .milliseconds(n))
            receiver.receive(packets[index][...], arrival: now) { units.append($0) }
            if index == lostIndex + 1 {
                // The packet after the lost one waits; its deadline passes with no packet arriving.
                let due = try #require(receiver.releaseDeadline)
                #expect(due == now.advanced(by: .milliseconds(50)))
                receiver.releaseExpired(at: due) { units.append($0) }
                #expect(receiver.report.packetsLostToDelay == 1)
            }
            if index == lostIndex + 5 {
                receiver.receive(packets[lostIndex][...], arrival: now) { units.append($0) }  // after it was given up
            }
        }
        receiver.finish { units.append($0) }
        let report = receiver.report
        #expect(report.packetsLost == 1)
        #expect(report.latePackets == 1)
        #expect(report.reorderedPackets == swaps.count + 1)
        #expect(report.outOfRange == 0 && report.resynchronizations == 0)
        #expect(units.count >= count - 1)  // the lost packet may have taken its access unit's only slice
        let pts = units.compactMap { $0.timestamps?.pts }
        #expect(pts.count == units.count)
        #expect(pts.first == Int64(start))
        #expect(zip(pts, pts.dropFirst()).allSatisfy { $1 > $0 })
        #expect(units.allSatisfy { $0.timestamps?.pts == Int64(start) + Int64($0.timestamp &- start) })
        #expect((pts.last ?? 0) > Int64(UInt32.max))
        #expect(units.contains { $0.timestamp < start })  // the RTP timestamps wrapped
    }

    /// `RTPReceiver.run` wakes for a held packet's deadline: with the source silent after it,
    /// the access units behind the gap come out within the reorder delay, long before the idle
    /// timeout.
    @Test func runReleasesWhileTheSourceIsSilent() throws {
        let (packets, _) = try Self.packets()
        var source = ScriptedSource(datagrams: Array(packets.prefix(30)).enumerated().filter { $0.offset != 25 }.map(\.element))
        var receiver = try RTPReceiver(.init(depacketizer: .init(reorderWindow: 64, lenient: true, maximumReorderDelay: .milliseconds(100)),
                                             idleTimeout: .seconds(20)))
        var released = false
        let stop = try receiver.run(from: &source, until: { released }, events: { event in
            if case .packetsLost = event { released = true }
        }) { _ in }
        #expect(stop == .requested)
        #expect(receiver.report.packetsLostToDelay == 1)
    }

    /// `PLAY` alignment: packets before the announced first sequence number are ignored, one
    /// after it that arrives first waits for it, and the announced RTP time is the range's
    /// start: the first access unit's presentation time.
    @Test func alignedToTheAnnouncedStart() throws {
        let (packets, count) = try Self.packets(sequence: 1_000, timestamp: 777_777)
        var receiver = try RTPReceiver(.init(depacketizer: .init(reorderWindow: 8, lenient: true)))
        let earlier = try Self.packets(sequence: 990, timestamp: 700_000).packets.prefix(3)  // sent before the PLAY
        receiver.align(sequenceNumber: 1_000, rtpTimestamp: 777_777, presentationTime: 10 * 90_000)
        var units: [RTPReceivedAccessUnit] = []
        for p in earlier { receiver.receive(p[...]) { units.append($0) } }
        receiver.receive(packets[1][...]) { units.append($0) }
        receiver.receive(packets[0][...]) { units.append($0) }
        for p in packets.dropFirst(2) { receiver.receive(p[...]) { units.append($0) } }
        receiver.finish { units.append($0) }
        #expect(receiver.report.packetsBeforeStart == 3)
        #expect(receiver.report.packetsLost == 0)
        #expect(units.count == count)
        #expect(units.first?.timestamps?.pts == 900_000)
        #expect(units.dropFirst().first?.timestamps?.pts == Int64(903_600))

        // Partial RTP-Info (no rtptime): the first access unit is at the range's start. An
        // announced sequence number far from the stream's is wrong: forgotten.
        var partial = try RTPReceiver(.init())
        partial.align(sequenceNumber: 40_000, rtpTimestamp: nil, presentationTime: 4_500)
        var first: RTPReceivedAccessUnit?
        for p in packets { partial.receive(p[...]) { if first == nil { first = $0 } } }
        #expect(partial.report.packetsBeforeStart == 0)
        #expect(first?.timestamps?.pts == 4_500)
    }

    /// The timeline's anchor, across the 2^32 wrap: an RTP time just before it maps to the
    /// given time, the first access unit's after the wrap to that plus the step.
    @Test func sampleTimingAnchor() {
        var timing = RTPSampleTiming()
        timing.anchor(rtpTimestamp: UInt32.max - 99, presentationTime: 0)
        #expect(timing.timestamps(forRTPTimestamp: 200).pts == 300)
        #expect(timing.timestamps(forRTPTimestamp: 3_800).pts == 3_900)
        var plain = RTPSampleTiming()
        plain.anchor(rtpTimestamp: nil, presentationTime: 90_000)
        #expect(plain.timestamps(forRTPTimestamp: 123_456).pts == 90_000)
    }
}
