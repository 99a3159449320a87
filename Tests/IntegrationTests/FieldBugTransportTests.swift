import H264
import H264Fixtures
import RTP
import Testing

/// Field-bug fixtures through the RTP packetiser and depacketiser (H264Fixtures' streams, the
/// RTP module): what a delivery fixture means for a transport.
@Suite struct FieldBugTransportTests {
    /// Parameter sets larger than a packet: the packetiser sends them as FU-A fragments within
    /// the MTU, and the depacketiser gives them back whole.
    @Test func packetizerFragmentsLargeParameterSets() throws {
        let fixture = try FieldBugFixture(.parameterSetsLargerThanMTU)
        let mtu = try #require(fixture.mtu)
        var packetizer = try RTPPacketizer(.init(mtu: mtu, ssrc: 7))
        var depacketizer = try RTPDepacketizer()
        var buffer = RTPPacketBuffer()
        var received: [NALUnit] = []
        for (i, units) in fixture.accessUnits.enumerated() {
            buffer.removeAll()
            try packetizer.packetize(RTPAccessUnit(nalUnits: units, timestamp90kHz: Int64(i) * 3000), into: &buffer)
            for p in 0..<buffer.count {
                #expect(buffer[p].count <= mtu)
                try depacketizer.push(buffer[p]) { au in received += au.nalUnits.map { try! NALUnit(Array($0.bytes)) } }
            }
        }
        depacketizer.flush { au in received += au.nalUnits.map { try! NALUnit(Array($0.bytes)) } }
        let sent = fixture.accessUnits.joined().filter { $0.type == .sps || $0.type == .pps }
        #expect(received.filter { $0.type == .sps || $0.type == .pps } == Array(sent))
        #expect(sent.reduce(0) { $0 + $1.count } > mtu)
    }
}
