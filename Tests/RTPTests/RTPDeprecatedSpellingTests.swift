import H264
import H264Fixtures
import RTP
import Testing

/// The deprecated spellings of the RTP module still build and mean what replaced them. Called
/// through protocols the deprecated members witness, so that this test builds without warnings.
@Suite struct RTPDeprecatedSpellingTests {
    /// `RTPAccessUnit(_:)` from an access unit is `RTPAccessUnit(sample:)`: the same NAL units
    /// and the same 90 kHz presentation time, and nil for an access unit without timestamps.
    @Test func accessUnitInitialiserIsTheSampleOne() throws {
        let units = AccessUnits.assemble(annexB: Fixture.mainCABACBFrames.bytes()[...], leadingData: .skip).accessUnits
        #expect(units.count > 3)
        for au in units {
            let old = try #require(LegacyRTPAccessUnit.make(au))
            let new = try #require(RTPAccessUnit(sample: au))
            #expect(old.timestamp90kHz == new.timestamp90kHz)
            #expect(old.nalUnits == new.nalUnits)
        }
        #expect(units.map { RTPAccessUnit(sample: $0)?.timestamp90kHz } == RTPAccessUnit.accessUnits(annexB: Fixture.mainCABACBFrames.bytes()[...]).map(\.timestamp90kHz))
        #expect(LegacyRTPAccessUnit.make(AccessUnit()) == nil)
    }
}

private protocol LegacyAccessUnitInit {
    init?(_ accessUnit: AccessUnit)
}

extension RTPAccessUnit: LegacyAccessUnitInit {}

private enum LegacyRTPAccessUnit {
    static func make(_ au: AccessUnit) -> RTPAccessUnit? { make(RTPAccessUnit.self, au) }
    private static func make<U: LegacyAccessUnitInit>(_: U.Type, _ au: AccessUnit) -> U? { U(au) }
}
