import Foundation
import Testing
import TestSupport

/// `h264 check` and `h264 edit --for`: exit statuses, the JSON objects, and a fix re-checked.
@Suite struct CheckCommandTests {
    static var ready: Bool { CLIRobustnessTests.binary != nil }
    static let streams = CLIRobustnessTests.packageRoot.appendingPathComponent("Fixtures/Streams").path

    @Test(.enabled(if: ready, "needs the h264 executable"))
    func conformingStreamExitsZero() throws {
        let r = try CLIRobustnessTests.run(["check", "--profile", "webrtc", Self.streams + "/baseline-cavlc.264"])
        #expect(r.status == 0 && !r.signalled, "\(r.stderr)")
        #expect(r.output == "webrtc: conforms (8 access units, 8 rules)\n", "a conforming stream is one line, no blank line before it")
    }

    @Test(.enabled(if: ready, "needs the h264 executable"))
    func violationsAsJSONExitTwo() throws {
        let r = try CLIRobustnessTests.run(["check", "--profile", "webrtc", "--json", Self.streams + "/main-cabac-bframes.264"])
        #expect(r.status == 2 && !r.signalled, "\(r.stderr)")
        let objects = try r.output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let violations = objects.dropLast()
        #expect(violations.count >= 2)
        for v in violations {
            #expect(v["rule"] is String && v["access_unit"] is Int && v["message"] is String)
            #expect(v["clause"] is String && v["fix"] is String && v["remedy"] is String)
        }
        #expect(violations.contains { $0["rule"] as? String == "reordering.none" && $0["access_unit"] as? Int == 2 })
        let summary = try #require(objects.last?["summary"] as? [String: Any])
        #expect(summary["conforms"] as? Bool == false)
        #expect(summary["violations"] as? Int == violations.count)
    }

    @Test(.enabled(if: ready, "needs the h264 executable"))
    func rulesAreListedWithTheirClauses() throws {
        let r = try CLIRobustnessTests.run(["check", "--rules"])
        #expect(r.status == 0)
        for word in ["webrtc:", "rtmp:", "hls:", "rtsp:", "spec:", "parameter-sets.before-idr (RFC 6184 8.4", "level.limits (H.264 A.3.1"] {
            #expect(r.output.contains(word), "\(word)")
        }
    }

    @Test(.enabled(if: ready, "needs the h264 executable"))
    func errorsExitOne() throws {
        for args in [["check", "--profile", "dash", Self.streams + "/aud.264"],
                     ["check", Self.streams + "/aud.264"],
                     ["check", "--profile", "webrtc", "/nonexistent.264"],
                     ["check", "--profile", "webrtc", "--profile-level-id", "42e0", Self.streams + "/aud.264"],
                     ["edit", "--for", "webrtc", "-", "/dev/null"]] {
            let r = try CLIRobustnessTests.run(args)
            #expect(r.status == 1 && !r.signalled, "\(args): \(r.stderr)")
            #expect(r.stderr.hasPrefix("h264: "), "\(args)")
        }
    }

    /// `edit --for hls` inserts what HLS needs; the result passes `check --profile hls`.
    @Test(.enabled(if: ready, "needs the h264 executable"))
    func editForFixesWhatCheckFound() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = Self.streams + "/high-cavlc.264", out = dir + "/out.264"
        #expect(try CLIRobustnessTests.run(["check", "--profile", "hls", source]).status == 2)
        let edit = try CLIRobustnessTests.run(["edit", "--for", "hls", source, out])
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(edit.stderr.contains("fixed aud.every-access-unit"))
        let again = try CLIRobustnessTests.run(["check", "--profile", "hls", out])
        #expect(again.status == 0, "\(again.output)")
    }

    /// What cannot be fixed is named with the encoder setting, and the exit status says so.
    @Test(.enabled(if: ready, "needs the h264 executable"))
    func editForReportsWhatItCannotFix() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLIRobustnessTests.run(["edit", "--for", "webrtc", Self.streams + "/main-cabac-bframes.264", dir + "/out.264"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("cannot fix reordering.none") && r.stderr.contains("--bframes 0"))
    }

    /// Damaged streams (the robustness suite's inputs): 0, 1 or 2, never a signal.
    @Test(.enabled(if: ready, "needs the h264 executable"))
    func damagedInputs() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("h264-check-robust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        for input in try CLIRobustnessTests.inputs(in: dir) {
            for arguments in [["check", "--profile", "spec", input.path], ["check", "--profile", "webrtc", "--json", input.path],
                              ["edit", "--for", "hls", input.path, out], ["edit", "--for", "webrtc", input.path, out]] {
                let r = try CLIRobustnessTests.run(arguments)
                #expect(!r.signalled && [0, 1, 2].contains(r.status), "h264 \(arguments.joined(separator: " ")): \(r.status)")
            }
        }
    }

    /// 2 million NAL units with a bad header: the checker keeps the first 64 errors and a count,
    /// within 128 MB.
    @Test(.enabled(if: ready, "needs the h264 executable"))
    func errorsAreCappedInMemory() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try ResourceLimitTests.write(HostileInputs.invalidNALUnits(count: 2_000_000), "bad.264", in: dir)
        ResourceLimitTests.expectWithin(try ResourceLimitTests.run(["check", "--profile", "spec", input], megabytes: 128, seconds: 60),
                                        status: 1, "check")
    }
}
