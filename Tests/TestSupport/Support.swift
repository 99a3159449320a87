import Foundation
import Glibc

/// Paths, temporary files and the one process runner of the tests.
public enum Support {
    /// The package root, found from this file's path.
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// This process's resident memory (`VmRSS` of `/proc/self/status`) in bytes, or nil.
    public static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kB = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") else { return nil }
        return kB * 1024
    }

    /// The full path of a program on PATH, or nil.
    public static func which(_ program: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return dirs.map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The built `h264` executable: next to the test bundle, else in `.build/debug`; nil when it
    /// is not built (tests that run it skip with a reason).
    public static let h264: String? = executable("h264")

    /// The built benchmark executable (`H264Benchmarks`), found as ``h264`` is.
    public static let benchmarks: String? = executable("H264Benchmarks")

    /// The package's executable `name`: next to the test bundle, else in `.build/debug`.
    private static func executable(_ name: String) -> String? {
        var candidates: [String] = []
        if let first = CommandLine.arguments.first {
            var dir = URL(fileURLWithPath: first)
            for _ in 0..<3 {  // the bundle, or an executable inside it
                dir.deleteLastPathComponent()
                candidates.append(dir.appendingPathComponent(name).path)
            }
        }
        candidates.append(root + "/.build/debug/" + name)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `gst-launch-1.0`, when it and every one of `elements` are installed (checked with
    /// `gst-inspect-1.0 --exists`); nil otherwise.
    /// Under CI a missing GStreamer or element records an issue and gives `gst-launch-1.0`
    /// anyway, so that the tests that need it fail instead of skipping (see ``Tool``).
    public static func gstLaunch(with elements: [String]) -> String? {
        var launch: String?
        if let found = which("gst-launch-1.0"), let inspect = which("gst-inspect-1.0"),
           elements.allSatisfy({ (try? run(inspect, ["--exists", $0]))?.succeeded ?? false }) {
            launch = found
        }
        let name = "GStreamer (gst-launch-1.0 with \(elements.joined(separator: ", ")))"
        return Tool.required(name, present: launch != nil) ? launch ?? "gst-launch-1.0" : nil
    }

    /// What a finished program did.
    public struct ProcessResult: Sendable {
        /// The exit status (or the signal number when ``signalled``).
        public var status: Int32
        /// Whether a signal ended it (a crash, or the runner's kill at the time limit).
        public var signalled: Bool
        /// Whether the runner killed it at its time limit.
        public var timedOut: Bool
        /// Its standard output.
        public var stdout: [UInt8]
        /// Its standard error.
        public var stderr: String

        /// Standard output as text.
        public var output: String { String(decoding: stdout, as: UTF8.self) }
        /// Exit status 0, no signal.
        public var succeeded: Bool { status == 0 && !signalled }
    }

    /// The error of a program that did not succeed, for ``ProcessResult/checked(_:)``.
    public struct ProcessFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs a program to its end: stdout and stderr go through temporary files, so a long
    /// output on either cannot block it. With a `timeout` (seconds), it is killed (SIGKILL) at
    /// the limit and the result says ``ProcessResult/timedOut``.
    ///
    /// - Parameters:
    ///   - program: a path, or a name looked up on PATH.
    ///   - keepOutput: false sends stdout to /dev/null (for a large output nobody reads).
    ///   - environment: variables set (or replaced) in the program's environment.
    /// - Throws: when the program cannot be started.
    @discardableResult
    public static func run(_ program: String, _ args: [String], timeout: Double? = nil,
                           keepOutput: Bool = true, environment: [String: String] = [:]) throws -> ProcessResult {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let outPath = dir + "/stdout", errPath = dir + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try path(of: program))
        p.arguments = args
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = keepOutput ? out : FileHandle.nullDevice
        p.standardError = err
        try p.run()
        let killed = wait(p, timeout: timeout)
        try? out.close()
        try? err.close()
        return ProcessResult(status: p.terminationStatus, signalled: p.terminationReason == .uncaughtSignal,
                             timedOut: killed, stdout: readFile(outPath),
                             stderr: String(decoding: readFile(errPath), as: UTF8.self))
    }

    /// Starts a program in the background (stdout and stderr to /dev/null unless given).
    public static func start(_ program: String, _ args: [String], stdout: Any? = nil) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try path(of: program))
        p.arguments = args
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = stdout ?? FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// The path of `program` (a path, or a name looked up on PATH).
    /// - Throws: ``ProcessFailure`` naming a program that is not installed (under `CI=true`, a
    ///   tool `.ci/run` installs: see ``Tool``).
    static func path(of program: String) throws -> String {
        if let found = which(program) { return found }
        if program.contains("/") && FileManager.default.isExecutableFile(atPath: program) { return program }
        throw ProcessFailure(description: "\(program) is not installed (not on PATH)"
                             + (Tool.isCI ? "; CI=true: .ci/run installs it, so the test fails instead of skipping" : ""))
    }

    /// Waits for a started program; with a `timeout` (seconds) kills it (SIGKILL) at the limit.
    /// - Returns: whether it was killed.
    @discardableResult
    public static func wait(_ p: Process, timeout: Double?) -> Bool {
        var killed = false
        if let timeout {
            let deadline = Date().addingTimeInterval(timeout)
            while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                killed = true
            }
        }
        // Also lets Foundation finish with the ended process: without it the Process object
        // (and its pipes) is never released, which LeakSanitizer reports.
        p.waitUntilExit()
        return killed
    }

    /// A file's bytes ([] when it cannot be read). An empty file is not handed to Foundation,
    /// whose file reading leaks its buffer for a 0-byte file (LeakSanitizer reports it).
    public static func readFile(_ path: String) -> [UInt8] {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size > 0, let data = FileManager.default.contents(atPath: path) else { return [] }
        return [UInt8](data)
    }

    /// A fresh temporary directory.
    public static func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "h264tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Writes bytes to a new file in a fresh temporary directory; returns its path.
    public static func temporaryFile(_ bytes: [UInt8], name: String) throws -> String {
        let path = try temporaryDirectory() + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

extension Support.ProcessResult {
    /// This result, or an error naming `what` with the end of stderr when the program failed.
    @discardableResult
    public func checked(_ what: String) throws -> Self {
        guard succeeded else {
            throw Support.ProcessFailure(description: "\(what): exit \(status)\(signalled ? " (signal)" : ""): \(stderr.suffix(2000))")
        }
        return self
    }
}
