import Foundation
import Glibc
import H264
import Testing
import TestSupport

/// Each class of hostile input that once made the library use memory, time or output out of
/// proportion to the input (issue 12), at a size where the old code went past the bound by far,
/// run through the built `h264` in a child process with a memory limit (`ulimit -v`) and a
/// wall-clock limit: it must succeed, or fail with its one-line typed error, inside both.
@Suite(.enabled(if: CLIRobustnessTests.binary != nil, "the h264 executable is not built"))
struct ResourceLimitTests {
    /// The result of one limited run.
    struct Run {
        var status: Int32
        var killed: Bool
        var stderr: String
        var seconds: Double
    }

    /// Runs `h264 arguments` with at most `megabytes` of address space and `seconds` of wall
    /// clock (then SIGKILL); stdout goes to /dev/null.
    static func run(_ arguments: [String], megabytes: Int, seconds: Double) throws -> Run {
        let start = ContinuousClock.now
        let limit = "ulimit -v \(megabytes * 1024) && exec \"$0\" \"$@\""
        let r = try Support.run("/bin/sh", ["-c", limit, try #require(CLIRobustnessTests.binary)] + arguments,
                                timeout: seconds, keepOutput: false)
        let elapsed = start.duration(to: .now)
        return Run(status: r.status, killed: r.signalled, stderr: r.stderr,
                   seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    static func write(_ bytes: [UInt8], _ name: String, in dir: String) throws -> String {
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? -1
    }

    /// Checks a run: not killed (by a signal or the clock), the expected exit status.
    static func expectWithin(_ r: Run, status: Int32 = 0, _ what: String) {
        #expect(!r.killed, "\(what): killed after \(r.seconds) s (memory or time limit): \(r.stderr)")
        #expect(r.status == status, "\(what): exit \(r.status): \(r.stderr)")
        if status == 1 { #expect(r.stderr.split(separator: "\n").count == 1, "\(what): \(r.stderr)") }
    }

    /// `build-stream` kept the whole stream three times over (its access units, the joined
    /// stream, the file's bytes): 64 I pictures of 4096x4096 aborted at 2.4 GB. Now each access
    /// unit is written as it is built. 16 I_PCM pictures of 1024x1024 (25 MB): the old command
    /// needed more than 150 MB of address space, this one runs in 120 MB (about 90 MB is the
    /// binary's own).
    @Test func buildStreamWritesEachAccessUnitAsItIsBuilt() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/big.264"
        let script = (["I!"] + Array(repeating: "I", count: 15)).joined(separator: " ")
        Self.expectWithin(try Self.run(["build-stream", script, "--size", "1024x1024", "-o", out], megabytes: 120, seconds: 120),
                          "build-stream")
        #expect(Self.size(out) > 16 * 1024 * 1024 / 256 * 384, "\(Self.size(out)) bytes")
    }

    /// Class 1: a format change in every access unit. 20,000 of them (0.3 MB): the old batch
    /// `inspect` kept every parameter set in every format change (14 KB each: about 280 MB here,
    /// twice the limit with the binary's own 100 MB).
    @Test func formatChangesInBatchCommands() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.write(HostileInputs.formatChanges(count: 20_000), "changes.264", in: dir)
        Self.expectWithin(try Self.run(["inspect", input], megabytes: 160, seconds: 60), "inspect")
        Self.expectWithin(try Self.run(["convert", input, dir + "/out.flv"], megabytes: 160, seconds: 60), "convert to FLV")
    }

    /// Class 2, FLV to Annex-B: a 4 MB sequence header (31 SPS and 32 PPS of 65,535 bytes),
    /// 200 keyframes of 27 bytes. The old converter wrote the whole header before every
    /// keyframe: 830 MB. Now the parameter sets inserted are at most the input's bytes plus
    /// ParameterSetInserter.defaultMaximumBytesPerAccessUnit.
    @Test func flvSequenceHeaderIsNotRepeatedWithoutBound() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.write(try HostileInputs.flvWithHugeSequenceHeader(ppsCount: 32, keyframes: 200), "big.flv", in: dir)
        let out = dir + "/out.h264"
        Self.expectWithin(try Self.run(["convert", input, out], megabytes: 256, seconds: 60), "FLV to Annex-B")
        let bound = 2 * Self.size(input) + ParameterSetInserter.defaultMaximumBytesPerAccessUnit
        #expect(Self.size(out) > 0 && Self.size(out) <= bound, "\(Self.size(out)) bytes from \(Self.size(input))")
    }

    /// Class 2, avcC to Annex-B: 700 bytes of samples with a 4 MB record; the old converter
    /// wrote the whole record before each of the 100 IDR pictures (410 MB).
    @Test func avcCRecordIsNotRepeatedWithoutBound() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (samples, record) = try HostileInputs.avccWithHugeRecord(ppsCount: 32, samples: 100)
        let input = try Self.write(samples, "in.avcc", in: dir), config = try Self.write(record, "in.avcC", in: dir)
        let out = dir + "/out.h264"
        let r = try Self.run(["convert", input, out, "--to", "annexb", "--avcc-config", config], megabytes: 256, seconds: 60)
        Self.expectWithin(r, "avcC to Annex-B")
        let bound = 2 * (samples.count + record.count) + ParameterSetInserter.defaultMaximumBytesPerAccessUnit
        #expect(Self.size(out) > 0 && Self.size(out) <= bound, "\(Self.size(out)) bytes from \(samples.count + record.count)")
    }

    /// Class 2, Annex-B to FLV: 240 PPS of 64 KiB, then 10,000 tiny access units. The old
    /// converter rebuilt and compared a 15 MB record per access unit (479 s in a release build).
    @Test func flvConfigurationIsFollowedIncrementally() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.write(HostileInputs.annexBWithHugeParameterSets(ppsCount: 240, count: 10_000), "pps.264", in: dir)
        Self.expectWithin(try Self.run(["convert", input, dir + "/out.flv"], megabytes: 256, seconds: 60), "Annex-B to FLV")
    }

    /// Class 4: a 1.5 MiB user_data_unregistered SEI traced: the old tracer kept one element
    /// with a heap-allocated name per byte (about 250 MB here); now a run element, printed as it
    /// goes.
    @Test func longSEIPayloadTrace() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.write(try HostileInputs.bigUserDataSEI(size: 3 << 19), "sei.264", in: dir)
        Self.expectWithin(try Self.run(["trace", input], megabytes: 128, seconds: 60), "trace")
    }

    /// Class 7: 2 million NAL units with a bad header (8 MB): the old `inspect` kept every
    /// error (about 180 MB here); now the first 64 and a count.
    @Test func errorListsAreCapped() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.write(HostileInputs.invalidNALUnits(count: 2_000_000), "bad.264", in: dir)
        Self.expectWithin(try Self.run(["inspect", input], megabytes: 128, seconds: 60), status: 1, "inspect")
    }

    /// Class 8: 64 MiB without a start code. The old commands read and copied the whole file
    /// (128 MiB and more); now they read 1 MiB at a time and fail with the typed error.
    @Test func filesAreReadInChunks() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.write([UInt8](repeating: 0xFF, count: 64 << 20), "noise.264", in: dir)
        let r = try Self.run(["nals", input], megabytes: 128, seconds: 60)
        Self.expectWithin(r, status: 1, "nals")
        #expect(r.stderr.contains("missingStartCode"))
        Self.expectWithin(try Self.run(["edit", input, dir + "/out.264"], megabytes: 128, seconds: 60), "edit")
        #expect(Self.size(dir + "/out.264") == 64 << 20)
    }
}
