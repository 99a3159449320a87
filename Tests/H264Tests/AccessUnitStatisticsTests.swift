import H264
import H264Fixtures
import Testing

@Suite struct AccessUnitStatisticsTests {
    static func au(_ index: Int, _ header: UInt8, pts: Int64?) throws -> AccessUnit {
        let units = [try NALUnit(header == 0x09 ? [0x09, 0x10] : [header, 0x88, 0x84, 0x21])]
        var au = AccessUnit(nalUnits: units, index: index, flags: AccessUnitFlags(accessUnit: units))
        au.pts = pts
        au.duration = pts.map { _ in 2 }
        return au
    }

    /// A picture before the first keyframe belongs to no GOP; an access unit without a picture
    /// counts as an access unit only; the last GOP closes at finish().
    @Test func countsAndGOPs() throws {
        // P | IDR P P | IDR P (AUD only) P P
        let headers: [UInt8] = [0x41, 0x65, 0x41, 0x41, 0x65, 0x41, 0x09, 0x41, 0x41]
        var stats = AccessUnitStatistics()
        for (i, h) in headers.enumerated() { stats.add(try Self.au(i, h, pts: h == 0x09 ? nil : Int64(10 + 2 * i))) }
        #expect(stats.accessUnits == 9 && stats.pictures == 8)
        #expect(stats.keyframes == 2 && stats.idrPictures == 2)
        #expect(stats.gopLengths == [3] && stats.gopCount == 1)
        stats.finish()
        #expect(stats.gopLengths == [3, 4] && stats.gopCount == 2)
        #expect(stats.gopLengthRange == 3...4 && stats.meanGOPLength == 3.5)
        #expect(stats.firstPTS == 10 && stats.ptsEnd == 10 + 2 * 8 + 2 && stats.presentationSpan == 18)
        #expect(stats.fields == 0 && stats.formatChanges == 0 && stats.droppedGOPLengths == 0)
    }

    /// Over a fixture: as many access units, IDR pictures and frames as its manifest says.
    @Test func fixtureFacts() throws {
        let fixture = Fixture.baselineCAVLC
        var stats = AccessUnitStatistics()
        for au in AccessUnits.assemble(annexB: fixture.bytes()[...]).accessUnits { stats.add(au) }
        stats.finish()
        #expect(stats.accessUnits == fixture.facts.accessUnitCount)
        #expect(stats.idrPictures == fixture.facts.idrCount)
        #expect(stats.pictures == fixture.facts.frameCount)
        #expect(stats.gopLengths.reduce(0, +) <= stats.pictures && stats.gopCount >= 1)
    }
}
