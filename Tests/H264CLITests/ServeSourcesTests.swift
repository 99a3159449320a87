import Foundation
import CommandLineSupport
import Glibc
@testable import H264CLI
import MPEGTS
import SRT
import Testing
import TestSupport

/// `h264 serve` with the sources other than RTMP (issues 31 and 32): a transport stream with
/// H.264 (B-frames) and AAC over SRT with a passphrase and a key, over UDP on 127.0.0.1, and an
/// RTSP pull from GStreamer's RTSP server, each recorded and packaged as HLS; ffprobe checks
/// the frames, the key flags and the times against the source, FFmpeg decodes the recordings.
@Suite(.enabled(if: CLIRobustnessTests.binary != nil, "the h264 executable is not built"))
struct ServeSourcesTests {
    typealias Child = InterruptionTests.Child

    /// The transport stream file `path` sent to 127.0.0.1:`port`, 7 packets a datagram, with
    /// `pause` microseconds between datagrams (a loopback receiver's buffer is not a sender's pace).
    static func sendOverUDP(_ path: String, to port: Int, pause: UInt32) throws {
        let socket = try TSUDPSocket(sendingTo: "127.0.0.1", port: port)
        let bytes = Support.readFile(path)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + 7 * 188, bytes.count)
            try socket.send(bytes[offset..<end])
            offset = end
            usleep(pause)
        }
    }

    /// A 3 s transport stream: 320x240 H.264 at 25 fps, a keyframe a second, two B-frames, and AAC.
    static func source(in dir: String) throws -> String {
        let path = dir + "/source.ts"
        try FFmpeg.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                           "-t", "3", "-c:v", "libx264", "-threads", "1", "-g", "25", "-bf", "2", "-c:a", "aac", "-shortest",
                           "-f", "mpegts", "-y", path]).checked("ffmpeg source")
        return path
    }

    /// A stream's video packets as `pts,dts,key` with the times from its first DTS, and how many
    /// audio packets it has.
    static func packets(_ path: String) throws -> (video: [String], audio: Int) {
        let r = try FFmpeg.ffprobe(["-v", "error", "-show_entries", "packet=codec_type,pts,dts,flags", "-of", "csv=p=0", path])
            .checked("ffprobe")
        var video: [(Int, Int, Bool)] = []
        var audio = 0
        for line in r.output.split(separator: "\n") {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if f.first == "audio" { audio += 1 }
            guard f.first == "video", f.count >= 4, let pts = Int(f[1]), let dts = Int(f[2]) else { continue }
            video.append((pts, dts, f[3].hasPrefix("K")))
        }
        let base = video.first?.1 ?? 0
        return (video.map { "\($0.0 - base),\($0.1 - base),\($0.2 ? "K" : "_")" }, audio)
    }

    /// FFmpeg decodes every frame of `path` without an error line; the frame count.
    static func decodedFrames(_ path: String) throws -> Int {
        let r = try FFmpeg.ffprobe(["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
                                    "-of", "csv=p=0", path]).checked("ffprobe -count_frames")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        return Int(r.output.split(separator: "\n").first.map(String.init) ?? "") ?? -1
    }

    /// The frames of an HLS playlist (ffprobe lists the playlist's program, then its stream).
    static func hlsFrames(_ playlist: String) throws -> Int {
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        #expect(text.contains("#EXT-X-ENDLIST"))
        let r = try FFmpeg.ffprobe(["-v", "error", "-count_packets", "-select_streams", "v", "-show_entries", "stream=nb_read_packets",
                                    "-of", "csv=p=0", playlist])
        return Int(r.output.split(separator: "\n").first.map(String.init) ?? "") ?? -1
    }

    static func serve(_ options: [String], in dir: String, until text: String) throws -> Child {
        let child = try Child([InterruptionTests.binary, "serve"] + options, in: dir)
        #expect(InterruptionTests.waitUntil(seconds: 10) { child.stderr.contains(text) }, "h264 serve did not start: \(child.stderr)")
        return child
    }

    /// SRT with a passphrase and a key: a caller whose stream id names live/cam1 and carries the
    /// key is recorded as TS with its audio and packaged as HLS; a caller without the key is
    /// refused at the handshake (code 1403) and leaves nothing. The same server takes an RTMP
    /// publish too: its TS recording holds the video, the audio counted as not recorded.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), .timeLimit(.minutes(5)))
    func srtCallerIsRecordedAsTSWithItsAudioAndPackaged() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.source(in: dir)
        let port = Ports.freeEvenPort()
        let rtmpPort = try NginxServer.freePort()
        let passphrase = "serve-srt-secret"
        let server = try Self.serve(["--srt", "127.0.0.1:\(port)", "--rtmp", "127.0.0.1:\(rtmpPort)", "--key", "k3y", "--passphrase", passphrase,
                                     "--record", dir + "/rec", "--record-format", "ts", "--hls", dir + "/hls"], in: dir, until: "listening on srt://")
        let publish = try FFmpeg.ffmpeg(["-i", source, "-c", "copy", "-f", "flv", "rtmp://127.0.0.1:\(rtmpPort)/live/r1?key=k3y"], timeout: 30)
        #expect(publish.status == 0, "\(publish.stderr)")

        var refused = SRTOptions(streamID: "live/intruder", passphrase: passphrase)
        refused.latency = .milliseconds(40)
        #expect(throws: SRTError.self) { _ = try SRTSocket.connect(to: "127.0.0.1", port: port, options: refused) }

        var options = SRTOptions(streamID: "#!::r=live/cam1,m=publish,key=k3y", passphrase: passphrase)
        options.latency = .milliseconds(40)
        let caller = try SRTSocket.connect(to: "127.0.0.1", port: port, options: options)
        let bytes = Support.readFile(source)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + SRTOptions.transportStreamPayloadSize, bytes.count)
            try caller.send(bytes[offset..<end], timeout: .seconds(5))
            offset = end
            usleep(500)  // about 20 Mbit/s: within the receiver's buffer
        }
        try caller.finish(timeout: .seconds(5))
        caller.close()
        #expect(InterruptionTests.waitUntil(seconds: 15) { server.stderr.contains("live/cam1 ended") }, "\(server.stderr)")
        kill(server.pid, SIGTERM)
        #expect(server.wait(seconds: 20)?.status == 0, "\(server.stderr)")
        #expect(server.stderr.contains("refused SRT caller live/intruder"))
        #expect(InterruptionTests.waitUntil(seconds: 1) { server.stderr.contains("live/r1 ended") })
        #expect(server.stderr.contains("audio/data messages not recorded"), "\(server.stderr)")

        let expected = try Self.packets(source)
        #expect(expected.video.count == 75)
        #expect(expected.video.filter { $0.hasSuffix("K") }.count == 3)
        let recording = dir + "/rec/live/cam1.ts"
        let recorded = try Self.packets(recording)
        #expect(recorded.video == expected.video)
        #expect(recorded.audio == expected.audio && recorded.audio > 100)
        #expect(try Self.decodedFrames(recording) == 75)
        #expect(try Self.hlsFrames(dir + "/hls/live/cam1/index.m3u8") == 75)
        // The RTMP publish: every video frame with its key flag, in TS.
        let published = try Self.packets(dir + "/rec/live/r1.ts")
        #expect(published.video.map { $0.suffix(1) } == expected.video.map { $0.suffix(1) } && published.audio == 0)
        #expect(try Self.decodedFrames(dir + "/rec/live/r1.ts") == 75)
        #expect(!FileManager.default.fileExists(atPath: dir + "/rec/live/intruder.ts"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/hls/live/intruder"))
    }

    /// UDP on 127.0.0.1: the datagrams of the stream (seven packets each, as fast as they go)
    /// are recorded as MP4 (the video; the audio counted as not recorded) and packaged; the
    /// stream is named udp/PORT, and the stop takes what the socket held.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), .timeLimit(.minutes(5)))
    func udpStreamIsRecordedAsMP4AndPackaged() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.source(in: dir)
        let port = Ports.freeEvenPort()
        let server = try Self.serve(["--udp", "127.0.0.1:\(port)", "--record", dir + "/rec", "--record-format", "mp4",
                                     "--hls", dir + "/hls", "--hls-window", "0"], in: dir, until: "receiving MPEG-TS on udp://")
        try Self.sendOverUDP(source, to: port, pause: 200)
        #expect(InterruptionTests.waitUntil(seconds: 10) { server.stderr.contains("first datagram") })
        kill(server.pid, SIGINT)
        #expect(server.wait(seconds: 20)?.status == 0, "\(server.stderr)")
        #expect(server.stderr.contains("udp/\(port) ended (server stopped): 75 access units"), "\(server.stderr)")
        #expect(server.stderr.contains("audio/data messages not recorded"))

        let expected = try Self.packets(source)
        let recording = dir + "/rec/udp/\(port).mp4"
        let recorded = try Self.packets(recording)
        // MP4 times are the track's (from the first DTS, B-frames' composition offsets kept).
        #expect(recorded.video.map { $0.split(separator: ",")[2] } == expected.video.map { $0.split(separator: ",")[2] })
        #expect(recorded.video.count == 75 && recorded.audio == 0)
        #expect(try Self.decodedFrames(recording) == 75)
        #expect(try Self.hlsFrames(dir + "/hls/udp/\(port)/index.m3u8") == 75)
    }

    /// `--udp @GROUP:PORT --interface lo` inside a network namespace the test creates (`unshare
    /// -n`: its own loopback with a route for 224.0.0.0/4), never on a real interface: the
    /// server joins 239.255.31.3, `ts-send` sends to it, every access unit is recorded.
    @Test(.enabled(if: TSTestSupportCLI.namespaceWorks, "needs unshare -n (root) with ip"), .timeLimit(.minutes(5)))
    func udpMulticastInANetworkNamespace() throws {
        let h264 = InterruptionTests.binary
        let (source, count) = try TSTransportCommandTests.fixtureFile()
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = """
        ip link set lo up && ip route add 224.0.0.0/4 dev lo && \
        ('\(h264)' serve --udp @239.255.31.3:5604 --interface lo --record '\(dir)/rec' --record-format ts & \
         sleep 0.5; '\(h264)' ts-send '\(source)' udp://239.255.31.3:5604 --interface lo --speed 10; sleep 0.3; kill -INT $!; wait $!)
        """
        let r = try Support.run("unshare", ["-n", "sh", "-c", script], timeout: 30)
        #expect(r.succeeded, "\(r.stderr)")
        #expect(r.stderr.contains("udp/5604 ended (server stopped): \(count) access units"), "\(r.stderr)")
        var parser = TSParser()
        parser.append(Support.readFile(dir + "/rec/udp/5604.ts")[...])
        parser.finish()
        var units = 0
        while let event = parser.next() { if case .accessUnit = event { units += 1 } }
        #expect(units == count)
    }

    /// RTSP: a pull from GStreamer's RTSP server is recorded as TS and packaged; a second pull
    /// from a port where nothing listens is reported and does not stop the first; with pulls
    /// alone, the server exits once they have ended (the source sends BYE at its end).
    @Test(.enabled(if: FFmpeg.isPresent && GStreamerRTSPServer.isAvailable && RTSPServedStream.files != nil,
                   "needs FFmpeg and GStreamer's RTSP server for Python"), .timeLimit(.minutes(5)))
    func rtspPullIsRecordedAndAFailedPullIsReported() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rtsp = try GStreamerRTSPServer(file: try #require(RTSPServedStream.mp4))
        defer { rtsp.stop() }
        let closed = Ports.freeEvenPort()
        let server = try Child([InterruptionTests.binary, "serve", "--rtsp", rtsp.url(), "--rtsp", "rtsp://127.0.0.1:\(closed)/cam/main",
                                "--record", dir + "/rec", "--record-format", "ts", "--hls", dir + "/hls"], in: dir)
        #expect(server.wait(seconds: 60)?.status == 0, "\(server.stderr)")
        #expect(server.stderr.contains("rtsp://127.0.0.1:\(closed)/cam/main: pull failed"), "\(server.stderr)")
        #expect(server.stderr.contains("rtsp/test ended (bye): \(RTSPServedStream.frames) access units"), "\(server.stderr)")

        let recording = dir + "/rec/rtsp/test.ts"
        let recorded = try Self.packets(recording)
        #expect(recorded.video.count == RTSPServedStream.frames)
        #expect(recorded.video.filter { $0.hasSuffix("K") }.count == 2)  // the source's keyframes: 0 and 30
        #expect(try Self.decodedFrames(recording) == RTSPServedStream.frames)
        #expect(try Self.hlsFrames(dir + "/hls/rtsp/test/index.m3u8") == RTSPServedStream.frames)
        #expect(!FileManager.default.fileExists(atPath: dir + "/rec/cam"))
    }

    @Test func sourcesAndNames() throws {
        // Stream names from SRT stream ids and RTSP paths.
        #expect(ServeSources.streamPath("live/cam1", defaultApp: "srt") == ("live", "cam1"))
        #expect(ServeSources.streamPath("/live/cam/1", defaultApp: "rtsp") == ("live", "cam_1"))
        #expect(ServeSources.streamPath("cam1", defaultApp: "srt") == ("srt", "cam1"))
        #expect(ServeSources.streamPath("", defaultApp: "srt") == ("srt", "stream"))
        #expect(ServeSources.streamPath("../..", defaultApp: "srt") == ("_..", "_.."))
        // --udp as ts-receive reads udp://.
        #expect(try ServeCommand.udpEndpoint("127.0.0.1:5000") == ("127.0.0.1", 5000, nil))
        #expect(try ServeCommand.udpEndpoint(":5000") == ("0.0.0.0", 5000, nil))
        #expect(try ServeCommand.udpEndpoint("@239.1.1.1:5000") == ("0.0.0.0", 5000, "239.1.1.1"))
        #expect(throws: CLIError.self) { _ = try ServeCommand.udpEndpoint("127.0.0.1") }
        // One source per name; RTMP publishes share theirs (the RTMP server refuses a second publisher).
        let live = LiveStreams()
        #expect(live.claim("live/a", by: .other))
        #expect(!live.claim("live/a", by: .other))
        #expect(!live.claim("live/a", by: .rtmp))
        live.release("live/a")
        #expect(live.claim("live/a", by: .rtmp) && live.claim("live/a", by: .rtmp))
        #expect(!live.claim("live/a", by: .other) && !live.isHeldByOtherSource("live/a"))
        live.release("live/a")
        live.release("live/a")
        #expect(live.claim("live/b", by: .other) && live.isHeldByOtherSource("live/b"))
        #expect(!live.isLive("live/a"))
    }

    /// Option errors: no source, a bad format, options of a source not given.
    @Test func optionErrors() throws {
        let h264 = try #require(Support.h264)
        for (arguments, message) in [([String](), "give at least one source"), (["--udp", "127.0.0.1:1", "--record-format", "avi"], "not flv, mp4 or ts"),
                                     (["--udp", "127.0.0.1:1", "--passphrase", "0123456789"], "--passphrase is for --srt"),
                                     (["--rtsp", "http://x/y"], "--rtsp: not an rtsp:// URL")] {
            let r = try Support.run(h264, ["serve"] + arguments, timeout: 10)
            #expect(!r.succeeded && r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
    }
}
