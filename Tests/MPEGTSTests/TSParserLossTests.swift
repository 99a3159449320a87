import H264
import H264Fixtures
import MPEGTS
import TestSupport
import Testing

/// Lost packets, garbage and M2TS framing.
@Suite struct TSParserLossTests {
    /// The stream muxed with the packet range of each access unit.
    static func muxWithRanges(_ units: [AccessUnit]) throws -> (ts: [UInt8], ranges: [Range<Int>], offset: Int64) {
        var writer = try TSWriter()
        var out: [UInt8] = []
        var ranges: [Range<Int>] = []
        for au in units {
            let before = writer.packetCount
            try writer.write(au)
            ranges.append(before..<writer.packetCount)
            out += writer.takeBytes()
        }
        return (out, ranges, writer.timestampOffset ?? 0)
    }

    /// Packets dropped at random: continuity errors are reported, every access unit whose
    /// packets all arrived comes out whole, and every one not marked incomplete is a source one.
    @Test(arguments: [1 as UInt64, 2, 3, 4])
    func randomDrops(seed: UInt64) throws {
        var times = TimestampOptions(frameRate: (25, 1))
        times.overridesStreamTiming = true
        let stream = (0..<6).flatMap { _ in Fixture.highBPyramid.bytes() }
        let units = AccessUnits.assemble(annexB: stream[...], timing: times).accessUnits.filter { !$0.flags.hasNoPicture }
        let (ts, ranges, offset) = try Self.muxWithRanges(units)
        var rng = SplitMix64(seed: seed)
        var dropped = Set<Int>()
        var kept: [UInt8] = []
        for k in 0..<(ts.count / 188) {
            if k > 3, rng.next() % 12 == 0 { dropped.insert(k); continue }
            kept += ts[(k * 188)..<((k + 1) * 188)]
        }
        try #require(!dropped.isEmpty)
        let (events, _) = TSTestSupport.demux(kept, chunk: 1316)
        #expect(TSTestSupport.continuityErrors(events) > 0)
        let out = TSTestSupport.accessUnits(events)
        let byDTS = Dictionary(uniqueKeysWithValues: units.map { ($0.timestamps!.rescaled(to: 90_000).dts, $0) })
        for au in out where !au.mayBeIncomplete {
            let source = try #require(au.timestamps.flatMap { byDTS[$0.dts - offset] })
            #expect(TSTestSupport.payload(au.nalUnits) == TSTestSupport.payload(source.nalUnits))
        }
        for (au, range) in zip(units, ranges) where dropped.isDisjoint(with: range) {
            let dts = au.timestamps!.rescaled(to: 90_000).dts + offset
            let found = out.first { $0.timestamps?.dts == dts }
            #expect(found.map { TSTestSupport.payload($0.nalUnits) } == TSTestSupport.payload(au.nalUnits), "access unit \(au.index)")
        }
    }

    /// Garbage before and between packets, and a cut packet: sync is found again and the
    /// access units after it come out.
    @Test func garbageAndResync() throws {
        let units = TSTestSupport.accessUnits(Fixture.baselineCAVLC.bytes())
        let (ts, _) = try TSTestSupport.mux(units)
        let half = (ts.count / 188 / 2) * 188
        var damaged: [UInt8] = [0x47, 1, 2, 3, 0x47] + Array(repeating: 0x55, count: 300)
        damaged += ts[0..<half] + ts[(half + 188)..<(half + 250)] + Array(repeating: 0x47, count: 3) + ts[(half + 188)...]
        for chunk in [0, 1, 100] {
            let (events, parser) = TSTestSupport.demux(damaged, chunk: chunk)
            let lost = events.compactMap { if case .syncLost(let n) = $0 { n } else { nil } }
            #expect(lost.count >= 2, "chunk \(chunk)")
            #expect(parser.statistics.skippedBytes == lost.reduce(0, +))
            let out = TSTestSupport.accessUnits(events)
            #expect(out.count >= units.count - 1, "chunk \(chunk)")
            #expect(out.last.map { TSTestSupport.payload($0.nalUnits) } == TSTestSupport.payload(units.last!.nalUnits))
        }
    }

    /// Chunks handed over before the earlier ones are read wait their turn, and a packet or a
    /// sync search across several of them (one byte each included) reads as in the whole
    /// input: clean, with garbage and a cut packet, and in 192-byte packets.
    @Test func chunksHandedOverAhead() throws {
        let units = TSTestSupport.accessUnits(Fixture.baselineCAVLC.bytes())
        let (ts, _) = try TSTestSupport.mux(units)
        let half = (ts.count / 188 / 2) * 188
        var damaged: [UInt8] = [0x47, 1, 2, 3, 0x47] + Array(repeating: 0x55, count: 300)
        damaged += ts[0..<half] + ts[(half + 188)..<(half + 250)] + Array(repeating: 0x47, count: 3) + ts[(half + 188)...]
        var m2ts: [UInt8] = []
        for k in 0..<(ts.count / 188) { m2ts += [0x40, 0, UInt8(k & 0xFF), 0] + ts[(k * 188)..<((k + 1) * 188)] }
        for input in [ts, damaged, m2ts] {
            let (wholeEvents, whole) = TSTestSupport.demux(input)
            let expected = TSTestSupport.accessUnits(wholeEvents)
            #expect(expected.count >= units.count - 1)
            for (chunk, batch) in [(1, 400), (1, 1_000_000), (7, 3), (100, 5), (189, 2), (1000, 7)] {
                let (events, parser) = TSTestSupport.demux(input, chunk: chunk, batch: batch)
                let out = TSTestSupport.accessUnits(events)
                #expect(out.map { TSTestSupport.payload($0.nalUnits) } == expected.map { TSTestSupport.payload($0.nalUnits) },
                        "chunk \(chunk), batch \(batch)")
                #expect(out.map(\.timestamps) == expected.map(\.timestamps), "chunk \(chunk), batch \(batch)")
                #expect(out.map(\.mayBeIncomplete) == expected.map(\.mayBeIncomplete), "chunk \(chunk), batch \(batch)")
                #expect(parser.statistics == whole.statistics, "chunk \(chunk), batch \(batch)")
                #expect(parser.packetSize == whole.packetSize)
            }
        }
    }

    /// 192-byte packets (a 4-byte header before each) are found and read.
    @Test func m2tsPackets() throws {
        let units = TSTestSupport.accessUnits(Fixture.highBPyramid.bytes())
        let (ts, _) = try TSTestSupport.mux(units)
        var m2ts: [UInt8] = []
        for k in 0..<(ts.count / 188) { m2ts += [0x40, 0, UInt8(k & 0xFF), 0] + ts[(k * 188)..<((k + 1) * 188)] }
        let (events, parser) = TSTestSupport.demux(m2ts, chunk: 333)
        #expect(parser.packetSize == 192)
        #expect(TSTestSupport.accessUnits(events).map { TSTestSupport.payload($0.nalUnits) } == units.map { TSTestSupport.payload($0.nalUnits) })
    }
}
