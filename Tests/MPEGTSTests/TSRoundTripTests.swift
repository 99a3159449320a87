import H264
import H264Fixtures
import MPEGTS
import TestSupport
import Testing

/// Our muxer's output through our demuxer, whole and in chunks of every awkward size.
@Suite struct TSRoundTripTests {
    @Test(arguments: TSTestSupport.fixtures)
    func accessUnitsAndTimesSurvive(_ fixture: Fixture) throws {
        let units = TSTestSupport.accessUnits(fixture.bytes())
        let (ts, offset) = try TSTestSupport.mux(units)
        for chunk in [0, 1, 7, 188, 189, 1316, 4000] {
            let (events, parser) = TSTestSupport.demux(ts, chunk: chunk)
            let out = TSTestSupport.accessUnits(events)
            try #require(out.count == units.count, "chunk \(chunk)")
            for (a, b) in zip(out, units) {
                #expect(TSTestSupport.payload(a.nalUnits) == TSTestSupport.payload(b.nalUnits))
                #expect(a.nalUnits.first?.type == .accessUnitDelimiter)
                let t = try #require(b.timestamps?.rescaled(to: 90_000))
                #expect(a.timestamps?.dts == t.dts + offset)
                #expect(a.timestamps?.pts == t.pts + offset)
                #expect(!a.mayBeIncomplete)
                #expect(a.isRandomAccessPoint == b.isRandomAccessPoint)
            }
            #expect(TSTestSupport.continuityErrors(events) == 0)
            #expect(parser.statistics.skippedBytes == 0)
            #expect(parser.packetSize == 188)
            #expect(parser.programMaps[1]?.streams.map(\.streamType) == [.h264])
        }
    }

    /// Opaque PES packets pass through the muxer and the demuxer with their times, beside the
    /// video; a PCR on its own PID is found.
    @Test func otherStreamsAndAPCRPID() throws {
        let units = TSTestSupport.accessUnits(Fixture.mainCABACBFrames.bytes())
        let audio = TSElementaryStreamInfo(pid: 0x101, streamType: .aacADTS)
        var writer = try TSWriter(options: .init(pcrPID: 0x1FF, otherStreams: [audio]))
        var sent: [TSElementaryStreamPacket] = []
        for (k, au) in units.enumerated() {
            try writer.write(au)
            let t = try #require(au.timestamps?.rescaled(to: 90_000))
            let packet = TSElementaryStreamPacket(pid: 0x101, streamType: .aacADTS, payload: (0..<(100 + k * 37)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ k) },
                                                  timestamps: SampleTimestamps(pts: t.dts, dts: t.dts, timescale: 90_000))
            try writer.write(packet)
            sent.append(packet)
        }
        let offset = try #require(writer.timestampOffset)
        let (events, parser) = TSTestSupport.demux(writer.takeBytes(), chunk: 500)
        let pes = events.compactMap { if case .elementaryStreamPacket(let p) = $0 { p } else { nil } }
        try #require(pes.count == sent.count)
        for (a, b) in zip(pes, sent) {
            #expect(a.payload == b.payload)
            #expect(a.streamID == 0xC0)
            #expect(a.isComplete)
            #expect(a.timestamps?.pts == b.timestamps!.pts + offset)
        }
        #expect(TSTestSupport.accessUnits(events).count == units.count)
        let pcrs = events.compactMap { if case .programClockReference(let p) = $0 { p } else { nil } }
        #expect(pcrs.count >= 2 && pcrs.allSatisfy { $0.pid == 0x1FF })
        #expect(parser.programMaps[1]?.pcrPID == 0x1FF)
        // PCRs at most 100 ms apart, never ahead of the next access unit's decoding time.
        for (a, b) in zip(pcrs, pcrs.dropFirst()) { #expect(b.base - a.base <= 9_000 && b.base >= a.base) }
    }

    /// The writer moves times only as far as its delay needs: a stream starting at 0 (or
    /// earlier, with B-frames) is moved up to the delay, a remuxed transport stream whose times
    /// already start later keeps them (as FFmpeg's `-c copy` does).
    @Test func remuxKeepsTimesThatStartLate() throws {
        let units = TSTestSupport.accessUnits(Fixture.mainCABACBFrames.bytes())
        let (first, offset) = try TSTestSupport.mux(units)
        let earliest = try units.map { try #require($0.timestamps?.rescaled(to: 90_000)) }.map { min($0.dts, $0.pts) }.min()!
        #expect(offset == 63_000 - earliest)  // earliest is below the delay: 0, or negative with B-frames
        let read = TSTestSupport.accessUnits(TSTestSupport.demux(first).events)
        var writer = try TSWriter()
        var second: [UInt8] = []
        for au in read {
            try writer.write(au)
            second += writer.takeBytes()
        }
        #expect(writer.timestampOffset == 0)
        let again = TSTestSupport.accessUnits(TSTestSupport.demux(second).events)
        try #require(again.count == read.count)
        #expect(again.map(\.timestamps) == read.map(\.timestamps))
        // The first PCR runs the delay behind the first decoding time, not below zero.
        let pcr = try #require(TSTestSupport.demux(second).events.lazy.compactMap { if case .programClockReference(let p) = $0 { p } else { nil } }.first)
        let firstDTS = try #require(read.first?.timestamps?.dts)
        #expect(pcr.base == firstDTS - 63_000)
    }
}
