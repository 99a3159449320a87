import H264
import H264Fixtures
import MPEGTS
import Testing

/// `TSStreamSummary`: what it gathers from a parser's events, PCR intervals across the 2^33
/// wrap and discontinuities, and its cap on per-PID records.
@Suite struct TSStreamSummaryTests {
    /// Our own TS of a fixture: one program, the PCR on the video PID at most 40 ms apart,
    /// every access unit with times, the decoding span of the stream.
    @Test func summarisesOurStream() throws {
        var timing = TimestampOptions(frameRate: (25, 1))
        timing.overridesStreamTiming = true
        let units = AccessUnits.assemble(annexB: Fixture.mainCABACBFrames.bytes()[...], timing: timing).accessUnits
            .filter { !$0.flags.hasNoPicture }
        var writer = try TSWriter()
        for au in units { try writer.write(au) }
        var parser = TSParser()
        parser.append(writer.takeBytes())
        parser.finish()
        var summary = TSStreamSummary()
        while let event = parser.next() { summary.add(event) }
        summary.finish(parser)
        #expect(summary.programs.map(\.programNumber) == [1])
        #expect(summary.programs.first?.streams.map(\.streamType) == [.h264])
        #expect(summary.accessUnits == units.count && summary.keyframes == 1 && summary.accessUnitsWithoutTimestamps == 0)
        #expect(summary.accessUnitBytes == units.reduce(0) { $0 + $1.nalUnits.reduce(0) { $0 + $1.bytes.count } } + units.filter { $0.nalUnits.first?.type != .accessUnitDelimiter }.count * 2)
        #expect(summary.decodingSpan == Int64(units.count - 1) * 3600)
        #expect(summary.packetSize == 188 && summary.statistics.packets == writer.packetCount)
        let pcr = try #require(summary.programClockReferences.first)
        #expect(pcr.pid == 0x100 && pcr.count >= units.count)
        #expect(try #require(pcr.largestInterval) <= 40 * 27_000)
        #expect(summary.continuityErrors == 0 && summary.health.isEmpty)
    }

    /// The largest PCR interval: a step across the 2^33 × 300 wrap counts as the small step it
    /// is; a step into a PCR flagged `discontinuity_indicator` does not count.
    @Test func clockReferenceIntervals() throws {
        var summary = TSStreamSummary()
        let wrap: Int64 = 1 << 33
        func pcr(_ base: Int64, discontinuity: Bool = false) -> TSEvent {
            .programClockReference(TSProgramClockReference(pid: 0x31, base: base, extensionValue: 0, isDiscontinuity: discontinuity))
        }
        summary.add(pcr(wrap - 900))        // 10 ms before the wrap
        summary.add(pcr(1800))              // 30 ms later, after it
        summary.add(pcr(1_000_000, discontinuity: true))
        summary.add(pcr(1_000_000 + 3600))  // 40 ms
        let r = try #require(summary.programClockReferences.first)
        #expect(r.count == 4 && r.largestInterval == 3600 * 300)
        #expect(r.largestIntervalDuration == .milliseconds(40))
        #expect(r.first.base == wrap - 900 && r.last.base == 1_003_600)
    }

    /// Continuity events per PID; past `maximumPIDs` records they are only counted.
    @Test func perPIDRecordsAreCapped() {
        var summary = TSStreamSummary()
        for pid in 0..<(TSStreamSummary.maximumPIDs + 10) {
            summary.add(.continuityError(pid: UInt16(pid), expected: 1, found: 3))
        }
        summary.add(.discontinuity(pid: 0))
        #expect(summary.health.count == TSStreamSummary.maximumPIDs)
        #expect(summary.droppedPIDRecords == 10)
        #expect(summary.continuityErrors == TSStreamSummary.maximumPIDs + 10 && summary.discontinuities == 1)
        #expect(summary.health.first?.pid == 0 && summary.health.first?.continuityErrors == 1 && summary.health.first?.discontinuities == 1)
    }
}
