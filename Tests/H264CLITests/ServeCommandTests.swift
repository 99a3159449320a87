import Foundation
import CommandLineSupport
import Glibc
@testable import H264CLI
import Testing
import TestSupport

/// `h264 serve` (issue 30): the built `h264` runs as a child process on a free loopback port;
/// FFmpeg publishes into it (H.264 with B-frames and AAC), plays from it, and a publisher with a
/// wrong key is refused; SIGTERM ends it with exit status 0 and every output finished: the FLV
/// recording holds the source's packets (ffprobe: type, size, key flag, DTS, PTS), the HLS
/// playlist ends with EXT-X-ENDLIST and holds every video frame, and the refused stream left
/// nothing.
@Suite(.enabled(if: CLIRobustnessTests.binary != nil, "the h264 executable is not built"))
struct ServeCommandTests {
    typealias Child = InterruptionTests.Child

    /// A 4 s FLV source: 320x240 H.264 at 25 fps, a keyframe a second, two B-frames, and AAC.
    static func source(in dir: String) throws -> String {
        let path = dir + "/source.flv"
        try FFmpeg.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
                           "-t", "4", "-c:v", "libx264", "-threads", "1", "-g", "25", "-bf", "2", "-c:a", "aac", "-shortest", "-y", path])
            .checked("ffmpeg source")
        return path
    }

    /// The packets ffprobe lists: `type,pts,dts,size,flags` per packet, sorted.
    static func packets(_ path: String) throws -> [String] {
        let r = try FFmpeg.ffprobe(["-v", "error", "-show_entries", "packet=codec_type,pts,dts,size,flags", "-of", "csv=p=0", path])
        return r.output.split(separator: "\n").map(String.init).sorted()
    }

    /// Starts `h264 serve` with `options` on a free port; returns it once it accepts.
    static func serve(_ options: [String], in dir: String) throws -> (Child, UInt16) {
        let port = try NginxServer.freePort()
        let child = try Child([InterruptionTests.binary, "serve", "--rtmp", "127.0.0.1:\(port)"] + options, in: dir)
        #expect(InterruptionTests.waitUntil(seconds: 10) { NginxServer.accepts(port) }, "h264 serve did not listen")
        return (child, port)
    }

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), .timeLimit(.minutes(5)))
    func recordsPackagesAndServesAPublishedStream() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.source(in: dir)
        let (server, port) = try Self.serve(["--key", "sekrit", "--record", dir + "/rec", "--hls", dir + "/hls"], in: dir)

        // A wrong key is refused: FFmpeg fails, and nothing of that stream is written.
        let refused = try FFmpeg.ffmpeg(["-i", source, "-c", "copy", "-f", "flv", "rtmp://127.0.0.1:\(port)/live/intruder?key=guess"],
                                        timeout: 30)
        #expect(refused.status != 0)
        // The right key: the stream name itself, published at real time while a player joins.
        let publisher = try Support.start("ffmpeg", ["-v", "error", "-re", "-i", source, "-c", "copy", "-f", "flv",
                                                                      "rtmp://127.0.0.1:\(port)/live/sekrit"])
        usleep(1_500_000)
        let played = dir + "/played.flv"
        let player = try FFmpeg.ffmpeg(["-i", "rtmp://127.0.0.1:\(port)/live/sekrit", "-c", "copy", "-f", "flv", "-y", played], timeout: 30)
        #expect(!Support.wait(publisher, timeout: 30), "the publisher did not end")
        #expect(publisher.terminationStatus == 0)
        #expect(player.status == 0, "\(player.stderr)")

        kill(server.pid, SIGTERM)
        let end = server.wait(seconds: 20)
        #expect(end?.status == 0, "\(server.stderr)")
        #expect(server.stderr.contains("refused publish live/intruder"))

        // The recording is the source, packet for packet (video and audio).
        let recording = dir + "/rec/live/sekrit.flv"
        let sourcePackets = try Self.packets(source)
        #expect(sourcePackets.filter { $0.hasPrefix("video") }.count == 100)
        #expect(sourcePackets.filter { $0.hasPrefix("audio") }.count > 100)
        #expect(try Self.packets(recording) == sourcePackets)
        // The player joined at a keyframe and got whole frames from there: each video frame it
        // got is one of the source's.
        let playedVideo = try Self.packets(played).filter { $0.hasPrefix("video") }
        #expect(playedVideo.count >= 25 && playedVideo.count < 100)
        // HLS: a finished playlist holding every video frame.
        let playlist = try String(contentsOfFile: dir + "/hls/live/sekrit/index.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXT-X-ENDLIST"))
        let hlsFrames = try FFmpeg.ffprobe(["-v", "error", "-count_packets", "-select_streams", "v", "-show_entries", "stream=nb_read_packets",
                                            "-of", "csv=p=0", dir + "/hls/live/sekrit/index.m3u8"])
        // (ffprobe lists the playlist's program, then its stream.)
        #expect(hlsFrames.output.split(separator: "\n").first == "100")
        // Nothing of the refused stream.
        #expect(!FileManager.default.fileExists(atPath: dir + "/rec/live/intruder.flv"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/hls/live/intruder"))
    }

    /// `--record-format mp4` without a key: any stream name is accepted and recorded as MP4 with
    /// every video frame; SIGINT finishes it as SIGTERM does.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), .timeLimit(.minutes(5)))
    func recordsMP4WithoutAKey() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.source(in: dir)
        let (server, port) = try Self.serve(["--record", dir + "/rec", "--record-format", "mp4"], in: dir)
        let publish = try FFmpeg.ffmpeg(["-i", source, "-c", "copy", "-f", "flv", "rtmp://127.0.0.1:\(port)/app/any-name"], timeout: 30)
        #expect(publish.status == 0, "\(publish.stderr)")
        // The publish's end is reported before the signal, so the file is complete whatever
        // the signal's timing.
        #expect(InterruptionTests.waitUntil(seconds: 10) { server.stderr.contains("app/any-name ended") })
        kill(server.pid, SIGINT)
        #expect(server.wait(seconds: 20)?.status == 0, "\(server.stderr)")
        let video = try Self.packets(source).filter { $0.hasPrefix("video") }
        let recorded = try FFmpeg.ffprobe(["-v", "error", "-count_packets", "-select_streams", "v", "-show_entries", "stream=nb_read_packets",
                                           "-of", "csv=p=0", dir + "/rec/app/any-name.mp4"])
        #expect(recorded.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(video.count)")
    }

    @Test func addressesAndNames() throws {
        #expect(try ServeCommand.hostAndPort("127.0.0.1:1935") == ("127.0.0.1", 1935))
        #expect(try ServeCommand.hostAndPort("[::1]:19350") == ("::1", 19350))
        #expect(try ServeCommand.hostAndPort(":1935") == ("0.0.0.0", 1935))
        for bad in ["127.0.0.1", "127.0.0.1:70000", "[::1]1935", "host:port"] {
            #expect(throws: CLIError.self) { try ServeCommand.hostAndPort(bad) }
        }
        // Names from the network become one safe path component.
        #expect(ServeCommand.safeName("cam-1_a.b") == "cam-1_a.b")
        #expect(ServeCommand.safeName("../../etc/passwd") == "_.._.._etc_passwd")
        #expect(ServeCommand.safeName("") == "_")
        #expect(ServeCommand.safeName("a/b c\u{e9}") == "a_b_c_")
        #expect(ServeCommand.safeName(String(repeating: "x", count: 500)).count == 200)
    }
}
