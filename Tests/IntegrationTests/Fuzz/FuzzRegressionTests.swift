import Foundation
import H264
import H264Fixtures
import Testing
import TestSupport

/// Replays every input kept in `Tests/Fuzz/Regressions/<target>/` (crashers the fuzzers found,
/// fixed since) through the fuzz target's body, and every fixture through every body.
@Suite struct FuzzRegressionTests {
    /// `Tests/Fuzz/Regressions` of this package.
    static let regressionsRoot = URL(fileURLWithPath: Support.root).appendingPathComponent("Tests/Fuzz/Regressions")

    /// Targets whose kept inputs another test target replays (`MP4FuzzRegressionTests`).
    static let replayedElsewhere: Set<String> = ["mp4_read", "mp4_fragment", "hls_segment"]

    /// The folders of kept inputs, one per target.
    static let folders: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: regressionsRoot.path)) ?? [])
        .filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()

    /// (target, file name) for every kept input of every folder, whatever the folder is named:
    /// a folder without a body fails ``regression(_:)`` instead of being left out.
    static let regressions: [FuzzInput] = {
        var out: [FuzzInput] = []
        for target in folders where !replayedElsewhere.contains(target) {
            let dir = regressionsRoot.appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names.sorted() where !name.hasPrefix(".") {
                out.append(FuzzInput(target: target, name: name))
            }
        }
        return out
    }()

    /// The kept inputs are found (the folder is where the tests look) and every folder names a
    /// target.
    @Test func keptInputsAreFound() {
        #expect(Self.folders.count >= 3, "\(Self.regressionsRoot.path) holds \(Self.folders)")
        #expect(Self.regressions.count >= 4)
        for folder in Self.folders where !Self.replayedElsewhere.contains(folder) {
            #expect(FuzzBodies.targets[folder] != nil, "Tests/Fuzz/Regressions/\(folder) names no fuzz target")
        }
    }

    @Test(arguments: regressions)
    func regression(_ input: FuzzInput) throws {
        let url = Self.regressionsRoot.appendingPathComponent(input.target).appendingPathComponent(input.name)
        let bytes = [UInt8](try Data(contentsOf: url))
        try #require(!bytes.isEmpty)
        let body = try #require(FuzzBodies.targets[input.target], "no fuzz target named \(input.target)")
        FuzzProperty.replay(body, bytes, label: input.description)
    }

    /// Every body accepts the seeds derived for it from the fixtures (FLV files, RTP packets,
    /// server bytes, SDP, Y4M), and there are some for each target that needs them.
    @Test(arguments: ["flv_read", "rtp_depacketize", "rtmp_receive", "rtmp_serve", "y4m_parse", "sdp_parse", "ts_demux", "rtsp_response"])
    func derivedSeeds(_ target: String) throws {
        let body = try #require(FuzzBodies.targets[target])
        let streams = Fixture.allCases.map { $0.bytes() }
        let seeds = FuzzSeeds.make(target: target, streams: streams, maximumLength: 1 << 16)
        #expect(!seeds.isEmpty)
        for (i, seed) in seeds.enumerated() { FuzzProperty.replay(body, seed, label: "\(target) seed \(i)") }
    }

    /// The publisher seeds reach the server's ingest parser: the commands, then video events
    /// (a sequence header and frames) at both chunk sizes.
    @Test func publisherSeedsReachTheIngestParser() {
        let seeds = FuzzSeeds.rtmpPublisherSeeds(streams: Fixture.allCases.map { $0.bytes() })
        #expect(seeds.count == 4)
        for seed in seeds {
            let counts = FuzzBodies.rtmpServeCounts(seed)
            #expect(counts.messages >= 10 && counts.video >= 4, "\(counts) \(seed.count) bytes, config \(seed[0])")
        }
    }

    /// Every body accepts every fixture (the fuzzers' seeds) as is.
    @Test(arguments: FuzzBodies.targets.keys.sorted())
    func fixtures(_ target: String) throws {
        let body = try #require(FuzzBodies.targets[target])
        for fixture in Fixture.allCases { FuzzProperty.replay(body, fixture.bytes(), label: "\(target) \(fixture)") }
    }
}

/// One kept fuzz input.
struct FuzzInput: Sendable, CustomStringConvertible {
    var target: String
    var name: String
    var description: String { "\(target)/\(name)" }
}
