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
    /// `gst-launch-1.0`, when the SDP demuxer plugin is installed too.
    static let gstLaunch: String? = {
        guard let launch = which("gst-launch-1.0"), let inspect = which("gst-inspect-1.0") else { return nil }
        let ok = ["sdpdemux", "rtph264depay", "h264parse"].allSatisfy { element in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: inspect)
            p.arguments = ["--exists", element]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            guard (try? p.run()) != nil else { return false }
            p.waitUntilExit()
            return p.terminationStatus == 0
        }
        return ok ? launch : nil
    }()
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
        // Let Foundation finish with the ended process: without this the Process object (and its
        // pipes) is never released, which LeakSanitizer reports.
        p.waitUntilExit()
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

/// Sends a corpus stream with `h264 rtp-send` over loopback to a receiver started first from the
/// SDP, and compares the frames FFmpeg decodes from what was received with those of the file.
struct LoopbackReceive {
    let ffmpeg: String, h264: String
    let stream = Corpus.root + "/cros-codecs/test-25fps.h264"

    /// - Parameter receiver: the receiver's program and arguments, given the SDP path and the
    ///   path where it writes what it received.
    /// - Returns: the frame MD5s of the file and of what the receiver wrote (decoded by FFmpeg
    ///   when `decode` is true; FFmpeg framemd5 output otherwise).
    ///   The receivers stop at the RTCP BYE that `rtp-send` sends at the end.
    func run(mtu: Int, decode: Bool, receiver: (_ sdp: String, _ output: String) -> (String, [String]))
        throws -> (reference: [Substring], received: [Substring])
    {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rtp-rx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let sdp = dir.appendingPathComponent("x.sdp").path, output = dir.appendingPathComponent("rx.out").path
        let port = Tools.freeEvenPort()

        try Tools.run(h264, ["rtp-send", stream, "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--dry-run"])
        let (program, args) = receiver(sdp, output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = args
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var waited = 0.0
        while !Tools.udpPortIsBound(port) && waited < 5 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 0.05
        }
        try Tools.run(h264, ["rtp-send", stream, "--to", "127.0.0.1:\(port)", "--mtu", "\(mtu)", "--sdp", sdp + ".sent",
                             "--speed", "8"])
        try Tools.wait(process, timeout: 15)

        // Decode-order timestamps (until the access-unit layer gives PTS): keep every frame.
        let md5 = ["-fps_mode", "passthrough", "-f", "framemd5", "-"]
        let reference = Tools.frameMD5s(try Tools.run(ffmpeg, ["-nostdin", "-loglevel", "error", "-i", stream] + md5))
        let received = decode
            ? Tools.frameMD5s(try Tools.run(ffmpeg, ["-nostdin", "-loglevel", "error", "-i", output] + md5))
            : Tools.frameMD5s([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))))
        return (reference, received)
    }
}

@Suite(.enabled(if: Tools.ffmpeg != nil && Tools.h264 != nil && Corpus.available,
                "needs ffmpeg, the built h264 tool and ../shared/corpus"))
struct FFmpegReceiveTests {
    /// `h264 rtp-send` over loopback to FFmpeg's RTP receiver: the decoded frames equal those of
    /// the file itself (framemd5), at MTU 1200 and with FU-A on most slices at MTU 300.
    @Test(.timeLimit(.minutes(1)), arguments: [1200, 300])
    func ffmpegReceivesRTPSend(mtu: Int) throws {
        let ffmpeg = try #require(Tools.ffmpeg)
        let loopback = LoopbackReceive(ffmpeg: ffmpeg, h264: try #require(Tools.h264))
        let (reference, received) = try loopback.run(mtu: mtu, decode: false) { sdp, output in
            (ffmpeg, ["-nostdin", "-loglevel", "error", "-protocol_whitelist", "file,udp,rtp", "-listen_timeout", "5",
                      "-i", sdp, "-fps_mode", "passthrough", "-f", "framemd5", "-y", output])
        }
        #expect(reference.count == 250)
        #expect(received == reference)
    }
}

@Suite(.enabled(if: Tools.gstLaunch != nil && Tools.ffmpeg != nil && Tools.h264 != nil && Corpus.available,
                "needs GStreamer (gst-launch-1.0 with sdpdemux, rtph264depay, h264parse), ffmpeg, the h264 tool and ../shared/corpus"))
struct GStreamerReceiveTests {
    /// GStreamer's `sdpdemux ! rtph264depay` receives from the SDP; FFmpeg decodes what it
    /// wrote to the same frames as the file.
    @Test(.timeLimit(.minutes(1)))
    func gstreamerReceivesRTPSend() throws {
        let gst = try #require(Tools.gstLaunch)
        let loopback = LoopbackReceive(ffmpeg: try #require(Tools.ffmpeg), h264: try #require(Tools.h264))
        let (reference, received) = try loopback.run(mtu: 1200, decode: true) { sdp, output in
            (gst, ["-q", "filesrc", "location=\(sdp)", "!", "sdpdemux", "!", "rtph264depay", "!",
                   "h264parse", "!", "video/x-h264,stream-format=byte-stream", "!", "filesink", "location=\(output)"])
        }
        #expect(reference.count == 250)
        #expect(received == reference)
    }
}
