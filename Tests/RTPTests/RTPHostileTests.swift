import H264
import RTP
import Testing
import TestSupport

@Suite struct RTPHostileTests {
    static func rtp(_ payload: [UInt8], seq: UInt16 = 1, marker: Bool = true, first: UInt8 = 0x80) -> [UInt8] {
        [first, marker ? 0xE0 : 0x60, UInt8(seq >> 8), UInt8(seq & 0xFF), 0, 0, 0x0E, 0x10, 0, 0, 0, 1] + payload
    }

    static let cases: [(String, [UInt8], RTPError.Code)] = [
        ("empty datagram", [], .truncated),
        ("short header", [0x80, 0x60, 0, 1, 0], .truncated),
        ("version 1", rtp([0x41, 1], first: 0x40), .invalidPacket),
        ("version 0", rtp([0x41, 1], first: 0x00), .invalidPacket),
        ("15 CSRCs past the end", rtp([0x41, 1], first: 0x8F), .truncated),
        ("extension header past the end", rtp([], first: 0x90) + [0xBE], .truncated),
        ("extension length past the end", rtp([0xBE, 0xDE, 0x00, 0x09, 0x41], first: 0x90), .truncated),
        ("padding count 0", rtp([0x41, 1, 0], first: 0xA0), .invalidPacket),
        ("padding longer than payload", rtp([0x41, 1, 9], first: 0xA0), .invalidPacket),
        ("padding eats the payload", rtp([0x41, 2], first: 0xA0), .truncated),
        ("empty payload", rtp([]), .truncated),
        ("F bit", rtp([0xC1, 1]), .invalidPacket),
        ("NAL type 0", rtp([0x00, 1]), .invalidPacket),
        ("NAL type 30", rtp([0x1E, 1]), .unsupported),
        ("header extension cut", rtp([0x74, 0x80]), .truncated),
        ("STAP-A alone", rtp([0x78]), .truncated),
        ("STAP-A size cut", rtp([0x78, 0, 2, 0x67, 1, 0]), .truncated),
        ("STAP-A size past the end", rtp([0x78, 0, 9, 0x67, 1]), .truncated),
        ("STAP-A zero size", rtp([0x78, 0, 0, 0, 2, 0x68, 1]), .invalidPacket),
        ("STAP-A nested", rtp([0x78, 0, 2, 0x78, 0]), .invalidPacket),
        ("STAP-A forbidden bit inside", rtp([0x78, 0, 2, 0xE7, 0]), .invalidPacket),
        ("STAP-B", rtp([0x79, 0, 1, 0, 2, 0x67, 1]), .unsupported),
        ("MTAP16", rtp([0x7A, 0, 1]), .unsupported),
        ("MTAP24", rtp([0x7B, 0, 1]), .unsupported),
        ("FU-B", rtp([0x7D, 0x85, 0, 1, 2]), .unsupported),
        ("FU-A without header", rtp([0x7C]), .truncated),
        ("FU-A with S and E", rtp([0x7C, 0xC5, 1]), .invalidPacket),
        ("FU-A of a STAP-A", rtp([0x7C, 0x98, 1]), .invalidPacket),
        ("FU-A reserved bit", rtp([0x7C, 0xA5, 1]), .invalidPacket),
    ]

    @Test(arguments: cases)
    func rejected(name: String, packet: [UInt8], code: RTPError.Code) throws {
        var d = try RTPDepacketizer()
        var delivered: [RTPReceivedAccessUnit] = []
        #expect(throws: RTPError(code, name)) { try d.push(packet[...]) { delivered.append($0) } }
        // The stream goes on after the bad packet.
        try d.push(Self.rtp([0x65, 0x88, 0x84], seq: 2)[...]) { delivered.append($0) }
        d.flush { delivered.append($0) }
        #expect(delivered.last?.nalUnits.map { Array($0.bytes) } == [[0x65, 0x88, 0x84]])
    }

    @Test func payloadTypeAndSSRCFilters() throws {
        var d = try RTPDepacketizer(.init(payloadType: 97))
        #expect(throws: RTPError(.unsupported, "")) { try d.push(Self.rtp([0x41, 1])[...]) { _ in } }
        var e = try RTPDepacketizer()
        try e.push(Self.rtp([0x41, 1])[...]) { _ in }
        var other = Self.rtp([0x41, 1], seq: 2)
        other[11] = 2
        #expect(throws: RTPError(.unsupported, "")) { try e.push(other[...]) { _ in } }
    }

    @Test func invalidConfiguration() {
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPDepacketizer(.init(reorderWindow: 0)) }
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPDepacketizer(.init(reorderWindow: 100_000)) }
    }

    @Test func interruptedFragmentIsDroppedAndReported() throws {
        var d = try RTPDepacketizer()
        var delivered: [[[UInt8]]] = []
        let sink = { (au: RTPReceivedAccessUnit) in delivered.append(au.nalUnits.map { Array($0.bytes) }) }
        try d.push(Self.rtp([0x7C, 0x85, 1, 2], seq: 1, marker: false)[...], sink)
        #expect(throws: RTPError(.invalidPacket, "")) { try d.push(Self.rtp([0x41, 7], seq: 2)[...], sink) }
        d.flush(sink)
        #expect(delivered == [[[0x41, 7]]])
        #expect(d.report.nalUnitsDropped == 1)
        let events = d.takeEvents()
        guard case .nalUnitDropped(_, let type, let fragments, let reason)? = events.first else {
            Issue.record("no drop event: \(events)")
            return
        }
        #expect(type == .idrSlice && fragments == 1 && reason.code == .invalidPacket)
    }

    /// The limit counts each NAL unit's bytes and its bookkeeping: room for 10 bytes in one unit.
    @Test func accessUnitSizeCap() throws {
        var d = try RTPDepacketizer(.init(maximumAccessUnitSize: 10 + RTPDepacketizer.bookkeepingBytesPerNALUnit))
        var delivered: [[[UInt8]]] = []
        let sink = { (au: RTPReceivedAccessUnit) in delivered.append(au.nalUnits.map { Array($0.bytes) }) }
        try d.push(Self.rtp([0x41] + [UInt8](repeating: 1, count: 20), seq: 1)[...], sink)
        try d.push(Self.rtp([0x7C, 0x85] + [UInt8](repeating: 1, count: 20), seq: 2, marker: false)[...], sink)
        try d.push(Self.rtp([0x7C, 0x45, 1], seq: 3)[...], sink)
        try d.push(Self.rtp([0x41, 2], seq: 4)[...], sink)
        d.flush(sink)
        #expect(delivered == [[[0x41, 2]]])
        #expect(d.report.nalUnitsDropped == 2)
    }

    /// Random mutations of valid packets: errors or output, never a trap.
    @Test(arguments: [(false, 1), (true, 1), (true, 0)])
    func mutationsNeverTrap(lenient: Bool, mode: Int) throws {
        var p = try RTPPacketizer(.init(mtu: 60, ssrc: 3))
        var buffer = RTPPacketBuffer()
        let units = try [[0x67, 0x42, 0, 0x1E, 0xAB], [0x68, 0xCE, 0x38], [0x65] + [UInt8](repeating: 0x21, count: 300),
                         [0x06, 1, 2, 0x80]].map { try NALUnit($0) }
        for t in 0..<4 { try p.packetize(RTPAccessUnit(nalUnits: units, timestamp90kHz: Int64(t) * 3600), into: &buffer) }
        var rng = SplitMix64(seed: 42)
        var d = try RTPDepacketizer(.init(reorderWindow: 8, packetizationMode: mode, lenient: lenient))
        var errors = 0, delivered = 0
        for round in 0..<3000 {
            var packet = Array(buffer[round % buffer.count])
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: packet[Int.random(in: 0..<packet.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1: packet.removeLast(Int.random(in: 0...min(packet.count, 8), using: &rng))
                case 2: packet[1] ^= 0x80
                default: if packet.count > 13 { packet[12] = UInt8.random(in: 0...255, using: &rng) }
                }
                if packet.isEmpty { break }
            }
            do { try d.push(packet[...]) { _ in delivered += 1 } } catch { errors += 1 }
        }
        d.flush { _ in delivered += 1 }
        #expect(errors > 0 && delivered > 0)
    }
}

@Suite struct RTPResynchronizationTests {
    @Test func senderRestartsItsSequenceNumbers() throws {
        var d = try RTPDepacketizer()
        var delivered: [UInt8] = []
        let sink = { (au: RTPReceivedAccessUnit) in delivered += au.nalUnits.map { $0.bytes[$0.bytes.startIndex + 1] } }
        for (i, seq) in ([100, 101, 102, 40_000, 40_001, 40_002, 101, 40_003] as [UInt16]).enumerated() {
            try d.push(RTPHostileTests.rtp([0x41, UInt8(i)], seq: seq)[...], sink)
        }
        d.flush(sink)
        // 40000 alone is out of range; 40001 follows it: start over. The old 101 is then far away.
        #expect(delivered == [0, 1, 2, 4, 5, 7])
        #expect(d.report.outOfRange == 2 && d.report.resynchronizations == 1 && d.report.packetsLost == 0)
        #expect(d.takeEvents().contains(.resynchronized(sequenceNumber: 40_001)))
    }

    @Test func lateWithinMisorderIsLateNotRestart() throws {
        var d = try RTPDepacketizer(.init(reorderWindow: 2))
        var count = 0
        for seq in [10, 11, 12, 13, 14, 11, 15] as [UInt16] {
            try d.push(RTPHostileTests.rtp([0x41, 1], seq: seq)[...]) { _ in count += 1 }
        }
        #expect(count == 6 && d.report.lateOrDuplicate == 1 && d.report.outOfRange == 0)
    }
}

@Suite struct RTPGroupingTests {
    /// A sender that never sets the marker bit: access units end at a new timestamp and at flush.
    @Test func accessUnitsWithoutMarker() throws {
        var d = try RTPDepacketizer()
        var aus: [RTPReceivedAccessUnit] = []
        func packet(_ seq: UInt16, _ ts: UInt8, _ nal: [UInt8]) -> [UInt8] {
            [0x80, 0x60, 0, UInt8(seq), 0, 0, 0, ts, 0, 0, 0, 1] + nal
        }
        for p in [packet(1, 1, [0x09, 0x10]), packet(2, 1, [0x65, 1]), packet(3, 2, [0x41, 2]), packet(4, 2, [0x41, 3])] {
            try d.push(p[...]) { aus.append($0) }
        }
        #expect(aus.count == 1)
        d.flush { aus.append($0) }
        #expect(aus.map(\.timestamp) == [1, 2])
        #expect(aus.map { $0.nalUnits.map(\.type) } == [[.accessUnitDelimiter, .idrSlice], [.slice, .slice]])
        #expect(aus.allSatisfy { !$0.markerReceived && !$0.mayBeIncomplete })
    }

    /// Every prefix of every packet of a stream: an error or a result, never a trap.
    @Test func everyPrefixIsSafe() throws {
        var p = try RTPPacketizer(.init(mtu: 40, ssrc: 9))
        var buffer = RTPPacketBuffer()
        let units = try [[0x67, 0x42, 0, 0x1E, 0xAB], [0x68, 0xCE, 0x38], [0x65] + [UInt8](repeating: 7, count: 90)].map { try NALUnit($0) }
        try p.packetize(RTPAccessUnit(nalUnits: units, timestamp90kHz: 0), into: &buffer)
        var whole = try RTPDepacketizer()
        var delivered: [NALUnit] = []
        for i in 0..<buffer.count {
            let packet = buffer[i]
            try whole.push(packet) { delivered += $0.nalUnits }
            for n in 0...packet.count {
                var d = try RTPDepacketizer()
                var bytes = 0
                do { try d.push(packet.prefix(n)) { bytes += $0.nalUnits.reduce(0) { $0 + $1.count } } } catch {}
                d.flush { bytes += $0.nalUnits.reduce(0) { $0 + $1.count } }
                // A prefix never yields more NAL unit bytes than it holds.
                #expect(bytes <= n, "packet \(i), prefix \(n)")
            }
        }
        whole.flush { delivered += $0.nalUnits }
        #expect(delivered == units)
    }
}
