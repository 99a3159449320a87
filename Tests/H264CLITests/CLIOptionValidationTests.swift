import Foundation
import Testing
import TestSupport

/// Every numeric or rate option of every command, given malformed values: exit status 1 and a
/// one-line message, never a signal (`h264 inspect FILE --fps /` used to trap). Runs the built
/// binary, as ``CLIRobustnessTests`` does.
@Suite struct CLIOptionValidationTests {
    /// Values no numeric or rate option accepts: empty, a lone separator, words, negative,
    /// a zero denominator, beyond 64 bits, beyond any sensible range, not a number.
    static let malformed = ["/", "", "abc", "-1", "1/0", "99999999999999999999", "1e300", "nan"]

    /// (command line before the option, option) for every numeric or rate option; `IN` and
    /// `OUT` stand for an input stream and an output path.
    static let options: [(prefix: [String], option: String)] = {
        var list: [(prefix: [String], option: String)] = []
        list.append((["inspect", "IN"], "--fps"))
        list.append((["convert", "IN", "OUT.flv"], "--fps"))
        list.append((["convert", "IN", "OUT.mp4"], "--fps"))
        for o in ["--duration", "--fps"] {
            list.append((["segment", "IN", "-o", "OUT-segments"], o))
        }
        list.append((["convert", "IN", "OUT.avcc", "--to", "avcc", "--avcc-config", "OUT.cfg"], "--length-size"))
        for o in ["--sar", "--frame-rate", "--color-primaries", "--transfer", "--matrix", "--full-range", "--level", "--crop"] {
            list.append((["edit", "IN", "OUT.264"], o))
        }
        for o in ["--mtu", "--fps", "--speed", "--payload-type", "--to"] {
            list.append((["rtp-send", "IN", "--dry-run", "--sdp", "OUT.sdp"] + (o == "--to" ? [] : ["--to", "127.0.0.1:5004"]), o))
        }
        for o in ["--size", "--profile", "--level", "--poc-type", "--fps", "--sar", "--colour", "--reorder", "--slices", "--avcc"] {
            list.append((["build-stream", "I", "-o", "OUT.264"], o))
        }
        for o in ["--fps", "--size", "--frames", "--qp", "--crf", "--keyint", "--keyint-seconds", "--bframes", "--bitrate",
                  "--max-rate", "--threads", "--slice-max-size", "--length-size", "--rtmp-queue", "--force-keyframes",
                  "--vbv-maxrate", "--vbv-bufsize", "--vbv-init", "--max-rate-window", "--quality", "--qpmin", "--qpmax",
                  "--change-bitrate", "--ref", "--max-delay", "--rc-lookahead", "--sar", "--colorprim", "--transfer",
                  "--colormatrix"] {
            list.append((["encode", "-o", "OUT.264", "--frames", "2", "--size", "64x64", "--preset", "ultrafast"], o))
        }
        return list
    }()

    @Test(.enabled(if: CLIRobustnessTests.binary != nil, "the h264 executable is not built"),
          arguments: options.indices)
    func malformedValuesAreRejected(_ index: Int) throws {
        let (prefix, option) = Self.options[index]
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("h264-cli-options-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = CLIRobustnessTests.packageRoot.appendingPathComponent("Fixtures/Streams/baseline-cavlc.264").path
        let args = prefix.map { $0 == "IN" ? input : $0.hasPrefix("OUT") ? dir.appendingPathComponent($0).path : $0 }
        for value in Self.malformed where !(option == "--force-keyframes" && value.isEmpty) {  // "" is an empty list there
            let line = "h264 \((args + [option, value]).joined(separator: " "))"
            let r = try CLIRobustnessTests.run(args + [option, value])
            let (status, signalled, stderr) = (r.status, r.signalled, r.stderr)
            #expect(!signalled, "\(line) was killed by a signal")
            #expect(status == 1, "\(line) exited with \(status)")
            let lines = stderr.split(separator: "\n", omittingEmptySubsequences: true)
            #expect(lines.count == 1 && lines[0].hasPrefix("h264: "), "\(line) printed: \(stderr)")
        }
    }
}
