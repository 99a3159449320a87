import H264
import RTP
import Testing

@Suite struct RTPPacketizerTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0x95, 0xA0, 0x50, 0x7C, 0x84]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static func idr(_ size: Int) -> [UInt8] { [0x65] + (1..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 | 1) } }

    func packets(_ units: [[UInt8]], mtu: Int = 1200, seq: UInt16 = 0,
                 sets: RTPPacketizer.ParameterSetInsertion = .off) throws -> [[UInt8]] {
        var p = try RTPPacketizer(.init(mtu: mtu, ssrc: 0xDEADBEEF, initialSequenceNumber: seq, initialTimestamp: 1000,
                                        parameterSets: sets))
        var buffer = RTPPacketBuffer()
        try p.packetize(RTPAccessUnit(nalUnits: try units.map { try NALUnit($0) }, timestamp90kHz: 3600), into: &buffer)
        return (0..<buffer.count).map { Array(buffer[$0]) }
    }

    @Test func stapAThenFUA() throws {
        let idr = Self.idr(3000)
        let out = try packets([Self.sps, Self.pps, idr])
        #expect(out.count == 4)
        // Header: V=2, PT 96, sequence numbers from 0, timestamp 1000 + 3600, SSRC.
        #expect(Array(out[0][0..<12]) == [0x80, 96, 0, 0, 0, 0, 0x11, 0xF8, 0xDE, 0xAD, 0xBE, 0xEF])
        // STAP-A: F=0, NRI=max(3,3), type 24; then size-prefixed SPS and PPS.
        #expect(Array(out[0][12...]) == [0x78, 0, 9] + Self.sps + [0, 4] + Self.pps)
        // FU-A: indicator NRI 3 type 28; headers S, -, E with type 5; fragments rebuild the payload.
        #expect(out[1][12] == 0x7C && out[1][13] == 0x85)
        #expect(out[2][13] == 0x05 && out[3][13] == 0x45)
        #expect(Array(out[1...3].map { $0[14...] }.joined()) == Array(idr[1...]))
        #expect(out.allSatisfy { $0.count <= 1200 })
        #expect(out.map { $0[1] & 0x80 } == [0, 0, 0, 0x80])  // marker only on the last
        #expect(out.map { UInt16($0[2]) << 8 | UInt16($0[3]) } == [0, 1, 2, 3])
    }

    @Test func sequenceNumbersWrap() throws {
        let out = try packets([Self.idr(5000)], mtu: 1000, seq: 65534)
        #expect(out.map { UInt16($0[2]) << 8 | UInt16($0[3]) } == [65534, 65535, 0, 1, 2, 3])
    }

    @Test(arguments: [RTPPacketizer.minimumMTU, 16, 40, 100, 1500])
    func everyPacketFitsTheMTU(mtu: Int) throws {
        let out = try packets([Self.sps, Self.pps, Self.idr(700), [0x06, 5, 1, 0x80], Self.idr(30)], mtu: mtu)
        #expect(out.allSatisfy { $0.count <= mtu })
        let (aus, report, _) = try depacketize(out)
        #expect(aus.count == 1 && report.packetsLost == 0)
        #expect(aus.first?.nals == [Self.sps, Self.pps, Self.idr(700), [0x06, 5, 1, 0x80], Self.idr(30)])
    }

    @Test func invalidConfiguration() {
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPPacketizer(.init(mtu: 14, ssrc: 1)) }
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPPacketizer(.init(mtu: 70_000, ssrc: 1)) }
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPPacketizer(.init(payloadType: 128, ssrc: 1)) }
    }

    @Test func givenParameterSetsBeforeIDR() throws {
        let sets = [try NALUnit(Self.sps), try NALUnit(Self.pps)]
        let aud: [UInt8] = [0x09, 0x10]
        let out = try packets([aud, Self.idr(50)], sets: .given(sets))
        let (aus, _, _) = try depacketize(out)
        #expect(aus.first?.nals == [aud, Self.sps, Self.pps, Self.idr(50)])
        // A non-IDR access unit is left alone.
        // Only the missing PPS, after the SPS the access unit carries.
        let onlySPS = try packets([aud, Self.sps, Self.idr(50)], sets: .given(sets))
        #expect(try depacketize(onlySPS).aus.first?.nals == [aud, Self.sps, Self.pps, Self.idr(50)])
        let p = try packets([[0x41, 0x9A, 0x10]], sets: .given(sets))
        #expect(try depacketize(p).aus.first?.nals == [[0x41, 0x9A, 0x10]])
    }

    @Test func rememberedParameterSetsBeforeIDR() throws {
        var p = try RTPPacketizer(.init(ssrc: 7, parameterSets: .fromStream))
        var buffer = RTPPacketBuffer()
        let first = RTPAccessUnit(nalUnits: try [Self.sps, Self.pps, Self.idr(40)].map { try NALUnit($0) }, timestamp90kHz: 0)
        let second = RTPAccessUnit(nalUnits: [try NALUnit(Self.idr(60))], timestamp90kHz: 3600)
        try p.packetize(first, into: &buffer)
        try p.packetize(second, into: &buffer)
        let (aus, _, _) = try depacketize((0..<buffer.count).map { Array(buffer[$0]) })
        #expect(aus.map(\.nals) == [[Self.sps, Self.pps, Self.idr(40)], [Self.sps, Self.pps, Self.idr(60)]])
        #expect(aus.map(\.timestamp) == [0, 3600])
    }

    @Test func emptyAccessUnitSendsNothing() throws {
        #expect(try packets([]).isEmpty)
    }
}

@Suite struct RTCPTests {
    @Test func senderReportAndBye() {
        let bytes = RTCP.senderReportAndBye(ssrc: 0x0102_0304, ntpTimestamp: 0xE000_0001_8000_0000, rtpTimestamp: 90_000,
                                            packetCount: 3, octetCount: 3000)
        #expect(bytes == [0x80, 200, 0, 6, 1, 2, 3, 4, 0xE0, 0, 0, 1, 0x80, 0, 0, 0, 0, 1, 0x5F, 0x90, 0, 0, 0, 3,
                          0, 0, 0x0B, 0xB8, 0x81, 203, 0, 1, 1, 2, 3, 4])
    }

    /// NTP time: seconds since 1900 above, the fraction below; the Unix epoch is 2,208,988,800 s.
    @Test func ntpTimestamp() {
        #expect(RTCP.ntpTimestamp(unixSeconds: 0) == UInt64(2_208_988_800) << 32)
        #expect(RTCP.ntpTimestamp(unixSeconds: 1.5) == UInt64(2_208_988_801) << 32 | 0x8000_0000)
        #expect(RTCP.ntpTimestamp(unixSeconds: -2_208_988_800.25) == 0)
        #expect(RTCP.ntpTimestamp(unixSeconds: .nan) == 0)
        #expect(RTCP.ntpTimestamp(unixSeconds: .infinity) == 0)
    }
}
