import Foundation
import Glibc
import H264
import MP4
import Testing
import TestSupport

/// SIGINT and SIGTERM end the long-running commands with their output finished (issue 27):
/// the built `h264` is started as a child process, signalled once it has produced output (or
/// read what was written to its input pipe), and must exit with status 0 within a bound, its
/// output complete under its name (MP4 with a `moov`, playlist with `EXT-X-ENDLIST`), nothing
/// left under a temporary name. Also when SIGINT was ignored by the process that started it
/// (a shell script's background job), and when its input is a pipe that stays open (a
/// blocked read must not outlive the signal).
@Suite(.enabled(if: CLIRobustnessTests.binary != nil, "the h264 executable is not built"))
struct InterruptionTests {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A child process started with `posix_spawn`: an empty signal mask and every signal's
    /// default action (test threads block signals, which a child would inherit), stdin from
    /// `stdin` (else /dev/null), stdout and stderr to files.
    final class Child {
        let pid: pid_t
        let stdoutPath: String
        let stderrPath: String
        private var reaped = false

        init(_ arguments: [String], stdin: Int32? = nil, in dir: String) throws {
            stdoutPath = dir + "/child-stdout"
            stderrPath = dir + "/child-stderr"
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigmask(&attributes, &empty)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            let argv = arguments.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let rc = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
            guard rc == 0 else { throw Failure(description: "posix_spawn \(arguments[0]): \(rc)") }
            self.pid = pid
        }

        deinit {
            guard !reaped else { return }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }

        /// How it ended: its exit status, or the signal that ended it; nil when it was still
        /// running after `seconds` (it is then killed).
        func wait(seconds: Double) -> (status: Int32?, signal: Int32?)? {
            let deadline = Date().addingTimeInterval(seconds)
            var status: Int32 = 0
            while true {
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid { break }
                if Date() >= deadline {
                    kill(pid, SIGKILL)
                    waitpid(pid, &status, 0)
                    reaped = true
                    return nil
                }
                usleep(20_000)
            }
            reaped = true
            let signal = status & 0x7F
            return signal == 0 ? ((status >> 8) & 0xFF, nil) : (nil, signal)
        }

        var stdout: String { String(decoding: Support.readFile(stdoutPath), as: UTF8.self) }
        var stderr: String { String(decoding: Support.readFile(stderrPath), as: UTF8.self) }
    }

    /// Waits (at most `seconds`) until `condition` holds.
    static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? -1
    }

    /// The files of `dir` whose name says they are an output being written.
    static func partialFiles(in dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.contains(".partial-") }
    }

    /// The bytes written to a pipe that its reader has not read yet.
    static func unread(_ fd: Int32) -> Int {
        var n: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &n) == 0 ? Int(n) : -1
    }

    /// Writes all of `bytes` to `fd` (blocking while the pipe is full).
    static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBytes { p in
            var done = 0
            while done < p.count {
                let n = Glibc.write(fd, p.baseAddress! + done, p.count - done)
                if n > 0 { done += n } else if errno != EINTR { return }
            }
        }
    }

    /// A pipe whose write end the test keeps open: the child's reads block on it.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { throw Failure(description: "pipe: \(errno)") }
        return (fds[0], fds[1])
    }

    static var binary: String { CLIRobustnessTests.binary ?? "h264" }

    /// An encoded stream with B-frames and a keyframe a second (`h264 encode`, x264).
    static func encodedStream(in dir: String, frames: Int) throws -> [UInt8] {
        let path = dir + "/source.h264"
        try Support.run(binary, ["encode", "-o", path, "--size", "160x96", "--frames", "\(frames)", "--preset", "ultrafast",
                                 "--bframes", "2", "--keyint", "30", "--threads", "1"]).checked("h264 encode")
        return Support.readFile(path)
    }

    /// The number of samples of the video track of an MP4 file (our reader).
    static func sampleCount(_ path: String) throws -> Int {
        let reader = try MP4Reader(try MP4File(readingAtPath: path))
        return try reader.sampleInfos(of: try #require(reader.videoTrack)).count
    }

    /// Frames FFmpeg decodes from a file, and what it reports on stderr.
    static func decoded(_ path: String) throws -> (count: Int, errors: String) {
        let r = try FFmpeg.ffmpeg(["-v", "error", "-i", path, "-f", "framecrc", "-"])
        return (r.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, r.stderr)
    }

    struct EncodeCase: Sendable, CustomTestStringConvertible {
        var signal: Int32
        var layout: String
        /// Started through `sh -c 'trap "" INT; exec ...'`: SIGINT inherited as ignored.
        var ignoredByParent: Bool
        var testDescription: String { "\(signal == SIGINT ? "SIGINT" : "SIGTERM") \(layout)\(ignoredByParent ? " (SIGINT ignored by the parent)" : "")" }
    }

    /// `h264 encode` of the test pattern (a million frames: it would run for hours), signalled
    /// once its output has grown: exit 0, the file under its name and playable, every frame
    /// in it decodable.
    @Test(arguments: [EncodeCase(signal: SIGINT, layout: "fast-start", ignoredByParent: false),
                      EncodeCase(signal: SIGTERM, layout: "fragmented", ignoredByParent: false),
                      EncodeCase(signal: SIGINT, layout: "fast-start", ignoredByParent: true)])
    func encodeFinishesItsOutput(_ c: EncodeCase) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out/enc.mp4"
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let command = [Self.binary, "encode", "-o", out, "--size", "160x96", "--frames", "1000000", "--preset", "ultrafast",
                       "--mp4-layout", c.layout, "--threads", "1"]
        let child = try Child(c.ignoredByParent ? ["/bin/sh", "-c", "trap '' INT; exec \"$0\" \"$@\""] + command : command, in: dir)
        let partial = dir + "/out/.enc.mp4.partial-\(child.pid)"
        let grew = Self.waitUntil(seconds: 60) { Self.size(partial) > 20_000 }
        try #require(grew, "no output after 60 s: \(child.stderr)")
        kill(child.pid, c.signal)
        let end = child.wait(seconds: 60)
        let stderr = child.stderr
        #expect(end?.status == 0, "ended \(String(describing: end)): \(stderr)")
        #expect(stderr.contains("stopped by \(c.signal == SIGINT ? "SIGINT" : "SIGTERM")"), "\(stderr)")
        #expect(Self.partialFiles(in: dir + "/out").isEmpty)
        let samples = try Self.sampleCount(out)
        #expect(samples > 0)
        #expect(try MP4Reader(try MP4File(readingAtPath: out)).isFragmented == (c.layout == "fragmented"))
        if FFmpeg.isPresent {
            let decoded = try Self.decoded(out)
            #expect(decoded.count == samples, "FFmpeg decodes \(decoded.count) frames of \(samples)")
            #expect(decoded.errors.isEmpty, "\(decoded.errors)")
        }
    }

    /// Y4M on a pipe that stays open: the command has read every byte written (800 whole
    /// frames) and waits for more when SIGTERM comes; the read gives up, every frame read is
    /// encoded and the file finished.
    @Test func encodeFromAnOpenPipeStopsAndKeepsEveryFrameRead() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (w, h, frames) = (64, 64, 800)  // 4.9 MB: more than one 4 MiB read
        var y4m = Array("YUV4MPEG2 W\(w) H\(h) F25:1 Ip A1:1 C420jpeg\n".utf8)
        for i in 0..<frames {
            y4m += Array("FRAME\n".utf8)
            y4m += (0..<(w * h * 3 / 2)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i &* 3) }
        }
        let pipe = try Self.pipe()
        defer { close(pipe.write) }
        let out = dir + "/y.mp4"
        let child = try Child([Self.binary, "encode", "-", "-o", out, "--preset", "ultrafast", "--threads", "1"],
                              stdin: pipe.read, in: dir)
        close(pipe.read)
        Self.writeAll(y4m, to: pipe.write)
        let consumed = Self.waitUntil(seconds: 60) { Self.unread(pipe.write) == 0 && Self.size(dir + "/.y.mp4.partial-\(child.pid)") > 0 }
        try #require(consumed, "the input was not read: \(child.stderr)")
        kill(child.pid, SIGTERM)
        let end = child.wait(seconds: 60)
        #expect(end?.status == 0, "ended \(String(describing: end)) (a read that does not give up hangs): \(child.stderr)")
        #expect(try Self.sampleCount(out) == frames)
        #expect(Self.partialFiles(in: dir).isEmpty)
    }

    /// The first half of an Annex-B stream on a pipe that stays open, then SIGINT: the MP4
    /// holds the access units of every NAL unit that ended before the last start code read
    /// (the one after it may go on), and decodes without an error.
    @Test func convertFromAnOpenPipeFinishesWithWholeNALUnits() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stream = try Self.encodedStream(in: dir, frames: 120)
        let prefix = Array(stream.prefix(stream.count / 2))
        // What a parser sees of the prefix when its last NAL unit may be incomplete.
        let lastStartCode = try #require((0..<(prefix.count - 3)).last { prefix[$0] == 0 && prefix[$0 + 1] == 0 && prefix[$0 + 2] == 1 })
        let (expected, _) = AccessUnits.assemble(annexB: prefix[..<lastStartCode])
        let pictures = expected.filter { !$0.flags.hasNoPicture }.count
        try #require(pictures > 10)

        let pipe = try Self.pipe()
        defer { close(pipe.write) }
        let out = dir + "/c.mp4"
        let child = try Child([Self.binary, "convert", "-", out], stdin: pipe.read, in: dir)
        close(pipe.read)
        Self.writeAll(prefix, to: pipe.write)
        try #require(Self.waitUntil(seconds: 30) { Self.unread(pipe.write) == 0 }, "the input was not read")
        kill(child.pid, SIGINT)
        let end = child.wait(seconds: 30)
        #expect(end?.status == 0, "ended \(String(describing: end)): \(child.stderr)")
        #expect(try Self.sampleCount(out) == pictures)
        #expect(Self.partialFiles(in: dir).isEmpty)
        if FFmpeg.isPresent {
            let decoded = try Self.decoded(out)
            #expect(decoded.count == pictures && decoded.errors.isEmpty, "\(decoded.count) frames: \(decoded.errors)")
        }
    }

    /// `h264 segment` from a pipe that stays open, then SIGTERM: the playlist is written with
    /// `EXT-X-ENDLIST`, every segment it lists is on disk, and FFmpeg plays it to the end.
    @Test func segmentFromAnOpenPipeEndsItsPlaylist() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stream = try Self.encodedStream(in: dir, frames: 150)
        let pipe = try Self.pipe()
        defer { close(pipe.write) }
        let segments = dir + "/hls"
        let child = try Child([Self.binary, "segment", "-", "-o", segments, "--duration", "1"], stdin: pipe.read, in: dir)
        close(pipe.read)
        Self.writeAll(stream, to: pipe.write)
        try #require(Self.waitUntil(seconds: 30) { Self.unread(pipe.write) == 0 }, "the input was not read")
        kill(child.pid, SIGTERM)
        let end = child.wait(seconds: 30)
        #expect(end?.status == 0, "ended \(String(describing: end)): \(child.stderr)")
        let playlist = String(decoding: Support.readFile(segments + "/index.m3u8"), as: UTF8.self)
        #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"), "\(playlist)")
        let listed = playlist.split(separator: "\n").filter { $0.hasSuffix(".m4s") }
        #expect(listed.count >= 3, "\(playlist)")
        for name in listed { #expect(Self.size(segments + "/" + name) > 0, "\(name)") }
        if FFmpeg.isPresent {
            let decoded = try Self.decoded(segments + "/index.m3u8")
            #expect(decoded.count == 149 && decoded.errors.isEmpty, "\(decoded.count) frames: \(decoded.errors)")
        }
    }

    /// `h264 rtp-receive` waiting for packets (no sender: nothing is sent anywhere), with
    /// SIGINT inherited as ignored: it stops at the signal, not at its 60 s idle timeout, and
    /// prints its report.
    @Test func rtpReceiveStopsAtTheSignal() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let child = try Child(["/bin/sh", "-c", "trap '' INT; exec \"$0\" \"$@\"", Self.binary, "rtp-receive", "--port", "0",
                               "--bind", "127.0.0.1", "--idle-timeout", "60", "-o", dir + "/r.h264"], in: dir)
        try #require(Self.waitUntil(seconds: 30) { child.stderr.contains("listening on") }, "\(child.stderr)")
        kill(child.pid, SIGINT)
        let end = child.wait(seconds: 10)
        #expect(end?.status == 0, "ended \(String(describing: end)): \(child.stderr)")
        #expect(child.stdout.contains("stopped: requested"), "\(child.stdout)")
    }
}
