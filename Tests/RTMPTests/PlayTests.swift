import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import FLV
import H264
import MediaSupport
import TestSupport
@testable import RTMP

/// Players out of `RTMPServer` on a loopback port while a stream is published into it: FFmpeg
/// and GStreamer's `rtmpsrc` joining mid-stream get every frame from the keyframe they joined
/// at, decodable from the first; the sequence header comes first; a player that never reads
/// is dropped without slowing the publisher or the other player.
@Suite(.serialized) struct PlayTests {
    /// Options that allow every publish, with a short idle timeout (the deadline of each send
    /// to a player) and small player queues.
    static func options() -> RTMPServer.Options {
        var options = RTMPServer.Options(handshakeTimeout: .seconds(5), idleTimeout: .seconds(2),
                                         playerQueueBytes: 1 << 20)
        options.authorize = { _ in .allow }
        return options
    }

    /// Takes every publish of `server` and its events until the server closes, so that no
    /// publisher waits for a consumer; counts the access units of each publish.
    static func drainPublishes(_ server: RTMPServer) -> Task<[Int], any Error> {
        Task {
            var counts: [Int] = []
            for try await ingest in server.publishedStreams {
                var count = 0
                do {
                    for try await event in ingest { if case .video = event { count += 1 } }
                } catch {}
                counts.append(count)
            }
            return counts
        }
    }

    /// Waits (bounded) until `server` has a stream published.
    static func waitForPublishing(_ server: RTMPServer) throws {
        let deadline = Deadline.after(.seconds(15))
        while server.statistics.publishing == 0 && !deadline.hasPassed { Thread.sleep(forTimeInterval: 0.02) }
        try #require(server.statistics.publishing == 1, "nothing was published")
    }

    /// A program run to its end on another thread.
    final class Background: Sendable {
        private let result = ThreadLock<Result<Support.ProcessResult, any Error>?>(nil)

        init(_ program: String, _ args: [String], timeout: Double) {
            let result = self.result
            Thread.detachNewThread {
                let r = Result { try Support.run(program, args, timeout: timeout) }
                result.withLock { $0 = r }
            }
        }

        /// The result, once the program has ended (bounded by its own timeout plus a margin).
        func wait() throws -> Support.ProcessResult {
            let deadline = Deadline.after(.seconds(90))
            while result.withLock({ $0 == nil }) && !deadline.hasPassed { Thread.sleep(forTimeInterval: 0.05) }
            return try #require(result.withLock { $0 }).get()
        }
    }

    /// One packet as ffprobe lists it.
    struct Packet: Hashable, CustomStringConvertible {
        var video: Bool
        var pts: Int64
        var dts: Int64
        var size: Int
        var key: Bool
        var description: String { "\(video ? "v" : "a") dts \(dts) pts \(pts) \(size) B\(key ? " K" : "")" }
    }

    static func packets(_ path: String) throws -> [Packet] {
        let r = try FFmpeg.ffprobe(["-v", "error", "-show_entries", "packet=codec_type,pts,dts,size,flags", "-of", "csv=p=0", path])
            .checked("ffprobe \(path)")
        return r.output.split(separator: "\n").map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return Packet(video: f[0] == "video", pts: Int64(f[1]) ?? -1, dts: Int64(f[2]) ?? -1, size: Int(f[3]) ?? -1,
                          key: f.count > 4 && f[4].hasPrefix("K"))
        }
    }

    /// Checks that `received` is `source` from a video keyframe to the end: the same video
    /// packets (DTS, PTS, size, key flag) with nothing missing, and audio packets from the
    /// source too, in order. Returns the index of the joined keyframe among the source's video
    /// packets.
    @discardableResult
    static func checkJoinedSuffix(received: [Packet], source: [Packet], comparesSizes: Bool = true) -> Int? {
        func strip(_ p: Packet) -> Packet { comparesSizes ? p : Packet(video: p.video, pts: p.pts, dts: p.dts, size: 0, key: p.key) }
        let sourceVideo = source.filter(\.video).map(strip), receivedVideo = received.filter(\.video).map(strip)
        guard let first = receivedVideo.first else {
            Issue.record("no video received")
            return nil
        }
        #expect(first.key, "the first frame is not a keyframe: \(first)")
        guard let join = sourceVideo.firstIndex(of: first) else {
            Issue.record("the first frame is not one of the source's: \(first)")
            return nil
        }
        #expect(join > 0, "joined mid-stream, not at the start")
        #expect(receivedVideo == Array(sourceVideo[join...]), "video from the joined keyframe to the end")
        let sourceAudio = source.filter { !$0.video }.map(strip), receivedAudio = received.filter { !$0.video }.map(strip)
        if let firstAudio = receivedAudio.first, let start = sourceAudio.firstIndex(of: firstAudio) {
            #expect(receivedAudio == Array(sourceAudio[start...]), "audio from the join to the end")
        } else if !sourceAudio.isEmpty {
            Issue.record("no audio from the source received")
        }
        return join
    }

    /// A player written here: the plain handshake, `connect`, `createStream` and `play` sent at
    /// once, then either reading every message or never reading again.
    final class RawPlayer: @unchecked Sendable {
        let fd: Int32

        /// Connects to 127.0.0.1:`port`, with a receive buffer of `receiveBuffer` bytes when
        /// given (a player that reads nothing then stops the server's sends soon).
        init(port: Int, receiveBuffer: Int32? = nil) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            if var size = receiveBuffer {
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = UInt16(port).bigEndian
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &addr) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard ok else { throw RTMPError(.io, "cannot connect") }
        }

        deinit { close(fd) }

        /// The handshake, then the commands a player sends, without waiting for answers.
        func play(_ name: String, application: String = "live") {
            HostileServerTests.Server.send(fd, RTMPHandshake.c0c1(seed: 11))
            let s0s1s2 = HostileServerTests.Server.read(fd, 1 + 2 * 1536)
            HostileServerTests.Server.send(fd, Array(s0s1s2[1..<1537]))
            let writer = RTMPChunkWriter()
            var out: [UInt8] = []
            let connect: [AMF0Property] = [AMF0Property("app", .string(application)),
                                           AMF0Property("tcUrl", .string("rtmp://127.0.0.1/\(application)"))]
            writer.write(.command("connect", transaction: 1, [.object(connect)]), chunkStreamID: 3, into: &out)
            writer.write(.command("createStream", transaction: 2, [.null]), chunkStreamID: 3, into: &out)
            writer.write(.command("getStreamLength", transaction: 3, [.null, .string(name)]), chunkStreamID: 3, into: &out)
            writer.write(.command("play", transaction: 4, [.null, .string(name), .number(-2000)], streamID: 1), chunkStreamID: 8,
                         into: &out)
            HostileServerTests.Server.send(fd, out)
        }

        /// Every message until the server ends the connection or `limit` passes.
        func readMessages(limit: Duration) -> (messages: [RTMPMessage], bytes: Int, closedByServer: Bool) {
            var session = RTMPSession()
            var messages: [RTMPMessage] = []
            var total = 0
            var buffer = [UInt8](repeating: 0, count: 65536)
            let deadline = Deadline.after(limit)
            var closed = false
            while !deadline.hasPassed {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
                    closed = true
                    break
                }
                guard n > 0 else { continue }
                total += n
                session.receive(buffer[0..<n])
                while let m = try? session.nextMessage() { messages.append(m) }
            }
            return (messages, total, closed)
        }
    }

    /// The `onStatus` codes among `messages`.
    static func statusCodes(_ messages: [RTMPMessage]) -> [String] {
        messages.compactMap { m -> String? in
            guard let values = try? RTMPSession.command(m), values.first?.string == "onStatus" else { return nil }
            return values.dropFirst(3).first?["code"]?.string
        }
    }

    static var canRunFFmpeg: Bool { FFmpeg.isPresent }

    /// FFmpeg publishes a file with H.264 (B-frames) and AAC at real time; a player that never
    /// reads joins at 1 s, FFmpeg (`-i rtmp://... -c copy`) at 2.2 s, mid-GOP. FFmpeg's
    /// recording holds every video and audio packet of the source from the keyframe it joined
    /// at to the end, decodes without an error, and ends when the publisher does
    /// (`NetStream.Play.UnpublishNotify`). The player that never reads is ended by the server
    /// (its sends' deadline) before the stream ends; the publisher's stream arrives whole.
    @Test(.enabled(if: canRunFFmpeg, "needs ffmpeg and ffprobe"), .timeLimit(.minutes(5)))
    func ffmpegJoinsMidStreamWhileAPlayerNeverReads() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/source.flv", recording = dir + "/played.flv"
        try FFmpeg.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25",
                           "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "8",
                           "-vf", "noise=alls=30:allf=t", "-c:v", "libx264", "-preset", "superfast", "-g", "25", "-bf", "2",
                           "-b:v", "6M", "-maxrate", "6M", "-bufsize", "3M", "-c:a", "aac", "-b:a", "64k", "-f", "flv", source])
            .checked("ffmpeg source")
        let sourcePackets = try Self.packets(source)

        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: Self.options())
        let drained = Self.drainPublishes(server)
        let url = "rtmp://127.0.0.1:\(server.localPort)/live/key"
        let publisher = Background("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-re", "-i", source,
                                              "-c", "copy", "-f", "flv", url], timeout: 40)
        try Self.waitForPublishing(server)
        Thread.sleep(forTimeInterval: 1)
        let stuck = try RawPlayer(port: server.localPort, receiveBuffer: 4096)
        stuck.play("key")
        Thread.sleep(forTimeInterval: 1.2)
        let player = Background("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-rw_timeout", "10000000", "-i", url,
                                           "-c", "copy", "-copyts", "-f", "flv", recording], timeout: 40)

        let published = try publisher.wait()
        #expect(published.succeeded, "publisher: \(published.stderr)")
        let played = try player.wait()
        #expect(played.succeeded && !played.timedOut, "player: \(played.stderr)")

        let received = try Self.packets(recording)
        Self.checkJoinedSuffix(received: received, source: sourcePackets)
        let decode = try FFmpeg.decode(recording)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")

        // The player that never read: ended by the server before the stream's end.
        let stuckRead = stuck.readMessages(limit: .seconds(15))
        #expect(stuckRead.closedByServer)
        #expect(!Self.statusCodes(stuckRead.messages).contains("NetStream.Play.UnpublishNotify"),
                "the player that never read was kept to the end")
        #expect(Self.statusCodes(stuckRead.messages).prefix(2) == ["NetStream.Play.Reset", "NetStream.Play.Start"])

        server.close()
        let counts = try #require(try awaitTask(drained))
        #expect(counts == [sourcePackets.filter(\.video).count], "the publisher's stream arrived whole")
    }

    static var canRunGStreamer: Bool {
        FFmpeg.isPresent && Support.gstLaunch(with: ["rtmpsrc", "filesink"]) != nil
    }

    /// Our `RTMPVideoPublisher` publishes an H.264 stream at real time; GStreamer's `rtmpsrc`
    /// joins mid-stream, and a player written here reads the messages themselves: after the
    /// status replies, the metadata and the sequence header come before the first frame, a
    /// keyframe. GStreamer's recording holds every frame from that keyframe to the end,
    /// decodable.
    @Test(.enabled(if: canRunGStreamer, "needs ffmpeg, ffprobe and GStreamer rtmpsrc"), .timeLimit(.minutes(5)))
    func gstreamerJoinsMidStreamFromOurPublisher() throws {
        let gst = try #require(Support.gstLaunch(with: ["rtmpsrc", "filesink"]))
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/source.h264", recording = dir + "/played.flv"
        try FFmpeg.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "6",
                           "-c:v", "libx264", "-preset", "superfast", "-g", "25", "-bf", "0", "-f", "h264", source])
            .checked("ffmpeg source")
        let annexB = Support.readFile(source)
        let accessUnits = AccessUnits.assemble(annexB: annexB[...]).accessUnits
        #expect(accessUnits.count == 150)

        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: Self.options())
        let drained = Self.drainPublishes(server)
        let url = "rtmp://127.0.0.1:\(server.localPort)/live/key"
        let stats = ThreadLock<RTMPPublisher.Statistics?>(nil)
        Thread.detachNewThread {
            let s = try? RTMPVideoPublisher.publish(annexB: annexB, to: url, realTime: true)
            stats.withLock { $0 = s }
        }
        try Self.waitForPublishing(server)
        Thread.sleep(forTimeInterval: 2.2)
        let reader = try RawPlayer(port: server.localPort)
        reader.play("key")
        let player = Background(gst, ["-q", "rtmpsrc", "location=\(url) live=1", "!", "filesink", "location=\(recording)"],
                                timeout: 40)
        let read = reader.readMessages(limit: .seconds(30))
        let played = try player.wait()
        #expect(played.succeeded && !played.timedOut, "gst-launch: \(played.stderr)")
        let deadline = Deadline.after(.seconds(20))
        while stats.withLock({ $0 == nil }) && !deadline.hasPassed { Thread.sleep(forTimeInterval: 0.05) }
        let sent = try #require(stats.withLock { $0 })
        #expect(sent.framesSent == 150 && sent.framesDropped == 0)

        // What our player got: the replies, then the metadata and the sequence header before
        // the first frame, a keyframe; every frame after it; the end announced.
        #expect(read.closedByServer)
        #expect(Self.statusCodes(read.messages) == ["NetStream.Play.Reset", "NetStream.Play.Start", "NetStream.Play.UnpublishNotify"])
        let media = read.messages.filter { $0.typeID == 8 || $0.typeID == 9 || $0.typeID == 18 }
        #expect(media.first.map { String(decoding: $0.payload.prefix(20), as: UTF8.self).contains("|RtmpSampleAccess") } == true)
        let afterAccess = Array(media.dropFirst())
        #expect(afterAccess.first?.typeID == 18 && String(decoding: afterAccess.first?.payload.prefix(16) ?? [], as: UTF8.self).contains("onMetaData"))
        let video = afterAccess.filter { $0.typeID == 9 }
        #expect(video.first?.payload.prefix(2) == [0x17, 0], "the sequence header first")
        #expect(video.dropFirst().first?.payload.prefix(2) == [0x17, 1], "then a keyframe")
        let frames = video.dropFirst().filter { $0.payload.dropFirst().first == 1 }  // AVC NALU (not the end of sequence)
        #expect(video.last?.payload.prefix(2) == [0x17, 2], "the publisher's end of sequence relayed last")
        let join = Int((frames.first?.timestamp ?? 0) / 40)
        #expect(join > 0 && accessUnits[join].flags.isSync)
        #expect(frames.map(\.timestamp) == (join..<150).map { UInt32($0 * 40) }, "every frame from the keyframe on")

        // GStreamer's recording: every frame from a keyframe to the end, decodable.
        let received = try Self.packets(recording).filter(\.video)
        #expect(received.first?.key == true)
        let expectedKeys = accessUnits.suffix(received.count).map(\.flags.isSync)
        #expect(received.map(\.key) == expectedKeys)
        #expect(received.count >= 150 - join - 25 && received.count < 150, "joined mid-stream: \(received.count) frames")
        let decode = try FFmpeg.decode(recording)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        server.close()
        _ = try awaitTask(drained)
    }

    /// `play` of a name nobody publishes: `NetStream.Play.StreamNotFound`, and the connection
    /// ends.
    @Test func playingWhatIsNotPublishedIsRefused() throws {
        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: Self.options())
        let player = try RawPlayer(port: server.localPort)
        player.play("nobody")
        let read = player.readMessages(limit: .seconds(10))
        #expect(read.closedByServer)
        #expect(Self.statusCodes(read.messages) == ["NetStream.Play.StreamNotFound"])
        server.close()
    }
}

/// The value of `task`, waited for from a synchronous test (bounded: the task ends when the
/// server closes).
func awaitTask<T: Sendable>(_ task: Task<T, any Error>) throws -> T? {
    let result = ThreadLock<Result<T, any Error>?>(nil)
    Task {
        let value: Result<T, any Error>
        do { value = .success(try await task.value) } catch { value = .failure(error) }
        result.withLock { $0 = value }
    }
    let deadline = Deadline.after(.seconds(120))
    while result.withLock({ $0 == nil }) && !deadline.hasPassed { Thread.sleep(forTimeInterval: 0.02) }
    return try result.withLock { $0 }?.get()
}
