import H264
import RTP
import Testing

/// RTP packets straight from encoder output and parsed access units: the library converts
/// each sample's clock to 90 kHz (nearest tick, halves away from zero) and wraps at 2^32.
@Suite struct RTPSampleTimestampTests {
    static let idr = try! NALUnit([0x65] + [UInt8](repeating: 0x11, count: 40))
    static let p = try! NALUnit([0x41, 0x9A, 0x01])

    static func timestamps(_ packets: RTPPacketBuffer) throws -> [UInt32] {
        try (0..<packets.count).map { try RTPPacket(parsing: packets[$0]).header.timestamp }
    }

    @Test func encodedFramesOnANanosecondClock() throws {
        var packetizer = try RTPPacketizer(.init(ssrc: 7, initialTimestamp: 0xFFFF_FF00))
        var packets = RTPPacketBuffer()
        // 33,333,333 ns = 2999.99997 ticks -> 3000; 5,555 ns = 0.49995 -> 0; 5,556 ns = 0.50004 -> 1;
        // -11,112 ns = -1.00008 -> -1 (wraps below the initial timestamp).
        let cases: [(pts: Int64, ticks: Int64)] = [(0, 0), (33_333_333, 3000), (5_555, 0), (5_556, 1), (-11_112, -1)]
        for (pts, ticks) in cases {
            let frame = EncodedFrame(nalUnits: [Self.p], pts: pts, dts: pts, timescale: 1_000_000_000)
            packets.removeAll()
            try packetizer.packetize(frame, into: &packets)
            let expected = UInt32(0xFFFF_FF00) &+ UInt32(truncatingIfNeeded: ticks)
            #expect(try Self.timestamps(packets) == [expected], "pts \(pts) ns")
            #expect(packetizer.rtpTimestamp(for: frame) == expected)
            // The same time as a media time, for an RTCP sender report: the same conversion.
            #expect(packetizer.rtpTimestamp(at: pts, timeBase: TimeBase(numerator: 1, denominator: 1_000_000_000)) == expected)
            #expect(packetizer.rtpTimestamp(at: .nanoseconds(pts)) == expected, "pts \(pts) ns as a Duration")
        }
        // A clock's Duration with whole seconds and a fraction: 2.5 s + 5,556 ns = 225,000.50004 ticks.
        #expect(packetizer.rtpTimestamp(at: .seconds(2) + .milliseconds(500) + .nanoseconds(5_556)) == 0xFFFF_FF00 &+ 225_001)
        #expect(packetizer.rtpTimestamp(at: .seconds(-2)) == 0xFFFF_FF00 &- 180_000)
        // A time past 2^32 ticks (13.25 hours) wraps.
        let late = EncodedFrame(nalUnits: [Self.p], pts: (1 << 32) + 90, dts: 0, timescale: 90_000)
        #expect(packetizer.rtpTimestamp(for: late) == 0xFFFF_FF00 &+ 90)
        #expect(packetizer.rtpTimestamp(at: .seconds(Int64(1) << 32) + .microseconds(1_000)) == 0xFFFF_FF00 &+ 90)
    }

    @Test func accessUnitWithoutTimestampsIsATypedError() throws {
        var packetizer = try RTPPacketizer(.init(ssrc: 7))
        var packets = RTPPacketBuffer()
        #expect(throws: RTPError(.invalidArgument, "")) {
            try packetizer.packetize(AccessUnit(nalUnits: [Self.p], index: 0), into: &packets)
        }
        #expect(packets.isEmpty)
    }

    /// The async sequence gives, sample by sample, the packets the synchronous packetiser
    /// gives (the encoder's SPS/PPS put before the IDR picture), and stops on cancellation.
    @Test func packetSequenceEqualsSynchronousPacketizing() async throws {
        let sps = try NALUnit([0x67, 0x42, 0xE0, 0x0A, 0x96, 0x52, 0x85, 0x89, 0xC8])
        let pps = try NALUnit([0x68, 0xC9, 0x23, 0x88])
        let frames = (0..<6).map { i in
            EncodedFrame(nalUnits: [i % 3 == 0 ? Self.idr : Self.p], pts: Int64(i) * 40, dts: Int64(i) * 40, timescale: 1000)
        }
        let packetizer = try RTPPacketizer(.init(mtu: 32, ssrc: 9, initialTimestamp: 100, parameterSets: .given([sps, pps])))
        var copy = packetizer
        var expected: [[UInt8]] = []
        for frame in frames {
            var packets = RTPPacketBuffer()
            try copy.packetize(frame, into: &packets)
            expected.append(packets.bytes)
        }
        let stream = AsyncStream { c in frames.forEach { c.yield($0) }; c.finish() }
        var got: [[UInt8]] = []
        var stamps: [UInt32] = []
        for try await packets in packetizer.packets(from: stream) {
            got.append(packets.bytes)
            stamps.append(try RTPPacket(parsing: packets[0]).header.timestamp)
        }
        #expect(got == expected)
        #expect(stamps == (0..<6).map { 100 + UInt32($0) * 3600 })
        #expect(expected[0].count > expected[1].count + sps.count, "SPS and PPS went before the IDR picture")

        let endless = AsyncStream<EncodedFrame> { c in c.yield(frames[0]) }
        let task = Task {
            var n = 0
            for try await _ in packetizer.packets(from: endless) { n += 1 }
            return n
        }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
