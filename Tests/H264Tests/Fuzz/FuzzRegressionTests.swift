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

    /// (target, file name) for every kept input.
    static let regressions: [FuzzInput] = {
        var out: [FuzzInput] = []
        for target in FuzzBodies.targets.keys.sorted() {
            let dir = regressionsRoot.appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names.sorted() where !name.hasPrefix(".") {
                out.append(FuzzInput(target: target, name: name))
            }
        }
        return out
    }()

    @Test(arguments: regressions)
    func regression(_ input: FuzzInput) throws {
        let url = Self.regressionsRoot.appendingPathComponent(input.target).appendingPathComponent(input.name)
        let bytes = [UInt8](try Data(contentsOf: url))
        FuzzBodies.targets[input.target]?(bytes)
    }

    /// Every body accepts the seeds derived for it from the fixtures (FLV files, RTP packets,
    /// server bytes, SDP, Y4M), and there are some for each target that needs them.
    @Test(arguments: ["flv_read", "rtp_depacketize", "rtmp_receive", "y4m_parse", "sdp_parse"])
    func derivedSeeds(_ target: String) throws {
        let body = try #require(FuzzBodies.targets[target])
        let streams = Fixture.allCases.map { $0.bytes() }
        let seeds = FuzzSeeds.make(target: target, streams: streams, maximumLength: 1 << 16)
        #expect(!seeds.isEmpty)
        for seed in seeds { body(seed) }
    }

    /// Every body accepts every fixture (the fuzzers' seeds) as is.
    @Test(arguments: FuzzBodies.targets.keys.sorted())
    func fixtures(_ target: String) throws {
        let body = try #require(FuzzBodies.targets[target])
        for fixture in Fixture.allCases { body(fixture.bytes()) }
    }
}

/// One kept fuzz input.
struct FuzzInput: Sendable, CustomStringConvertible {
    var target: String
    var name: String
    var description: String { "\(target)/\(name)" }
}
