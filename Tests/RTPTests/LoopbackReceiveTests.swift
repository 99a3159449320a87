import Foundation
import Testing
import TestSupport

/// Ports for the end-to-end tests.
enum Ports {
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
}

/// Sends a corpus stream with `h264 rtp-send` over loopback to a receiver started first from the
/// SDP, and compares the frames FFmpeg decodes from what was received with those of the file.
struct LoopbackReceive {
    let h264: String
    let stream = Corpus.path("cros-codecs/test-25fps.h264")

    /// - Parameter receiver: the receiver's program and arguments, given the SDP path and the
    ///   path where it writes what it received.
    /// - Returns: the frame MD5s of the file and of what the receiver wrote (decoded by FFmpeg
    ///   when `decode` is true; FFmpeg framemd5 output otherwise).
    ///   The receivers stop at the RTCP BYE that `rtp-send` sends at the end.
    func run(mtu: Int, decode: Bool, receiver: (_ sdp: String, _ output: String) -> (String, [String]))
        throws -> (reference: [Substring], received: [Substring])
    {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sdp = dir + "/x.sdp", output = dir + "/rx.out"
        let port = Ports.freeEvenPort()

        try Support.run(h264, ["rtp-send", stream, "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--dry-run"]).checked("rtp-send --dry-run")
        let (program, args) = receiver(sdp, output)
        let process = try Support.start(program, args)
        var waited = 0.0
        while !Ports.udpPortIsBound(port) && waited < 5 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 0.05
        }
        try Support.run(h264, ["rtp-send", stream, "--to", "127.0.0.1:\(port)", "--mtu", "\(mtu)", "--sdp", sdp + ".sent",
                               "--speed", "8"], timeout: 20).checked("rtp-send")
        let killed = Support.wait(process, timeout: 15)
        #expect(!killed, "the receiver did not stop at the RTCP BYE")

        // Decode-order timestamps (until the access-unit layer gives PTS): keep every frame.
        let reference = try FFmpeg.frameMD5s(file: stream)
        let received = decode ? try FFmpeg.frameMD5s(file: output) : FFmpeg.frameMD5s(output: String(decoding: Support.readFile(output), as: UTF8.self))
        return (reference, received)
    }
}

@Suite(.enabled(if: FFmpeg.isPresent && Support.h264 != nil && Corpus.isPresent,
                "needs ffmpeg, the built h264 tool and ../shared/corpus"))
struct FFmpegReceiveTests {
    /// `h264 rtp-send` over loopback to FFmpeg's RTP receiver: the decoded frames equal those of
    /// the file itself (framemd5), at MTU 1200 and with FU-A on most slices at MTU 300.
    @Test(.timeLimit(.minutes(1)), arguments: [1200, 300])
    func ffmpegReceivesRTPSend(mtu: Int) throws {
        let loopback = LoopbackReceive(h264: try #require(Support.h264))
        let (reference, received) = try loopback.run(mtu: mtu, decode: false) { sdp, output in
            ("ffmpeg", ["-nostdin", "-loglevel", "error", "-protocol_whitelist", "file,udp,rtp", "-listen_timeout", "5",
                        "-i", sdp, "-fps_mode", "passthrough", "-f", "framemd5", "-y", output])
        }
        #expect(reference.count == 250)
        #expect(received == reference)
    }
}

/// `gst-launch-1.0` with the elements the receiving pipeline needs.
let gstReceiver = Support.gstLaunch(with: ["sdpdemux", "rtph264depay", "h264parse"])

@Suite(.enabled(if: gstReceiver != nil && FFmpeg.isPresent && Support.h264 != nil && Corpus.isPresent,
                "needs GStreamer (gst-launch-1.0 with sdpdemux, rtph264depay, h264parse), ffmpeg, the h264 tool and ../shared/corpus"))
struct GStreamerReceiveTests {
    /// GStreamer's `sdpdemux ! rtph264depay` receives from the SDP; FFmpeg decodes what it
    /// wrote to the same frames as the file.
    @Test(.timeLimit(.minutes(1)))
    func gstreamerReceivesRTPSend() throws {
        let gst = try #require(gstReceiver)
        let loopback = LoopbackReceive(h264: try #require(Support.h264))
        let (reference, received) = try loopback.run(mtu: 1200, decode: true) { sdp, output in
            (gst, ["-q", "filesrc", "location=\(sdp)", "!", "sdpdemux", "!", "rtph264depay", "!",
                   "h264parse", "!", "video/x-h264,stream-format=byte-stream", "!", "filesink", "location=\(output)"])
        }
        #expect(reference.count == 250)
        #expect(received == reference)
    }
}
