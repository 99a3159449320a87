import H264
import RTP
import Testing
import TestSupport

@Suite(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
struct RTPRoundTripTests {
    static let cases: [(String, Int)] = Corpus.smallStreams.flatMap { s in [(s, 1200), (s, 100), (s, RTPPacketizer.minimumMTU)] }
        + Corpus.largeStreams.map { ($0, 1200) }

    /// Packetise and depacketise a corpus stream: every access unit and NAL unit comes back exactly.
    @Test(arguments: cases)
    func roundTrip(stream: String, mtu: Int) throws {
        let aus = try Corpus.accessUnits(stream)
        let sent = try PacketizedStream(aus, .init(mtu: mtu, ssrc: 0x1234, initialSequenceNumber: 65_000,
                                                   initialTimestamp: 0xFFFF_0000))
        #expect(sent.packets.allSatisfy { $0.count <= mtu })
        let (received, report, events) = try depacketize(sent.packets)
        #expect(received.count == aus.count)
        #expect(received.map(\.timestamp) == aus.map { 0xFFFF_0000 &+ UInt32(truncatingIfNeeded: $0.timestamp90kHz) })
        #expect(received.map(\.nals) == aus.map { $0.nalUnits.map { Array($0.bytes) } })
        #expect(report.packetsLost == 0 && report.nalUnitsDropped == 0 && report.incompleteAccessUnits == 0)
        #expect(report.packetsReceived == sent.packets.count)
        #expect(events.isEmpty)
    }
}
