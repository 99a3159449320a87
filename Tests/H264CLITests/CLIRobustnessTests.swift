import Foundation
import Testing
import TestSupport

/// `h264 nals|trace|inspect|convert|edit` on damaged input: exit status 0, or 1 with a
/// one-line error; never a signal. Runs the built binary (`h264` next to the test bundle).
@Suite struct CLIRobustnessTests {
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/H264CLITests/CLIRobustnessTests.swift
        return url
    }()

    /// The `h264` executable (``Support/h264``).
    static var binary: String? { Support.h264 }

    /// Damaged copies of a few fixtures, plus garbage, written to a temporary directory.
    static func inputs(in dir: URL) throws -> [URL] {
        let streams = packageRoot.appendingPathComponent("Fixtures/Streams")
        var out: [URL] = []
        var seed: UInt64 = 0x5EED
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return n <= 0 ? 0 : Int((seed >> 33) % UInt64(n))
        }
        func add(_ name: String, _ bytes: [UInt8]) throws {
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            out.append(url)
        }
        try add("empty.264", [])
        try add("start-codes.264", [0, 0, 1, 0, 0, 0, 1, 0, 0, 1])
        try add("garbage.264", (0..<4096).map { _ in UInt8(next(256)) })
        for name in ["main-cabac-bframes.264", "sei-hrd.264", "paff-fields.264", "resolution-change.264"] {
            let original = [UInt8](try Data(contentsOf: streams.appendingPathComponent(name)))
            for k in 0..<4 {
                var bytes = original
                for _ in 0..<(1 + next(16)) { bytes[next(bytes.count)] ^= UInt8(1) << UInt8(next(8)) }
                if k == 1 { bytes.removeLast(next(bytes.count)) }
                if k == 2 { bytes.insert(contentsOf: [0, 0, 1, 0x67, 0xFF, 0xFF], at: next(bytes.count)) }
                try add("\(name)-\(k).264", bytes)
            }
        }
        return out
    }

    /// Runs the `h264` executable to its end (at most five minutes).
    static func run(_ arguments: [String]) throws -> Support.ProcessResult {
        try Support.run(try #require(binary), arguments, timeout: 300)
    }

    @Test(.enabled(if: binary != nil, "the h264 executable is not built"))
    func damagedInputs() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("h264-cli-robust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path, config = dir.appendingPathComponent("config").path
        for input in try Self.inputs(in: dir) {
            let path = input.path
            let commands: [[String]] = [
                ["nals", path], ["nals", path, "--json", "--lenient"], ["trace", path], ["trace", path, "--lenient"],
                ["inspect", path], ["inspect", path, "--json", "--lenient"],
                ["convert", path, out, "--to", "avcc", "--avcc-config", config, "--lenient"],
                // The input read as AVCC, with the (possibly damaged) record of the last conversion
                // or the input itself as the record.
                ["convert", path, out, "--to", "annexb", "--avcc-config", FileManager.default.fileExists(atPath: config) ? config : path],
                ["edit", path, out], ["edit", path, out, "--aud", "insert", "--sar", "4:3", "--frame-rate", "30000/1001", "--level", "4.1"],
                ["edit", path, out, "--aud", "remove", "--crop", "0,2,0,2", "--full-range", "1"],
            ]
            for arguments in commands {
                let r = try Self.run(arguments)
                let (status, signalled, stderr) = (r.status, r.signalled, r.stderr)
                let line = "h264 \(arguments.joined(separator: " "))"
                #expect(!signalled, "\(line) was killed by a signal")
                #expect(status == 0 || status == 1, "\(line) exited with \(status)")
                if status == 1 {
                    let lines = stderr.split(separator: "\n", omittingEmptySubsequences: true)
                    #expect(lines.count == 1, "\(line) printed \(lines.count) error lines: \(stderr)")
                }
            }
        }
    }
}
