import H264
import H264Delivery
import H264Fixtures
import Testing

/// Table A-1 in the core and the lowest level an SPS needs.
@Suite struct LevelRequirementTests {
    static func sps(width: Int, height: Int, fps: UInt32?, refs: UInt32 = 1, level: UInt8 = 51) throws -> SequenceParameterSet {
        var o = StreamBuilder.SequenceOptions(width: width, height: height, profileIDC: 100, levelIDC: level)
        o.frameRate = fps.map { ($0, 1) }
        o.maxNumRefFrames = refs
        return try o.makeParameterSets().sps
    }

    @Test(arguments: [(1920, 1080, UInt32(30), UInt32(4), "4"), (1920, 1080, 60, 4, "4.2"), (1280, 720, 30, 4, "3.1"),
                      (640, 480, 30, 4, "3"), (176, 144, 15, 1, "1"), (176, 144, 30, 1, "1.1"), (3840, 2160, 30, 4, "5.1"), (1280, 720, nil, 16, "5")])
    func minimumLevel(_ width: Int, _ height: Int, _ fps: UInt32?, _ refs: UInt32, _ expected: String) throws {
        let sps = try Self.sps(width: width, height: height, fps: fps, refs: refs)
        #expect(sps.minimumLevel?.name == expected)
        let level = try #require(sps.minimumLevel)
        #expect(sps.levelViolations(of: level).isEmpty)
        // The level below (if any) breaks a limit.
        if let below = ProfileLevel.Level.all.last(where: { $0 < level && !$0.isLevel1b }) {
            #expect(!sps.levelViolations(of: below).isEmpty)
        }
    }

    @Test func tableA1IsOrderedAndMatchesTheDPBLimit() throws {
        let rows = ProfileLevel.Level.all.compactMap(\.limits)
        #expect(rows.count == 20)
        for (a, b) in zip(rows, rows.dropFirst()) {
            #expect(a.maxMacroblocksPerSecond <= b.maxMacroblocksPerSecond && a.maxFrameSize <= b.maxFrameSize && a.maxDpbMbs <= b.maxDpbMbs)
        }
        #expect(ProfileLevel.Level(levelIDC: 51).limits?.maxDpbMbs == 184_320)
        #expect(ProfileLevel.Level(levelIDC: 7).limits == nil)
        let sps = try Self.sps(width: 1920, height: 1080, fps: nil, level: 40)
        #expect(sps.maxDpbFrames == 4)  // 32768 / 8160
    }

    @Test func replacingLevelWritesLevel1bByProfile() throws {
        let cb = try ProfileLevel(parsing: "42e01f")
        #expect(cb.replacingLevel(ProfileLevel.Level(levelIDC: 11, isLevel1b: true)).profileLevelID == "42f00b")
        #expect(try ProfileLevel(parsing: "42f00b").replacingLevel(ProfileLevel.Level(levelIDC: 11)).profileLevelID == "42e00b")
        #expect(try ProfileLevel(parsing: "640028").replacingLevel(ProfileLevel.Level(levelIDC: 9, isLevel1b: true)).profileLevelID == "640009")
    }
}
