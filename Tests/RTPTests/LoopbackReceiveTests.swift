import Foundation
import Testing
import TestSupport

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
    func run(mtu: Int, decode: Bool, options: [String] = [], receiver: (_ sdp: String, _ output: String) -> (String, [String]))
        throws -> (reference: [Substring], received: [Substring])
    {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sdp = dir + "/x.sdp", output = dir + "/rx.out"
        let port = Ports.freeEvenPort()

        try Support.run(h264, ["rtp-send", stream, "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--dry-run"] + options).checked("rtp-send --dry-run")
        let (program, args) = receiver(sdp, output)
        let process = try Support.start(program, args)
        var waited = 0.0
        while !Ports.udpPortIsBound(port) && waited < 5 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 0.05
        }
        try Support.run(h264, ["rtp-send", stream, "--to", "127.0.0.1:\(port)", "--mtu", "\(mtu)", "--sdp", sdp + ".sent",
                               "--speed", "2"] + options, timeout: 30).checked("rtp-send")
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
    ///
    /// With `--webrtc` (the packetiser's WebRTC preset: SPS and PPS in one STAP-A with each IDR
    /// picture's timestamp, the marker bit once per access unit) and with packetization-mode 0
    /// (at MTU 8,000, which the stream's largest slice, 4,069 bytes, fits).
    @Test(.timeLimit(.minutes(5)), arguments: [(1200, []), (300, []), (1200, ["--webrtc"]), (8000, ["--packetization-mode", "0"])])
    func ffmpegReceivesRTPSend(mtu: Int, options: [String]) throws {
        let loopback = LoopbackReceive(h264: try #require(Support.h264))
        let (reference, received) = try loopback.run(mtu: mtu, decode: false, options: options) { sdp, output in
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
    /// wrote to the same frames as the file. Also with the WebRTC preset.
    @Test(.timeLimit(.minutes(5)), arguments: [[], ["--webrtc"]])
    func gstreamerReceivesRTPSend(options: [String]) throws {
        let gst = try #require(gstReceiver)
        let loopback = LoopbackReceive(h264: try #require(Support.h264))
        let (reference, received) = try loopback.run(mtu: 1200, decode: true, options: options) { sdp, output in
            (gst, ["-q", "filesrc", "location=\(sdp)", "!", "sdpdemux", "!", "rtph264depay", "!",
                   "h264parse", "!", "video/x-h264,stream-format=byte-stream", "!", "filesink", "location=\(output)"])
        }
        #expect(reference.count == 250)
        #expect(received == reference)
    }
}

@Suite struct RTPReceiveCommandTests {
    /// `h264 rtp-receive` started from the SDP FFmpeg writes, then FFmpeg's `-f rtp` sending:
    /// Annex-B (and MP4) output decodes to the source's frames; the report counts every frame
    /// and no loss; the receiver stops on its own after the idle timeout.
    @Test(.enabled(if: FFmpeg.isPresent && Support.h264 != nil, "needs ffmpeg (with libx264) and the built h264 tool"),
          .timeLimit(.minutes(5)), arguments: [("baseline", "out.264", true), ("bframes", "out.mp4", false)])
    func receivesFromAnSDP(stream: String, outputName: String, json: Bool) throws {
        let h264 = try #require(Support.h264)
        let path = try SenderStreams.path(stream)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sdp = dir + "/ffmpeg.sdp", output = dir + "/" + outputName
        let port = Ports.freeEvenPort()
        let ffmpeg = ["-nostdin", "-loglevel", "error", "-i", path, "-c", "copy", "-f", "rtp", "-payload_type", "96"]
        // The SDP first (one frame to a port nobody listens on yet).
        try Support.run("ffmpeg", ffmpeg + ["-frames:v", "1", "-sdp_file", sdp, "rtp://127.0.0.1:\(port)"]).checked("ffmpeg -sdp_file")
        let stdout = Pipe()
        let receiver = try Support.start(h264, ["rtp-receive", sdp, "-o", output, "--idle-timeout", "1", "--wait", "20"]
                                         + (json ? ["--json"] : []), stdout: stdout)
        var waited = 0.0
        while !Ports.udpPortIsBound(port) && waited < 10 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 0.05
        }
        try Support.run("ffmpeg", ["-readrate", "4"] + ffmpeg + ["rtp://127.0.0.1:\(port)?pkt_size=600"], timeout: 30).checked("ffmpeg -f rtp")
        #expect(!Support.wait(receiver, timeout: 15), "rtp-receive did not stop at the idle timeout")
        #expect(receiver.terminationStatus == 0)
        let report = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        if json {
            #expect(report.contains("\"access_units\":50,") && report.contains("\"packets_lost\":0,"), "\(report)")
            #expect(report.contains("\"stopped\":\"idle\""))
        } else {
            #expect(report.contains("access_units: 50\n") && report.contains("packets_lost: 0\n"), "\(report)")
            #expect(report.contains("incomplete_access_units: 0\n") && report.contains("stopped: idle"))
            #expect(report.contains("access_units_lost: 0\n") && report.contains("reference_losses: 0\n"), "\(report)")
        }
        #expect(try FFmpeg.frameMD5s(file: output) == SenderStreams.reference(path))
    }

    /// `h264 rtp-receive -o out.mp4` from the SDP, a stray packet of another SSRC first, then
    /// a sender that ends with an RTCP BYE (FFmpeg with `-rtpflags send_bye`, or `h264
    /// rtp-send`): the stray access unit is skipped and counted, the recording is the source's
    /// 50 frames, and the receiver stops because of the BYE (its idle timeout is 30 s away).
    @Test(.enabled(if: FFmpeg.isPresent && Support.h264 != nil, "needs ffmpeg (with libx264) and the built h264 tool"),
          .timeLimit(.minutes(5)), arguments: ["ffmpeg", "rtp-send"])
    func stopsAtByeAfterAStrayPacket(sender: String) throws {
        let h264 = try #require(Support.h264)
        let path = try SenderStreams.path("baseline")
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sdp = dir + "/in.sdp", output = dir + "/out.mp4"
        let port = Ports.freeEvenPort()
        let ffmpeg = ["-nostdin", "-loglevel", "error", "-i", path, "-c", "copy", "-f", "rtp", "-payload_type", "96"]
        if sender == "ffmpeg" {
            try Support.run("ffmpeg", ffmpeg + ["-frames:v", "1", "-sdp_file", sdp, "rtp://127.0.0.1:\(port)"]).checked("ffmpeg -sdp_file")
        } else {
            try Support.run(h264, ["rtp-send", path, "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--dry-run"]).checked("rtp-send --dry-run")
        }
        let stdout = Pipe()
        let receiver = try Support.start(h264, ["rtp-receive", sdp, "-o", output, "--idle-timeout", "30", "--wait", "20", "--json"],
                                         stdout: stdout)
        var waited = 0.0
        while !(Ports.udpPortIsBound(port) && Ports.udpPortIsBound(port + 1)) && waited < 10 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 0.05
        }
        try sendStrayPacket(to: port)
        if sender == "ffmpeg" {
            try Support.run("ffmpeg", ["-readrate", "4"] + ffmpeg + ["-rtpflags", "send_bye", "rtp://127.0.0.1:\(port)?pkt_size=1200"],
                            timeout: 30).checked("ffmpeg -f rtp")
        } else {
            try Support.run(h264, ["rtp-send", path, "--to", "127.0.0.1:\(port)", "--speed", "4", "--sdp", dir + "/sent.sdp"],
                            timeout: 30).checked("rtp-send")
        }
        #expect(!Support.wait(receiver, timeout: 10), "rtp-receive did not stop at the BYE")
        #expect(receiver.terminationStatus == 0)
        let report = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(report.contains("\"stopped\":\"bye\""), "\(report)")
        #expect(report.contains("\"access_units\":50,") && report.contains("\"access_units_skipped\":1,"), "\(report)")
        #expect(report.contains("\"source_changes\":1,") && report.contains("\"packets_lost\":0,"), "\(report)")
        #expect(try FFmpeg.frameMD5s(file: output) == SenderStreams.reference(path))
    }

    @Test(.enabled(if: Support.h264 != nil, "needs the built h264 tool"))
    func refusesWithoutAPortOrSDP() throws {
        let h264 = try #require(Support.h264)
        let r = try Support.run(h264, ["rtp-receive", "-o", "/dev/null"])
        #expect(r.status == 1 && r.stderr.contains("--port"))
    }
}
