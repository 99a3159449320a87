import H264
import H264Fixtures
import RTP
import Testing

/// The snippets of the RTP catalog (Sources/RTP/RTP.docc); each marked region is shown, as it
/// is, in an article (Docs/check-snippets.py checks it).
@Suite struct RTPSnippets {
    static let fixture = Fixture.mainCABACBFrames

    /// Packetises the fixture's access units: the datagrams and each access unit's RTP timestamp.
    static func packetize() throws -> (datagrams: [[UInt8]], timestamps: [UInt32]) {
        let (accessUnits, errors) = AccessUnits.assemble(annexB: fixture.bytes()[...])
        #expect(errors.isEmpty)
        var datagrams: [[UInt8]] = []
        func send(_ datagram: UnsafeRawBufferPointer) { datagrams.append([UInt8](datagram)) }
        // snippet: rtp-packetizer
        var packetizer = try RTPPacketizer(.init(ssrc: 0x1234_5678, parameterSets: .fromStream))
        var packets = RTPPacketBuffer()
        for au in accessUnits {                            // parsed access units, or encoded frames
            packets.removeAll()
            try packetizer.packetize(au, into: &packets)   // their times converted to 90 kHz
            packets.forEachPacket { datagram in send(datagram) }
        }
        // end snippet
        return (datagrams, accessUnits.map { packetizer.rtpTimestamp(for: $0)! })
    }

    @Test func packetizer() throws {
        let (datagrams, timestamps) = try Self.packetize()
        let facts = Self.fixture.facts
        #expect(datagrams.count >= facts.accessUnitCount)
        #expect(datagrams.allSatisfy { $0.count <= 1200 })
        // The marker bit (the second byte's top bit) ends each access unit, and only there.
        #expect(datagrams.filter { $0[1] & 0x80 != 0 }.count == facts.accessUnitCount)
        #expect(Set(timestamps).count == facts.accessUnitCount)
    }

    @Test func depacketizer() throws {
        var (datagrams, timestamps) = try Self.packetize()
        // As a network delivers them: each pair of packets swapped.
        for i in stride(from: 1, to: datagrams.count, by: 2) { datagrams.swapAt(i - 1, i) }
        var received: [RTPReceivedAccessUnit] = []
        func decode(_ accessUnit: RTPReceivedAccessUnit) { received.append(accessUnit) }
        // snippet: rtp-depacketizer
        var depacketizer = try RTPDepacketizer()
        for datagram in datagrams {                        // as they arrive, in any order
            try depacketizer.push(datagram[...]) { accessUnit in decode(accessUnit) }
        }
        depacketizer.flush { accessUnit in decode(accessUnit) }   // the end: what is still held
        let report = depacketizer.report                  // lost, reordered, dropped
        // end snippet
        #expect(received.count == Self.fixture.facts.accessUnitCount)
        #expect(received.map(\.timestamp) == timestamps)
        #expect(received.allSatisfy { $0.markerReceived && !$0.mayBeIncomplete })
        #expect(report.packetsLost == 0)
        #expect(report.reorderedPackets > 0)
        #expect(report.accessUnitsDelivered == received.count)
    }
}
