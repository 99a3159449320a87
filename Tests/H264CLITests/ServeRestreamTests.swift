import Foundation
import CommandLineSupport
import Glibc
@testable import H264CLI
import FLV
import MPEGTS
import RTMP
import Testing
import TestSupport

/// `h264 serve --restream` (issues 32 and 33): a second `h264 serve` (the library's RTMP server)
/// on 127.0.0.1 takes the restream and records it; ffprobe reads that recording. An RTMP publish
/// by FFmpeg (H.264 with B-frames, and AAC) arrives there whole, audio included; a UDP transport
/// stream arrives as its video; a restream to a port where nothing listens, or whose server is
/// killed and started again, is reported line by line and never stops the recording.
@Suite(.enabled(if: CLIRobustnessTests.binary != nil, "the h264 executable is not built"))
struct ServeRestreamTests {
    typealias Child = InterruptionTests.Child

    /// `h264 serve --rtmp 127.0.0.1:PORT` with `options`, its stderr in `dir` (one child per
    /// directory); returns it once it accepts.
    static func server(_ options: [String], in dir: String, port: UInt16? = nil) throws -> (Child, UInt16) {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let port = try port ?? NginxServer.freePort()
        let child = try Child([InterruptionTests.binary, "serve", "--rtmp", "127.0.0.1:\(port)"] + options, in: dir)
        #expect(InterruptionTests.waitUntil(seconds: 10) { NginxServer.accepts(port) }, "h264 serve did not listen")
        return (child, port)
    }

    /// A stream's packets as ffprobe lists them: `type,pts,dts,flags` each (no sizes: a
    /// restreamed keyframe carries its parameter sets in band), sorted.
    static func packets(_ path: String) throws -> [String] {
        let r = try FFmpeg.ffprobe(["-v", "error", "-show_entries", "packet=codec_type,pts,dts,flags", "-of", "csv=p=0", path])
            .checked("ffprobe")
        return r.output.split(separator: "\n").map(String.init).sorted()
    }

    /// Ends `child` with SIGTERM; true when it exited 0.
    static func stop(_ child: Child) -> Bool {
        kill(child.pid, SIGTERM)
        return child.wait(seconds: 20)?.status == 0
    }

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), .timeLimit(.minutes(3)))
    func rtmpPublishIsRestreamedWithItsAudio() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try ServeCommandTests.source(in: dir)
        let (second, secondPort) = try Self.server(["--record", dir + "/second"], in: dir + "/b")
        let (first, port) = try Self.server(["--record", dir + "/first", "--restream", "rtmp://127.0.0.1:\(secondPort)"], in: dir + "/a")
        let publish = try FFmpeg.ffmpeg(["-re", "-i", source, "-c", "copy", "-f", "flv", "rtmp://127.0.0.1:\(port)/live/cam"], timeout: 30)
        #expect(publish.status == 0, "\(publish.stderr)")
        let url = "rtmp://127.0.0.1:\(secondPort)/live/cam"
        #expect(InterruptionTests.waitUntil(seconds: 15) { first.stderr.contains("live/cam: restream to \(url) finished") }, "\(first.stderr)")
        #expect(InterruptionTests.waitUntil(seconds: 10) { second.stderr.contains("live/cam ended") }, "\(second.stderr)")
        #expect(Self.stop(first), "\(first.stderr)")
        #expect(Self.stop(second), "\(second.stderr)")
        #expect(first.stderr.contains("live/cam: restreaming to \(url)"))
        #expect(first.stderr.contains("finished: 100 frames"), "\(first.stderr)")

        // The second server's recording is the source: every video frame with its times and
        // key flag, every audio packet.
        let expected = try Self.packets(source)
        #expect(expected.filter { $0.hasPrefix("video") }.count == 100)
        #expect(expected.filter { $0.hasPrefix("video") && $0.hasSuffix("K_") }.count == 4)
        #expect(expected.filter { $0.hasPrefix("audio") }.count > 100)
        let restreamed = dir + "/second/live/cam.flv"
        #expect(try Self.packets(restreamed) == expected)
        #expect(try ServeSourcesTests.decodedFrames(restreamed) == 100)
        // The first server recorded it as well.
        #expect(try Self.packets(dir + "/first/live/cam.flv") == expected)
    }

    /// UDP: the transport stream's video goes on (its AAC does not); the stream is udp/PORT,
    /// sent to the URL's application: relay/PORT. SIGINT finishes the restream.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), .timeLimit(.minutes(3)))
    func udpStreamIsRestreamedAsVideo() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try ServeSourcesTests.source(in: dir)
        let (second, secondPort) = try Self.server(["--record", dir + "/second"], in: dir + "/b")
        let udpPort = Ports.freeEvenPort()
        try FileManager.default.createDirectory(atPath: dir + "/a", withIntermediateDirectories: true)
        let first = try ServeSourcesTests.serve(["--udp", "127.0.0.1:\(udpPort)", "--restream", "rtmp://127.0.0.1:\(secondPort)/relay/"],
                                                in: dir + "/a", until: "receiving MPEG-TS on udp://")
        try ServeSourcesTests.sendOverUDP(source, to: udpPort, pause: 500)
        #expect(InterruptionTests.waitUntil(seconds: 10) { first.stderr.contains("restreaming to rtmp://127.0.0.1:\(secondPort)/relay/\(udpPort)") },
                "\(first.stderr)")
        usleep(300_000)
        kill(first.pid, SIGINT)
        #expect(first.wait(seconds: 20)?.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("finished: 75 frames, 0 audio/data tags sent"), "\(first.stderr)")
        #expect(InterruptionTests.waitUntil(seconds: 10) { second.stderr.contains("relay/\(udpPort) ended") }, "\(second.stderr)")
        #expect(Self.stop(second), "\(second.stderr)")

        let expected = try ServeSourcesTests.packets(source)
        let restreamed = dir + "/second/relay/\(udpPort).flv"
        let got = try ServeSourcesTests.packets(restreamed)
        #expect(got.video.map { $0.suffix(1) } == expected.video.map { $0.suffix(1) } && got.video.count == 75)
        #expect(got.audio == 0 && expected.audio > 100)
        #expect(try ServeSourcesTests.decodedFrames(restreamed) == 75)
    }

    /// Nothing listens where the restream goes: it says so and retries, the publish is recorded
    /// whole, the stream's end says nothing was sent, and SIGTERM ends the server at once.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), .timeLimit(.minutes(2)))
    func unreachableRestreamLeavesTheRecording() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try ServeCommandTests.source(in: dir)
        let closed = try NginxServer.freePort()
        let (server, port) = try Self.server(["--record", dir + "/rec", "--restream", "rtmp://127.0.0.1:\(closed)/out"], in: dir + "/a")
        let publish = try FFmpeg.ffmpeg(["-i", source, "-c", "copy", "-f", "flv", "rtmp://127.0.0.1:\(port)/live/cam"], timeout: 30)
        #expect(publish.status == 0, "\(publish.stderr)")
        #expect(InterruptionTests.waitUntil(seconds: 10) { server.stderr.contains("live/cam ended") }, "\(server.stderr)")
        #expect(Self.stop(server), "\(server.stderr)")
        #expect(server.stderr.contains("live/cam: restream to rtmp://127.0.0.1:\(closed)/out/cam not connected"), "\(server.stderr)")
        #expect(server.stderr.contains("live/cam: restream retrying (attempt 2) in"), "\(server.stderr)")
        #expect(server.stderr.contains("never connected: nothing sent"), "\(server.stderr)")
        let recorded = try Self.packets(dir + "/rec/live/cam.flv")
        #expect(recorded == (try Self.packets(source)))
    }

    /// The second server is killed mid-stream and started again on its port: the restream is
    /// lost, retries, connects again (saying how many frames it dropped), and the second
    /// server's new recording starts at a keyframe and decodes; the first recording is whole.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), .timeLimit(.minutes(3)))
    func restreamReconnectsAfterItsServerRestarts() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/long.flv"
        try FFmpeg.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=sample_rate=44100", "-t", "10",
                           "-c:v", "libx264", "-threads", "1", "-g", "25", "-c:a", "aac", "-shortest", "-y", source]).checked("ffmpeg source")
        let (killed, secondPort) = try Self.server(["--record", dir + "/second"], in: dir + "/b")
        let (first, port) = try Self.server(["--record", dir + "/first", "--restream", "rtmp://127.0.0.1:\(secondPort)"], in: dir + "/a")
        let publisher = try Support.start("ffmpeg", ["-v", "error", "-re", "-i", source, "-c", "copy", "-f", "flv", "rtmp://127.0.0.1:\(port)/live/cam"])
        #expect(InterruptionTests.waitUntil(seconds: 10) { first.stderr.contains("restreaming to") }, "\(first.stderr)")
        usleep(2_500_000)
        kill(killed.pid, SIGKILL)
        _ = killed.wait(seconds: 5)
        #expect(InterruptionTests.waitUntil(seconds: 5) { first.stderr.contains("live/cam: restream lost:") }, "\(first.stderr)")
        usleep(1_000_000)
        let (second, _) = try Self.server(["--record", dir + "/second"], in: dir + "/b2", port: secondPort)
        #expect(InterruptionTests.waitUntil(seconds: 30) { first.stderr.contains("live/cam: restream connected again (attempt") }, "\(first.stderr)")
        #expect(!Support.wait(publisher, timeout: 30), "the publisher did not end")
        #expect(InterruptionTests.waitUntil(seconds: 15) { first.stderr.contains("1 reconnections") }, "\(first.stderr)")
        #expect(InterruptionTests.waitUntil(seconds: 10) { second.stderr.contains("live/cam ended") }, "\(second.stderr)")
        #expect(Self.stop(first), "\(first.stderr)")
        #expect(Self.stop(second), "\(second.stderr)")
        #expect(first.stderr.contains("live/cam: restream retrying (attempt 1) in"), "\(first.stderr)")

        // The first recording is whole; the second server's recording after its restart (a new
        // file beside the killed one's) starts at a keyframe and decodes, with audio.
        #expect(try Self.packets(dir + "/first/live/cam.flv") == (try Self.packets(source)))
        let resumed = dir + "/second/live/cam-1.flv"
        let video = try FFmpeg.ffprobe(["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", resumed])
            .checked("ffprobe").output.split(separator: "\n")
        #expect(video.first?.hasPrefix("K") == true && video.count >= 100, "\(video.count) frames")
        #expect(try ServeSourcesTests.decodedFrames(resumed) == video.count)
        #expect(try Self.packets(resumed).contains { $0.hasPrefix("audio") })
    }

    /// What waits while the first connection is made: everything up to the bounds; past them
    /// only the latest metadata and AAC sequence header, then what comes after.
    @Test func pendingEventsAreBounded() throws {
        var pending: [RestreamOutput.Item] = []
        var bytes = 0
        let audioHeader = FLVTag(type: .audio, timestamp: 0, body: [0xAF, 0x00, 0x12, 0x10][...])
        let audio = FLVTag(type: .audio, timestamp: 0, body: [0xAF, 0x01] + [UInt8](repeating: 0x21, count: 100)[...])
        RestreamOutput.hold(.event(.metadata(FLVMetadata(width: 16))), in: &pending, bytes: &bytes)
        RestreamOutput.hold(.event(.tag(audioHeader, time: 0)), in: &pending, bytes: &bytes)
        RestreamOutput.hold(.event(.metadata(FLVMetadata(width: 32))), in: &pending, bytes: &bytes)
        for i in 0..<(RestreamOutput.maximumPendingEvents - 3) {
            RestreamOutput.hold(.event(.tag(audio, time: Int64(i))), in: &pending, bytes: &bytes)
        }
        #expect(pending.count == RestreamOutput.maximumPendingEvents)
        #expect(bytes == 64 * 2 + 4 + (RestreamOutput.maximumPendingEvents - 3) * 102)
        RestreamOutput.hold(.event(.tag(audio, time: 1000)), in: &pending, bytes: &bytes)
        #expect(pending.count == 2 && bytes == 64 + 4)
        let kinds = pending.map { item -> String in
            switch item {
            case .event(.metadata(let m)) where m == FLVMetadata(width: 32): "the latest metadata"
            case .event(let e) where e.isAudioSequenceHeader: "the AAC header"
            default: "another"
            }
        }
        #expect(kinds == ["the latest metadata", "the AAC header"])
        // The byte bound: an access unit that fills it is held, one byte more is not.
        func accessUnit(_ size: Int) -> RestreamOutput.Item {
            .event(.video(RTMPReceivedAccessUnit(nalUnits: [], data: [UInt8](repeating: 0, count: size)[...], isKeyframe: false,
                                                 compositionTime: 0, timestamps: nil)))
        }
        RestreamOutput.hold(accessUnit(RestreamOutput.maximumPendingBytes - bytes), in: &pending, bytes: &bytes)
        #expect(pending.count == 3 && bytes == RestreamOutput.maximumPendingBytes)
        RestreamOutput.hold(.event(.tag(audio, time: 1001)), in: &pending, bytes: &bytes)
        #expect(pending.count == 2 && bytes == 64 + 4)
        RestreamOutput.hold(accessUnit(RestreamOutput.maximumPendingBytes), in: &pending, bytes: &bytes)
        #expect(pending.count == 2 && bytes == 64 + 4)
    }

    @Test func restreamURLs() throws {
        let live = LiveStreams()
        #expect(try RestreamTarget("rtmp://127.0.0.1:1936", live: live).url(app: "live", name: "cam") == "rtmp://127.0.0.1:1936/live/cam")
        #expect(try RestreamTarget("rtmp://cdn.example/app2/", live: live).url(app: "live", name: "cam") == "rtmp://cdn.example/app2/cam")
        #expect(try RestreamTarget("rtmp://[::1]:1936/a/b", live: live).url(app: "udp", name: "5000") == "rtmp://[::1]:1936/a/b/5000")
        for bad in ["http://x/app", "rtmp://x/app?key=1", "rtmp:///app", "rtmp://x:0"] {
            #expect(throws: CLIError.self) { try RestreamTarget(bad, live: live) }
        }
        #expect(RestreamOutput.describe(.retrying(attempt: 3, after: .milliseconds(1500))) == "retrying (attempt 3) in 1.5 s")
        #expect(RestreamOutput.describe(.connected(attempt: 2, framesDropped: 7)) == "connected again (attempt 2), 7 frames dropped")
    }
}
