import Foundation
import Testing
import TestSupport

/// `h264 inspect FILE` holds its lines until the presentation delay is known; past a cap it
/// goes on counting and prints the rest in a second pass. Both paths must print the same bytes.
/// The cap is set small through `H264_INSPECT_MAXIMUM_HELD_BYTES` so that fixtures reach the
/// second pass.
@Suite struct InspectHeldLinesTests {
    static let variable = "H264_INSPECT_MAXIMUM_HELD_BYTES"

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: Support.root + "/Fixtures/Streams/" + name)))
    }

    /// Streams with B-frames (a presentation delay above 0, so the PTS of the two passes
    /// differ before the delay is added), fields, POC type 1, a resolution change, leading
    /// garbage; and all of them in one file (a few hundred access units, several SPS).
    static func streams(in dir: String) throws -> [String] {
        let names = ["main-cabac-bframes.264", "high-bpyramid.264", "paff-pb.264", "poc-type1.264",
                     "open-gop.264", "resolution-change.264", "leading-garbage.264"]
        var paths: [String] = []
        var all: [UInt8] = []
        for name in names {
            let bytes = try fixture(name)
            if name != "leading-garbage.264" { all += bytes }
            let path = dir + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let path = dir + "/all.264"
        try Data(all).write(to: URL(fileURLWithPath: path))
        paths.append(path)
        return paths
    }

    @Test(.enabled(if: Support.h264 != nil, "needs the built h264 tool"))
    func secondPassPrintsTheSameBytes() throws {
        let h264 = try #require(Support.h264)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var secondPasses = 0
        for path in try Self.streams(in: dir) {
            for options in [["--json"], [], ["--json", "--lenient"], ["--fps", "30000/1001"]] {
                let arguments = ["inspect", path] + options
                let onePass = try Support.run(h264, arguments, timeout: 120)
                #expect(!onePass.signalled && !onePass.stderr.contains("second pass"), "\(arguments)")
                for cap in [0, 200, 1_000, 4_000] {
                    let capped = try Support.run(h264, arguments, timeout: 120, environment: [Self.variable: String(cap)])
                    let notes = capped.stderr.split(separator: "\n").filter { $0.contains("a second pass prints") }
                    secondPasses += notes.count
                    let stderr = capped.stderr.split(separator: "\n", omittingEmptySubsequences: false)
                        .filter { !$0.contains("a second pass prints") }.joined(separator: "\n")
                    #expect(capped.stdout == onePass.stdout, "\(arguments), cap \(cap): stdout differs")
                    #expect(stderr == onePass.stderr, "\(arguments), cap \(cap): stderr differs")
                    #expect(capped.status == onePass.status && !capped.signalled, "\(arguments), cap \(cap)")
                    if onePass.succeeded && cap == 0 {
                        // Every stream here has more than one access unit: a cap of 0 holds one line.
                        #expect(notes.count == 1, "\(arguments), cap 0: no second pass")
                    }
                }
            }
        }
        #expect(secondPasses >= 30)
    }

    @Test(.enabled(if: Support.h264 != nil, "needs the built h264 tool"))
    func aCapThatIsNotANumberIsAnError() throws {
        let path = Support.root + "/Fixtures/Streams/main-cabac-bframes.264"
        let run = try Support.run(try #require(Support.h264), ["inspect", path], timeout: 60, environment: [Self.variable: "lots"])
        #expect(run.status == 1)
        #expect(run.stderr.contains(Self.variable))
        #expect(run.stdout.isEmpty)
    }
}
