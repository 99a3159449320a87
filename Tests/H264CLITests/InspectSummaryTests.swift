import Foundation
import Testing
import TestSupport

@Suite struct InspectSummaryTests {
    /// `h264 inspect --json` on a fixture (8 pictures, IDR every 4, 25 fps): the summary's
    /// counts, GOP lengths and duration.
    @Test(.enabled(if: Support.h264 != nil, "needs the built h264 tool"))
    func summaryOfAFixture() throws {
        let run = try Support.run(try #require(Support.h264), ["inspect", "--json", Support.root + "/Fixtures/Streams/baseline-cavlc.264"])
            .checked("h264 inspect")
        let last = try #require(run.output.split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let summary = try #require(object["summary"] as? [String: Any], "\(last)")
        #expect(summary["access_units"] as? Int == 8)
        #expect(summary["keyframes"] as? Int == 2)
        #expect(summary["idr_frames"] as? Int == 2)
        #expect(summary["gop_lengths"] as? [Int] == [4, 4])
        #expect(summary["duration"] as? Double == 0.32)
        #expect(summary["codec"] as? String == "avc1.42c00a")
        #expect(summary["profile_level_id"] as? String == "42c00a")
    }

    /// The human summary's codec line, for a High 10 fixture.
    @Test(.enabled(if: Support.h264 != nil, "needs the built h264 tool"))
    func codecLine() throws {
        let run = try Support.run(try #require(Support.h264), ["inspect", Support.root + "/Fixtures/Streams/high10.264"])
            .checked("h264 inspect")
        let line = run.output.split(separator: "\n").first { $0.hasPrefix("codec ") }
        #expect(line.map(String.init) == "codec          avc1.6e000a, profile-level-id 6e000a")
    }

    /// The human summary's colour line: the SPS's `ColorDescription`, for a fixture whose VUI
    /// carries one.
    @Test(.enabled(if: Support.h264 != nil, "needs the built h264 tool"))
    func colourLine() throws {
        let run = try Support.run(try #require(Support.h264), ["inspect", Support.root + "/Fixtures/Streams/vui-full.264"])
            .checked("h264 inspect")
        let line = run.output.split(separator: "\n").first { $0.hasPrefix("colour ") }
        #expect(line.map(String.init) == "colour         \(Self.vuiFullColour)")
    }

    /// vui-full.264's colour description, as the fixture builder writes it.
    static let vuiFullColour = "primaries 1, transfer 1, matrix 1, full range"
}
