import H264
import RTP
import Testing

/// The field's RFC 6184 violations: rejected with typed errors by default, accepted with an
/// event each when lenient; joining inside a fragmented NAL unit is loss.
@Suite struct RTPLenientTests {
    static func rtp(_ payload: [UInt8], seq: UInt16, ts: UInt8 = 1, marker: Bool = false) -> [UInt8] {
        [0x80, marker ? 0xE0 : 0x60, UInt8(seq >> 8), UInt8(seq & 0xFF), 0, 0, 0, ts, 0, 0, 0, 1] + payload
    }

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var packets: [[UInt8]]
        var mode: Int
        var strictError: RTPError.Code
        var tolerance: RTPTolerance
        var delivered: [[UInt8]]
    }

    static let cases: [Case] = [
        Case(description: "FU-A with S and E", packets: [rtp([0x7C, 0xC5, 0x88, 0x84], seq: 1, marker: true)], mode: 1,
             strictError: .invalidPacket, tolerance: .fragmentStartAndEnd, delivered: [[0x65, 0x88, 0x84]]),
        Case(description: "F bit in a single NAL unit packet", packets: [rtp([0xE5, 0x88, 0x84], seq: 1, marker: true)], mode: 1,
             strictError: .invalidPacket, tolerance: .forbiddenBit, delivered: [[0x65, 0x88, 0x84]]),
        Case(description: "F bit inside a STAP-A", packets: [rtp([0x78, 0, 2, 0xE7, 0x42, 0, 2, 0x68, 0xCE], seq: 1, marker: true)],
             mode: 1, strictError: .invalidPacket, tolerance: .forbiddenBit, delivered: [[0x67, 0x42], [0x68, 0xCE]]),
        Case(description: "F bit in an FU indicator",
             packets: [rtp([0xFC, 0x85, 0x88], seq: 1), rtp([0x7C, 0x45, 0x84], seq: 2, marker: true)], mode: 1,
             strictError: .invalidPacket, tolerance: .forbiddenBit, delivered: [[0x65, 0x88, 0x84]]),
        Case(description: "FU header reserved bit",
             packets: [rtp([0x7C, 0xA5, 0x88], seq: 1), rtp([0x7C, 0x65, 0x84], seq: 2, marker: true)], mode: 1,
             strictError: .invalidPacket, tolerance: .reservedBit, delivered: [[0x65, 0x88, 0x84]]),
        Case(description: "FU-A under packetization-mode 0",
             packets: [rtp([0x7C, 0x85, 0x88], seq: 1), rtp([0x7C, 0x45, 0x84], seq: 2, marker: true)], mode: 0,
             strictError: .unsupported, tolerance: .packetizationModeMismatch, delivered: [[0x65, 0x88, 0x84]]),
        Case(description: "STAP-A under packetization-mode 0", packets: [rtp([0x78, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xCE], seq: 1, marker: true)],
             mode: 0, strictError: .unsupported, tolerance: .packetizationModeMismatch, delivered: [[0x67, 0x42], [0x68, 0xCE]]),
    ]

    @Test(arguments: cases)
    func strictRejectsLenientTolerates(c: Case) throws {
        var strict = try RTPDepacketizer(.init(packetizationMode: c.mode))
        #expect(throws: RTPError(c.strictError, "")) { try strict.push(c.packets[0][...]) { _ in } }
        #expect(strict.report.packetsRejected == 1 && strict.report.toleratedViolations == 0)

        var lenient = try RTPDepacketizer(.init(packetizationMode: c.mode, lenient: true))
        var delivered: [[UInt8]] = []
        for p in c.packets { try lenient.push(p[...]) { au in delivered += au.nalUnits.map { Array($0.bytes) } } }
        lenient.flush { au in delivered += au.nalUnits.map { Array($0.bytes) } }
        #expect(delivered == c.delivered)
        let events = lenient.takeEvents()
        #expect(events.contains(.tolerated(c.tolerance, sequenceNumber: 1)))
        #expect(events.allSatisfy { if case .tolerated = $0 { true } else { false } })
        #expect(lenient.report.toleratedViolations == events.count && lenient.report.packetsRejected == 0)
        #expect(lenient.report.incompleteAccessUnits == 0)
    }

    /// A valid stream gives no tolerance event in lenient mode, and the same access units.
    @Test func lenientChangesNothingOnAValidStream() throws {
        let packets = [Self.rtp([0x78, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xCE], seq: 1), Self.rtp([0x7C, 0x85, 1], seq: 2),
                       Self.rtp([0x7C, 0x45, 2], seq: 3, marker: true), Self.rtp([0x41, 9], seq: 4, ts: 2, marker: true)]
        let strict = try depacketize(packets)
        let lenient = try depacketize(packets, .init(lenient: true))
        #expect(strict.aus.map(\.nals) == lenient.aus.map(\.nals) && lenient.events.isEmpty)
        #expect(strict.aus.map(\.nals) == [[[0x67, 0x42], [0x68, 0xCE], [0x65, 1, 2]], [[0x41, 9]]])
    }

    /// Joining a stream inside an IDR picture's FU-A: the continuation and end fragments are
    /// dropped and reported as loss; no IDR NAL unit is made out of them; nothing is thrown.
    @Test(arguments: [false, true])
    func joiningMidNALUnitIsLossNotAnIDR(lenient: Bool) throws {
        var d = try RTPDepacketizer(.init(lenient: lenient))
        var aus: [RTPReceivedAccessUnit] = []
        let packets = [Self.rtp([0x7C, 0x05, 0x11], seq: 7), Self.rtp([0x7C, 0x45, 0x12], seq: 8, marker: true),
                       Self.rtp([0x41, 0x9A], seq: 9, ts: 2, marker: true)]
        for p in packets { try d.push(p[...]) { aus.append($0) } }
        d.flush { aus.append($0) }
        #expect(aus.count == 1)
        #expect(aus.flatMap(\.nalUnits).allSatisfy { $0.type != .idrSlice })
        #expect(aus.first?.nalUnits.map(\.type) == [.slice])
        let events = d.takeEvents()
        guard case .nalUnitDropped(_, let type, let fragments, let reason)? = events.first else {
            Issue.record("no drop event: \(events)")
            return
        }
        #expect(type == .idrSlice && fragments == 1 && reason.code == .truncated)
        #expect(d.report.nalUnitsDropped == 1 && d.report.packetsRejected == 0)

        // After the start, a fragment without a start and no loss is still a violation.
        var e = try RTPDepacketizer(.init(lenient: lenient))
        try e.push(Self.rtp([0x41, 0x9A], seq: 1, marker: true)[...]) { _ in }
        #expect(throws: RTPError(.invalidPacket, "")) { try e.push(Self.rtp([0x7C, 0x45, 0x12], seq: 2, ts: 2)[...]) { _ in } }
    }

    /// Packets put back in order are counted as reordered; rejected ones as rejected.
    @Test func reorderedAndRejectedCounts() throws {
        var d = try RTPDepacketizer()
        var nals: [UInt8] = []
        for seq in [1, 3, 2, 5, 4, 6] as [UInt16] {
            try d.push(Self.rtp([0x41, UInt8(seq)], seq: seq, ts: UInt8(seq), marker: true)[...]) { nals += $0.nalUnits.map { $0.bytes.last! } }
        }
        #expect(throws: RTPError(.truncated, "")) { try d.push([0x80, 0x60][...]) { _ in } }
        d.flush { nals += $0.nalUnits.map { $0.bytes.last! } }
        #expect(nals == [1, 2, 3, 4, 5, 6])
        #expect(d.report.reorderedPackets == 2 && d.report.packetsRejected == 1 && d.report.packetsLost == 0)
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPDepacketizer(.init(packetizationMode: 2)) }
    }
}

@Suite struct RTPEarlyMarkerTests {
    /// A sender that sets the marker bit on every NAL unit (obs-rtspserver#199): reported once,
    /// counted each time; a well-marked stream reports nothing.
    @Test func markerOnEveryNALUnitIsReported() throws {
        typealias L = RTPLenientTests
        let perNAL = [L.rtp([0x67, 0x42], seq: 1, marker: true), L.rtp([0x68, 0xCE], seq: 2, marker: true),
                      L.rtp([0x65, 0x88], seq: 3, marker: true), L.rtp([0x41, 0x9A], seq: 4, ts: 2, marker: true),
                      L.rtp([0x41, 0x9B], seq: 5, ts: 2, marker: true)]
        let (aus, report, events) = try depacketize(perNAL)
        #expect(aus.count == 5 && report.earlyMarkers == 3)
        #expect(events == [.markerBeforeEndOfAccessUnit(timestamp: 1)])
        var good = perNAL
        for i in [0, 1, 3] { good[i][1] &= 0x7F }
        let fine = try depacketize(good)
        #expect(fine.aus.count == 2 && fine.report.earlyMarkers == 0 && fine.events.isEmpty)
    }
}
