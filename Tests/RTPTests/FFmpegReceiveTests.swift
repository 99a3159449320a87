import Foundation
import Testing

/// External programs the end-to-end test drives.
enum Tools {
    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
    static let ffmpeg = which("ffmpeg")
    /// The `h264` tool built next to the tests.
    static let h264: String? = {
        let candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/h264",
                          Corpus.packageRoot + "/.build/debug/h264"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs a program to the end (at most `timeout` seconds), returning its standard output.
    @discardableResult
    static func run(_ path: String, _ args: [String], timeout: Double = 20) throws -> [UInt8] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        try wait(p, timeout: timeout)
        return [UInt8](data)
    }

    static func wait(_ p: Process, timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if p.isRunning {
            p.terminate()
            p.waitUntilExit()
            throw CocoaError(.userCancelled)
        }
    }

    /// True when a UDP socket is bound to `port` (Linux `/proc/net/udp`).
    static func udpPortIsBound(_ port: Int) -> Bool {
        let hex = String(port, radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            if let text = try? String(contentsOfFile: table, encoding: .utf8), text.contains(":\(padded) ") { return true }
        }
        return false
    }

    /// An even port with it and the next one (RTCP) free.
    static func freeEvenPort() -> Int {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let port = Int.random(in: 20_000..<30_000, using: &rng) * 2
            if !udpPortIsBound(port) && !udpPortIsBound(port + 1) { return port }
        }
        return 50_000
    }

    /// The MD5 column of FFmpeg's framemd5 output.
    static func frameMD5s(_ output: [UInt8]) -> [Substring] {
        String(decoding: output, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces)[...] } }
    }
}

@Suite(.enabled(if: Tools.ffmpeg != nil && Tools.h264 != nil && Corpus.available,
                "needs ffmpeg, the built h264 tool and ../shared/corpus"))
struct FFmpegReceiveTests {
    /// `h264 rtp-send` over loopback at MTU 1200 to FFmpeg's RTP receiver: the decoded frames
    /// equal those of the file itself (framemd5).
    @Test(.timeLimit(.minutes(1)))
    func ffmpegReceivesRTPSend() throws {
        let ffmpeg = try #require(Tools.ffmpeg), h264 = try #require(Tools.h264)
        let stream = Corpus.root + "/cros-codecs/test-25fps.h264"
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rtp-ffmpeg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let sdp = dir.appendingPathComponent("x.sdp").path, received = dir.appendingPathComponent("rx.md5").path
        let port = Tools.freeEvenPort()

        try Tools.run(h264, ["rtp-send", stream, "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--dry-run"])
        // Decode-order timestamps (until the access-unit layer gives PTS): keep every frame.
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: ffmpeg)
        receiver.arguments = ["-nostdin", "-loglevel", "error", "-protocol_whitelist", "file,udp,rtp", "-listen_timeout", "2",
                              "-i", sdp, "-fps_mode", "passthrough", "-f", "framemd5", "-y", received]
        receiver.standardError = FileHandle.nullDevice
        try receiver.run()
        var waited = 0.0
        while !Tools.udpPortIsBound(port) && waited < 5 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 0.05
        }
        try Tools.run(h264, ["rtp-send", stream, "--to", "127.0.0.1:\(port)", "--mtu", "1200", "--sdp", sdp + ".sent",
                             "--speed", "8"])
        try Tools.wait(receiver, timeout: 15)

        let reference = Tools.frameMD5s(try Tools.run(ffmpeg, ["-nostdin", "-loglevel", "error", "-i", stream,
                                                               "-fps_mode", "passthrough", "-f", "framemd5", "-"]))
        let got = Tools.frameMD5s([UInt8](try Data(contentsOf: URL(fileURLWithPath: received))))
        #expect(reference.count == 250)
        #expect(got == reference)
    }
}
