import H264
import RTP
import Testing

/// packetization-mode 0 and 1, STAP-A on and off, parameter sets in one STAP-A, marker bits.
@Suite struct RTPPacketizationModeTests {
    typealias T = RTPPacketizerTests
    static let aud: [UInt8] = [0x09, 0xF0]
    static func slice(_ size: Int, first: UInt8 = 0x41) -> [UInt8] { [first] + (1..<size).map { UInt8(truncatingIfNeeded: $0 &* 5 | 1) } }

    static func packetize(_ aus: [[[UInt8]]], _ configuration: RTPPacketizer.Options) throws -> [[UInt8]] {
        var p = try RTPPacketizer(configuration)
        var buffer = RTPPacketBuffer()
        for (i, au) in aus.enumerated() {
            try p.packetize(RTPAccessUnit(nalUnits: try au.map { try NALUnit($0) }, timestamp90kHz: Int64(i) * 3000), into: &buffer)
        }
        return (0..<buffer.count).map { Array(buffer[$0]) }
    }

    static func structure(_ packet: [UInt8]) -> UInt8 { packet[12] & 0x1F }
    static func timestamp(_ packet: [UInt8]) -> UInt32 { packet[4..<8].reduce(0) { $0 << 8 | UInt32($1) } }
    static func marker(_ packet: [UInt8]) -> Bool { packet[1] & 0x80 != 0 }

    /// Mode 0: one NAL unit per packet, never a STAP-A or FU-A; the receiver rebuilds the access unit.
    @Test func mode0SendsSingleNALUnitPackets() throws {
        let au = [Self.aud, T.sps, T.pps, T.idr(300), Self.slice(200, first: 0x65)]
        let out = try Self.packetize([au], .init(mtu: 400, ssrc: 1, packetizationMode: 0))
        #expect(out.count == au.count)
        #expect(out.map { Array($0[12...]) } == au)
        #expect(out.map(Self.marker) == [false, false, false, false, true])
        let (aus, report, _) = try depacketize(out, .init(packetizationMode: 0))
        #expect(aus.map(\.nals) == [au] && report.packetsRejected == 0)
    }

    /// Mode 0 and a NAL unit over the MTU: a typed error, and nothing written or numbered.
    @Test func mode0RefusesANALUnitOverTheMTU() throws {
        var p = try RTPPacketizer(.init(mtu: 200, ssrc: 1, initialSequenceNumber: 10, packetizationMode: 0))
        var buffer = RTPPacketBuffer()
        let big = RTPAccessUnit(nalUnits: try [T.sps, T.pps, T.idr(189)].map { try NALUnit($0) }, timestamp90kHz: 0)
        #expect(throws: RTPError(.nalUnitTooLarge, "")) { try p.packetize(big, into: &buffer) }
        #expect(buffer.isEmpty && p.nextSequenceNumber == 10)
        // 188 bytes is exactly the payload of a 200-byte packet.
        try p.packetize(RTPAccessUnit(nalUnits: [try NALUnit(T.idr(188))], timestamp90kHz: 0), into: &buffer)
        #expect(buffer.count == 1 && buffer[0].count == 200 && p.nextSequenceNumber == 11)
        // An inserted parameter set counts too.
        let hugeSPS = [UInt8](T.sps) + [UInt8](repeating: 0x55, count: 300)
        var q = try RTPPacketizer(.init(mtu: 200, ssrc: 1, parameterSets: .given([try NALUnit(hugeSPS), try NALUnit(T.pps)]),
                                        packetizationMode: 0))
        #expect(throws: RTPError(.nalUnitTooLarge, "")) {
            try q.packetize(RTPAccessUnit(nalUnits: [try NALUnit(T.idr(50))], timestamp90kHz: 0), into: &buffer)
        }
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPPacketizer(.init(ssrc: 1, packetizationMode: 2)) }
    }

    /// STAP-A off: small NAL units each go alone; large ones are still fragmented.
    @Test func aggregationOff() throws {
        let au = [Self.aud, T.sps, T.pps, T.idr(3000)]
        let out = try Self.packetize([au], .init(mtu: 1200, ssrc: 1, aggregates: false))
        #expect(out.map(Self.structure) == [9, 7, 8, 28, 28, 28])
        let on = try Self.packetize([au], .init(mtu: 1200, ssrc: 1))
        #expect(on.map(Self.structure) == [24, 28, 28, 28])
        #expect(try depacketize(out).aus.map(\.nals) == [au])
    }

    /// The WebRTC preset: the SPS and PPS go before every IDR picture, together in one STAP-A with
    /// the IDR's timestamp (what Chrome needs); the marker is on the access unit's last packet only.
    @Test func webRTCPresetAggregatesParameterSetsWithTheIDRTimestamp() throws {
        let config = RTPPacketizer.Options.webRTC(ssrc: 5, initialTimestamp: 1000)
        #expect(config.mtu == 1200 && config.packetizationMode == 1 && config.aggregates)
        let aus = [[T.sps, T.pps, T.idr(5000)], [Self.slice(900)], [T.idr(4000)], [Self.slice(100)]]
        let out = try Self.packetize(aus, config)
        #expect(out.allSatisfy { $0.count <= 1200 })
        let staps = out.indices.filter { Self.structure(out[$0]) == 24 }
        #expect(staps.count == 2)
        for i in staps {
            // STAP-A: SPS then PPS, sizes in front; then the IDR's FU-A fragments at the same timestamp.
            #expect(Array(out[i][13...]) == [0, UInt8(T.sps.count)] + T.sps + [0, UInt8(T.pps.count)] + T.pps)
            #expect(Self.structure(out[i + 1]) == 28 && out[i + 1][13] & 0x1F == 5)
            #expect(Self.timestamp(out[i]) == Self.timestamp(out[i + 1]))
        }
        #expect(Self.timestamp(out[staps[1]]) == 1000 + 2 * 3000)
        let (received, _, _) = try depacketize(out)
        #expect(received.map(\.nals) == [aus[0], aus[1], [T.sps, T.pps, T.idr(4000)], aus[3]])
    }

    /// An SPS that would fit after an AUD and a large SEI, but its PPS would not, starts a new
    /// STAP-A, so that the two travel together.
    @Test func parameterSetsAreNotSplitAcrossPackets() throws {
        let sei: [UInt8] = [0x06, 0x05] + [UInt8](repeating: 0x11, count: 160) + [0x80]
        let au = [Self.aud, sei, T.sps, T.pps, T.idr(40)]
        // Payload 188: AUD(2+2) + SEI(2+163) + 1 = 170; + SPS (2+9) = 181 fits; + PPS (2+4) = 187 fits.
        let fits = try Self.packetize([au], .init(mtu: 200, ssrc: 1))
        #expect(fits.map(Self.structure) == [24, 5])
        // Payload 184: the SPS would fit (181) but not the PPS (187): both move to the next STAP-A.
        let out = try Self.packetize([au], .init(mtu: 196, ssrc: 1))
        #expect(out.map(Self.structure) == [24, 24])
        #expect(Array(out[1][13...]) == [0, 9] + T.sps + [0, 4] + T.pps + [0, 40] + T.idr(40))
        #expect(try depacketize(out).aus.map(\.nals) == [au])
    }

    /// A parameter set larger than the MTU is sent as FU-A fragments, never dropped.
    @Test func parameterSetsLargerThanTheMTUAreFragmented() throws {
        let bigSPS = T.sps + [UInt8](repeating: 0x5A, count: 400)
        let bigPPS = T.pps + [UInt8](repeating: 0x3C, count: 250)
        let au = [bigSPS, bigPPS, T.idr(60)]
        let out = try Self.packetize([au], .init(mtu: 200, ssrc: 1))
        #expect(out.allSatisfy { $0.count <= 200 })
        #expect(out.filter { Self.structure($0) == 28 && $0[13] & 0x1F == 7 }.count == 3)
        #expect(out.filter { Self.structure($0) == 28 && $0[13] & 0x1F == 8 }.count == 2)
        #expect(try depacketize(out).aus.map(\.nals) == [au])
        // Inserted before an IDR by the preset, too.
        var p = try RTPPacketizer(.init(mtu: 200, ssrc: 1, parameterSets: .fromStream))
        var buffer = RTPPacketBuffer()
        for (i, nals) in [au, [T.idr(60)]].enumerated() {
            try p.packetize(RTPAccessUnit(nalUnits: try nals.map { try NALUnit($0) }, timestamp90kHz: Int64(i) * 3000), into: &buffer)
        }
        let again = try depacketize((0..<buffer.count).map { Array(buffer[$0]) })
        #expect(again.aus.map(\.nals) == [au, au])
    }

    /// The marker bit marks access units, not NAL units: a picture of several slices (some
    /// fragmented, some aggregated) has exactly one marked packet, its last.
    @Test(arguments: [0, 1])
    func markerOncePerAccessUnit(mode: Int) throws {
        let slices = [Self.slice(150, first: 0x65), Self.slice(30, first: 0x65), Self.slice(20, first: 0x65), Self.slice(100, first: 0x65)]
        let p = [Self.slice(120), Self.slice(120), Self.slice(10)]
        let aus = [[Self.aud, T.sps, T.pps] + slices, [Self.aud] + p, [Self.aud] + p]
        let out = try Self.packetize(aus, .init(mtu: mode == 0 ? 200 : 80, ssrc: 1, packetizationMode: mode))
        #expect(out.filter(Self.marker).count == aus.count)
        for i in out.indices {
            let lastOfAccessUnit = i == out.count - 1 || Self.timestamp(out[i + 1]) != Self.timestamp(out[i])
            #expect(Self.marker(out[i]) == lastOfAccessUnit, "packet \(i)")
        }
        #expect(try depacketize(out, .init(packetizationMode: mode)).aus.map(\.nals) == aus)
    }
}
