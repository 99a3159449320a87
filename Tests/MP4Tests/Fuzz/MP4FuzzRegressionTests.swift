import Foundation
import H264Fixtures
import MP4
import Testing
import TestSupport

/// Replays every input kept in `Tests/Fuzz/Regressions/mp4_read/` (inputs the fuzzer found,
/// fixed since) through the fuzz body, and the fixtures muxed in each layout.
@Suite struct MP4FuzzRegressionTests {
    static let directory = Support.root + "/Tests/Fuzz/Regressions/mp4_read"

    static let kept: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        .filter { !$0.hasPrefix(".") }.sorted()

    @Test(.enabled(if: !kept.isEmpty, "no kept inputs"), arguments: kept)
    func regression(_ name: String) throws {
        let bytes = Support.readFile(Self.directory + "/" + name)
        try #require(!bytes.isEmpty)
        MP4FuzzBodies.read(bytes)
    }

    /// The body on valid files: what the fuzzer's seeds are.
    @Test func fixtures() throws {
        for fixture in [Fixture.mainCABACBFrames, .resolutionChange, .paffFields, .intraRefresh] {
            for layout in [MP4Writer.Options.Layout.fastStart, .mediaFirst] {
                MP4FuzzBodies.read(try MP4TestSupport.mp4(fixture.bytes(), layout: layout).bytes)
            }
        }
    }
}
