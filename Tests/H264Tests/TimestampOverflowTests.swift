import Testing
import H264Fixtures
@testable import H264

/// The timestamp assigner at the ends of `Int64` (issue 27): a presentation delay near
/// `Int64.max` (or negative) and frame rates whose time base does not fit gave PTS near
/// `Int64.min` below DTS, and a negative time base that reversed DTS once rescaled. Now PTS
/// saturates at `Int64.max`, a negative delay is 0, and the time base stays positive (its
/// denominator saturates), as the type's documentation says.
@Suite struct TimestampOverflowTests {
    static let stream = Fixture.mainCABACBFrames.bytes()

    /// The access units of the B-frame fixture, streamed with `timing`.
    static func accessUnits(_ timing: TimestampOptions) throws -> [AccessUnit] {
        var parser = AccessUnitParser(timing: timing)
        parser.append(stream)
        parser.finish()
        var units: [AccessUnit] = []
        while let au = try parser.next() { units.append(au) }
        return units.filter { !$0.flags.hasNoPicture }
    }

    /// DTS strictly increases and PTS is at least DTS; on `timescale` ticks a second (when
    /// given), DTS does not go back and PTS stays at least DTS.
    static func expectOrdered(_ units: [AccessUnit], _ what: String, rescaledTo timescale: Int64? = nil) throws {
        var last: (dts: Int64, rescaled: Int64?)?
        for au in units {
            let t = try #require(au.timestamps)
            #expect(t.pts >= t.dts, "\(what): PTS \(t.pts) < DTS \(t.dts)")
            if let last { #expect(t.dts > last.dts, "\(what): DTS \(t.dts) after \(last.dts)") }
            var rescaled: Int64?
            if let timescale {
                let r = t.rescaled(to: timescale)
                #expect(r.pts >= r.dts, "\(what): rescaled PTS \(r.pts) < DTS \(r.dts)")
                if let previous = last?.rescaled { #expect(r.dts >= previous, "\(what): rescaled DTS \(r.dts) after \(previous)") }
                rescaled = r.dts
            }
            last = (t.dts, rescaled)
        }
    }

    static let delays: [Int64] = [Int64.max, Int64.max - 1, (1 << 62) + 5, 1 << 62, -(1 << 62), Int64.min + 1, Int64.min]

    @Test(arguments: delays)
    func presentationDelaySaturates(_ delay: Int64) throws {
        let base = try Self.accessUnits(.init(presentationDelay: 0))
        let units = try Self.accessUnits(.init(presentationDelay: delay))
        try #require(units.count == base.count && units.count == 10)
        #expect(units.map(\.dts) == base.map(\.dts))
        // Each PTS is the position plus the delay (0 when negative), or Int64.max past it.
        let expected = base.map { au in
            let (sum, overflow) = au.pts!.addingReportingOverflow(max(0, delay))
            return overflow ? Int64.max : sum
        }
        #expect(units.map(\.pts) == expected, "delay \(delay)")
        if delay == Int64.max { #expect(units.allSatisfy { $0.pts == Int64.max }, "the first is Int64.max + 0, the others saturate") }
        // With a delay that covers the reordering (all but the negative ones), PTS >= DTS.
        if delay > 0 { try Self.expectOrdered(units, "delay \(delay)") }
        // The batch API with the same configuration gives the same.
        let (batch, _) = AccessUnits.assemble(annexB: Self.stream[...], timing: .init(presentationDelay: delay))
        #expect(batch.filter { !$0.flags.hasNoPicture }.map(\.pts) == expected)
    }

    struct Rate: Sendable, CustomTestStringConvertible {
        var numerator: Int64
        var denominator: Int64
        var testDescription: String { "\(numerator)/\(denominator)" }
    }

    /// Frame rates whose field period `denominator / (2 × numerator)` has no `Int64`
    /// denominator: the time base stays positive and within a factor of two of the rate's
    /// (exact when the fraction reduces), and timestamps rescaled to 90 kHz or nanoseconds keep
    /// their order.
    @Test(arguments: [Rate(numerator: Int64.max, denominator: 1), Rate(numerator: 1 << 62, denominator: 1),
                      Rate(numerator: 1 << 62, denominator: 2), Rate(numerator: Int64.max, denominator: Int64.max),
                      Rate(numerator: (1 << 62) + 1, denominator: 3), Rate(numerator: 1, denominator: Int64.max),
                      Rate(numerator: 30_000, denominator: 1001)])
    func frameRateTimeBaseStaysPositive(_ rate: Rate) throws {
        let units = try Self.accessUnits(.init(frameRate: (rate.numerator, rate.denominator), overridesStreamTiming: true))
        let timeBase = try #require(units.first?.timeBase)
        #expect(timeBase.numerator > 0 && timeBase.denominator > 0, "\(timeBase)")
        let asked = Double(rate.denominator) / Double(rate.numerator) / 2
        let period = Double(timeBase.numerator) / Double(timeBase.denominator)
        #expect(period >= asked * 0.999 && period <= asked * 2.001, "\(timeBase) for \(rate.testDescription)")
        try Self.expectOrdered(units, rate.testDescription, rescaledTo: 90_000)
        try Self.expectOrdered(units, rate.testDescription, rescaledTo: 1_000_000_000)
        // An ordinary rate keeps its exact, unreduced time base.
        if rate.numerator == 30_000 { #expect(timeBase == TimeBase(numerator: 1001, denominator: 60_000)) }
        // Reducible: 2^62/2 frames a second is 1/2^62 s a field, exactly.
        if rate.numerator == 1 << 62 && rate.denominator == 2 { #expect(timeBase == TimeBase(numerator: 1, denominator: 1 << 62)) }
        if rate.numerator == Int64.max && rate.denominator == Int64.max { #expect(timeBase == TimeBase(numerator: 1, denominator: 2)) }
    }
}
