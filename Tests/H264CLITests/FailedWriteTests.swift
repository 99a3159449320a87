import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TestSupport

/// A write that fails is an error the command reports (exit status 1, the file, the bytes
/// written before and the system's reason), never a silent loss: stdout and output files on a
/// full device (`/dev/full`: every write fails with ENOSPC).
@Suite(.enabled(if: CLIRobustnessTests.binary != nil && access("/dev/full", W_OK) == 0,
                "needs the h264 executable and a writable /dev/full"))
struct FailedWriteTests {
    static let stream = CLIRobustnessTests.packageRoot.appendingPathComponent("Fixtures/Streams/main-cabac-bframes.264").path
    static let noSpace = String(cString: strerror(ENOSPC))

    /// Runs `h264 ARGS > stdoutPath` through the shell.
    static func run(_ args: [String], stdout stdoutPath: String) throws -> Support.ProcessResult {
        let binary = try #require(CLIRobustnessTests.binary)
        return try Support.run("/bin/sh", ["-c", "exec \"$@\" > \(stdoutPath)", "sh", binary] + args, timeout: 120)
    }

    @Test func stdoutOnAFullDeviceIsAnError() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The same command succeeds into a file: the failure below is the device's.
        let ok = try Self.run(["nals", Self.stream], stdout: dir + "/nals.txt")
        #expect(ok.status == 0 && !ok.signalled)
        let lines = Support.readFile(dir + "/nals.txt")
        #expect(!lines.isEmpty && lines.count < 1 << 16, "one buffer of output: only the last flush writes")

        let full = try Self.run(["nals", Self.stream], stdout: "/dev/full")
        #expect(full.status == 1 && !full.signalled)
        #expect(full.stderr.contains("cannot write 'stdout' after 0 bytes: \(Self.noSpace)"), "\(full.stderr)")
    }

    /// More than one buffer of lines: the first flush, while the command runs, fails; the
    /// command goes on without output and reports it when it ends.
    @Test func aFailedIntermediateFlushIsReportedAtTheEnd() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let one = Support.readFile(Self.stream)
        try #require(!one.isEmpty)
        let long = dir + "/long.264"
        try Data(Array([[UInt8]](repeating: one, count: 200).joined())).write(to: URL(fileURLWithPath: long))
        let ok = try Self.run(["nals", long, "--json"], stdout: dir + "/nals.json")
        #expect(ok.status == 0)
        #expect(Support.readFile(dir + "/nals.json").count > 1 << 17, "at least two buffers of output")

        let full = try Self.run(["nals", long, "--json"], stdout: "/dev/full")
        #expect(full.status == 1 && !full.signalled)
        #expect(full.stderr.contains("cannot write 'stdout' after 0 bytes: \(Self.noSpace)"), "\(full.stderr)")
        #expect(full.stderr.components(separatedBy: "cannot write").count == 2, "reported once: \(full.stderr)")
    }

    @Test func anOutputFileOnAFullDeviceIsAnError() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.run(["convert", Self.stream, "/dev/full", "--to", "avcc", "--avcc-config", dir + "/config"],
                             stdout: "/dev/null")
        #expect(r.status == 1 && !r.signalled)
        #expect(r.stderr.contains("cannot write '/dev/full' after 0 bytes: \(Self.noSpace)"), "\(r.stderr)")
    }
}
