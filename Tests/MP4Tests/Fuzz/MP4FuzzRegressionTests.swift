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

    /// The folder is where the tests look: a moved folder fails here instead of replaying nothing.
    @Test func keptInputsAreFound() {
        #expect(!Self.kept.isEmpty, "no kept inputs in \(Self.directory)")
    }

    @Test(arguments: kept)
    func regression(_ name: String) throws {
        let bytes = Support.readFile(Self.directory + "/" + name)
        try #require(!bytes.isEmpty)
        FuzzProperty.replay(MP4FuzzBodies.read, bytes, label: "mp4_read/\(name)")
    }

    /// The body on valid files: the seeds `Tests/Fuzz/run.sh` derives from the fixtures (each
    /// muxed in three layouts; a stream the fragmented writer refuses, one that changes format,
    /// gives two).
    @Test func derivedSeeds() throws {
        let streams = MP4TestSupport.annexBFixtures.map { $0.bytes() }
        let seeds = MP4FuzzBodies.seeds(streams)
        #expect(seeds.count >= 2 * streams.count)
        for seed in seeds {
            #expect(try MP4Reader(seed).videoTrack != nil)
            FuzzProperty.replay(MP4FuzzBodies.read, seed, label: "mp4_read seed")
        }
    }

    /// The segmenting targets' bodies on the fixtures behind each seed's option byte: every
    /// property holds on valid streams (the fuzzer's starting points).
    @Test(arguments: ["mp4_fragment", "hls_segment"])
    func segmentingBodiesOnTheFixtures(_ target: String) throws {
        let body = try #require(MP4FuzzBodies.targets[target])
        let seeds = MP4FuzzBodies.seeds(target: target, MP4TestSupport.annexBFixtures.map { $0.bytes() })
        #expect(seeds.count == 4 * MP4TestSupport.annexBFixtures.count)
        for seed in seeds { FuzzProperty.replay(body, seed, label: "\(target) seed \(seed[0])") }
    }

    /// The inputs kept for the segmenting targets, replayed through their bodies.
    static let keptSegmenting: [String] = ["mp4_fragment", "hls_segment"].flatMap { target in
        ((try? FileManager.default.contentsOfDirectory(atPath: Support.root + "/Tests/Fuzz/Regressions/" + target)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted().map { target + "/" + $0 }
    }

    @Test(arguments: keptSegmenting)
    func segmentingRegression(_ path: String) throws {
        let target = String(path.prefix { $0 != "/" })
        let body = try #require(MP4FuzzBodies.targets[target])
        let bytes = Support.readFile(Support.root + "/Tests/Fuzz/Regressions/" + path)
        try #require(!bytes.isEmpty)
        FuzzProperty.replay(body, bytes, label: path)
    }
}
