import H264
import RTP
import Testing
import TestSupport

/// What the depacketiser holds, whatever arrives: the access unit limit counts each NAL unit's
/// bookkeeping, and the buffers never grow past their limits.
@Suite struct RTPMemoryBoundTests {
    static func rtp(_ payload: [UInt8], seq: UInt16, ssrc: UInt32 = 1, timestamp: UInt32 = 3600, marker: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        RTPHeader(marker: marker, payloadType: 96, sequenceNumber: seq, timestamp: timestamp, ssrc: ssrc).write(to: &out)
        return out + payload
    }

    /// A STAP-A filling the largest UDP payload with NAL units of `size` bytes (16,373 of 2
    /// bytes, 21,831 of 1 byte): the packets of the issue's attack.
    static func stapA(unitSize size: Int) -> [UInt8] {
        let count = (65_507 - 12 - 1) / (2 + size)
        var payload: [UInt8] = [0x78]
        payload.reserveCapacity(1 + count * (2 + size))
        for _ in 0..<count { payload += [0, UInt8(size), 0x41] + [UInt8](repeating: 0x9A, count: size - 1) }
        return payload
    }

    /// STAP-A packets of tiny NAL units and never a marker bit (same timestamp): 40 packets,
    /// 650,000 to 870,000 NAL units. The access unit stops at the NAL unit limit (16,384) with
    /// the rest dropped and reported; what the depacketiser holds stays under
    /// `maximumRetainedByteCount` (37 MiB with the defaults; the payload bytes alone would
    /// have let it reach 32 MiB of 1-byte units, 1.9 GB with their bookkeeping).
    @Test(arguments: [2, 1])
    func stapAFloodOfTinyNALUnits(unitSize: Int) throws {
        let configuration = RTPDepacketizer.Options()
        var d = try RTPDepacketizer(configuration)
        let payload = Self.stapA(unitSize: unitSize)
        let perPacket = (payload.count - 1) / (2 + unitSize)
        var delivered: [RTPReceivedAccessUnit] = []
        var events: [RTPDepacketizerEvent] = []
        var peak = 0
        for seq in 0..<40 {
            try d.push(Self.rtp(payload, seq: UInt16(seq))[...]) { delivered.append($0) }
            events += d.takeEvents().prefix(2)
            peak = max(peak, d.retainedByteCount)
        }
        #expect(delivered.isEmpty)
        #expect(peak <= configuration.maximumRetainedByteCount)
        #expect(configuration.maximumRetainedByteCount < 40 << 20)
        d.flush { delivered.append($0) }
        let au = try #require(delivered.first)
        #expect(delivered.count == 1 && au.nalUnits.count == 16_384 && au.mayBeIncomplete && !au.markerReceived)
        #expect(d.report.nalUnitsDropped == 40 * perPacket - 16_384)
        guard case .nalUnitDropped(_, _, 0, let reason)? = events.first else {
            Issue.record("no drop event: \(events.prefix(1))")
            return
        }
        #expect(reason.code == .limitExceeded)
    }

    /// Under a byte limit that binds before the NAL unit limit, each NAL unit costs its bytes
    /// plus `bookkeepingBytesPerNALUnit`: 1 MiB holds 20,971 two-byte NAL units (not 524,288),
    /// and a 1-byte limit holds nothing; FU-A fragments are held to the same account.
    @Test func byteLimitCountsBookkeeping() throws {
        let cost = RTPDepacketizer.bookkeepingBytesPerNALUnit
        #expect(cost >= 40)  // a range and a view per NAL unit
        let configuration = RTPDepacketizer.Options(maximumAccessUnitSize: 1 << 20, maximumNALUnitsPerAccessUnit: 1 << 20)
        var d = try RTPDepacketizer(configuration)
        var delivered: [RTPReceivedAccessUnit] = []
        var peak = 0
        for seq in 0..<3 {
            try d.push(Self.rtp(Self.stapA(unitSize: 2), seq: UInt16(seq))[...]) { delivered.append($0) }
            _ = d.takeEvents()
            peak = max(peak, d.retainedByteCount)
        }
        d.flush { delivered.append($0) }
        #expect(delivered.first?.nalUnits.count == (1 << 20) / (2 + cost))
        #expect(peak <= configuration.maximumRetainedByteCount)

        // An FU-A NAL unit of 200 bytes under a limit of 200 + cost fits exactly; one byte more does not.
        for (limit, fits) in [(200 + cost, true), (199 + cost, false)] {
            var f = try RTPDepacketizer(.init(maximumAccessUnitSize: limit))
            var out: [[UInt8]] = []
            let sink = { (au: RTPReceivedAccessUnit) in out += au.nalUnits.map { Array($0.bytes) } }
            try f.push(Self.rtp([0x7C, 0x85] + [UInt8](repeating: 7, count: 100), seq: 1)[...], sink)
            try f.push(Self.rtp([0x7C, 0x45] + [UInt8](repeating: 7, count: 99), seq: 2, marker: true)[...], sink)
            f.flush(sink)
            #expect(out.map(\.count) == (fits ? [200] : []), "limit \(limit)")
            #expect(f.report.nalUnitsDropped == (fits ? 0 : 1))
        }
    }

    /// A packet larger than any UDP datagram is rejected before anything is copied; limits
    /// outside their ranges are refused at creation.
    @Test func oversizedPacketsAndLimits() throws {
        var d = try RTPDepacketizer()
        let big = Self.rtp([0x41] + [UInt8](repeating: 1, count: 65_535), seq: 1)
        #expect(throws: RTPError(.limitExceeded, "")) { try d.push(big[...]) { _ in } }
        #expect(d.report.packetsRejected == 1 && d.retainedByteCount < 64 << 10)
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPDepacketizer(.init(maximumNALUnitsPerAccessUnit: 0)) }
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPDepacketizer(.init(maximumNALUnitsPerAccessUnit: 1 << 21)) }
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPDepacketizer(.init(maximumAccessUnitSize: 0)) }
    }

    /// Large packets held out of order in the reorder window: each slot keeps at most one
    /// packet's bytes (its storage grows to a packet's size, not to twice it, as an array's
    /// doubling would: 14 slots of 80,000 bytes).
    @Test func reorderWindowHoldsAtMostItsPackets() throws {
        let configuration = RTPDepacketizer.Options(reorderWindow: 16)
        var d = try RTPDepacketizer(configuration)
        try d.push(Self.rtp([0x41, 1], seq: 0, marker: true)[...]) { _ in }
        // Sequence 1 (then 17) never comes: 14 packets wait in the window, 40,000 bytes each,
        // then 14 of 65,000 in the same slots.
        for round in 0..<2 {
            for seq in 2..<16 {
                let size = round == 0 ? 40_000 : 65_000
                try d.push(Self.rtp([0x41] + [UInt8](repeating: 2, count: size), seq: UInt16(seq + round * 16), marker: true)[...]) { _ in }
                _ = d.takeEvents()
            }
        }
        #expect(d.report.packetsLost == 1)
        // 14 held packets of at most 65,535 bytes, an access unit of one of them (grown from
        // 40,001 bytes: 80,002) and small change.
        #expect(d.retainedByteCount <= 15 * 65_535 + 96 << 10)
        #expect(d.retainedByteCount <= configuration.maximumRetainedByteCount)
    }

    /// A stray packet of another SSRC first, then the real stream: the depacketiser changes
    /// source at the stream's second packet (RFC 3550 A.1: two in sequence) and delivers the
    /// stream whole, its first packet included; the stray's access unit comes out first.
    /// Another SSRC's packets that alternate with the current one's never take over.
    @Test func strayPacketDoesNotLockTheStreamOut() throws {
        var d = try RTPDepacketizer()
        var aus: [(UInt32, [[UInt8]])] = []
        let sink = { (au: RTPReceivedAccessUnit) in aus.append((au.ssrc, au.nalUnits.map { Array($0.bytes) })) }
        try d.push(Self.rtp([0x41, 0x9A, 0xFF], seq: 999, ssrc: 0xDEAD, timestamp: 7)[...], sink)  // no marker: in progress
        #expect(d.ssrc == 0xDEAD)
        let stream = (0..<4).map { Self.rtp([0x65, 0x88, UInt8($0)], seq: UInt16(40 + $0), ssrc: 5, timestamp: UInt32($0) * 3000, marker: true) }
        #expect(throws: RTPError(.unsupported, "")) { try d.push(stream[0][...], sink) }
        for packet in stream.dropFirst() { try d.push(packet[...], sink) }
        d.flush(sink)
        #expect(d.ssrc == 5)
        #expect(aus.map(\.0) == [0xDEAD, 5, 5, 5, 5])
        #expect(aus.map(\.1) == [[[0x41, 0x9A, 0xFF]]] + (0..<4).map { [[0x65, 0x88, UInt8($0)]] })
        #expect(d.report.sourceChanges == 1 && d.report.packetsLost == 0 && d.report.packetsRejected == 1)
        #expect(d.takeEvents().contains(.sourceChanged(ssrc: 5)))

        var e = try RTPDepacketizer()
        var count = 0
        for i in 0..<20 {
            try e.push(Self.rtp([0x41, UInt8(i)], seq: UInt16(i), ssrc: 1, marker: true)[...]) { _ in count += 1 }
            #expect(throws: RTPError(.unsupported, "")) {
                try e.push(Self.rtp([0x41, UInt8(i)], seq: UInt16(100 + i), ssrc: 2, marker: true)[...]) { _ in count += 1 }
            }
        }
        #expect(e.ssrc == 1 && e.report.sourceChanges == 0 && count == 20)
    }
}
