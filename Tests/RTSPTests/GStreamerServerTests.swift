import Foundation
import H264
import RTP
import RTSP
import TestSupport
import Testing

/// Our client against a real RTSP server (GStreamer's), over TCP and UDP, with and without
/// authentication: every frame the server sent arrives, whole, with its key flag and time, the
/// recording decodes in FFmpeg to the very frames of the file served, and FFmpeg's own RTSP
/// client on the same server receives the same access units.
@Suite(.serialized) struct GStreamerServerTests {
    static let enabled = GStreamerRTSPServer.isAvailable && FFmpeg.isPresent

    struct Received {
        var accessUnits: [RTPReceivedAccessUnit] = []
        var stop: RTSPClient.Stop?
        var client: RTSPClient?
    }

    /// Pulls the whole stream (bounded: the client's silence timeout, and 15 s in all).
    static func pull(_ url: String, _ options: RTSPClient.Options) throws -> Received {
        var r = Received()
        let client = try RTSPClient(url: url, options: options)
        defer { client.close() }
        try client.start()
        let end = Date().addingTimeInterval(15)
        r.stop = try client.receive(until: { Date() > end }) { event in
            if case .video(let au) = event { r.accessUnits.append(au) }
        }
        r.client = client
        return r
    }

    static func annexB(_ units: [RTPReceivedAccessUnit]) -> [UInt8] {
        AnnexB.write(units.flatMap(\.nalUnits))
    }

    @Test(.enabled(if: enabled, "needs GStreamer's RTSP server for Python and FFmpeg"),
          arguments: [RTSPClient.Transport.tcp, .udp])
    func everyFrameArrives(transport: RTSPClient.Transport) throws {
        let source = try #require(RTSPServedStream.path)
        let server = try GStreamerRTSPServer(file: try #require(RTSPServedStream.mp4))
        defer { server.stop() }
        let r = try Self.pull(server.url(), .init(transport: transport, silenceTimeout: .seconds(5)))
        #expect(r.stop == .bye)
        #expect(r.accessUnits.count == RTSPServedStream.frames)
        // Key flags: the file's IDR pictures, 0 and 30.
        let keys = r.accessUnits.indices.filter { r.accessUnits[$0].flags.isSync }
        #expect(keys == [0, 30])
        #expect(r.accessUnits.allSatisfy { !$0.mayBeIncomplete })
        // Times: 90 kHz, one frame (3000 ticks) apart, presentation equal to decoding (no B-frames).
        let times = r.accessUnits.compactMap(\.timestamps)
        #expect(times.count == RTSPServedStream.frames)
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1.pts - $0.pts - 3000) <= 1 })  // GStreamer rounds 1/30 s in ns
        #expect(times.allSatisfy { $0.pts == $0.dts })
        // The pictures are those of the file, byte for byte.
        let sent = try RTSPServedStream.slices(of: Support.readFile(source))
        let got = r.accessUnits.flatMap { $0.nalUnits.filter { $0.type == .slice || $0.type == .idrSlice }.map { Array($0.bytes) } }
        #expect(got == sent)
        // The recording decodes to the file's frames.
        let path = try Support.temporaryFile(Self.annexB(r.accessUnits), name: "pulled.h264")
        #expect(try FFmpeg.frameMD5s(file: path) == FFmpeg.frameMD5s(file: source))
        #expect(r.client?.report.packetsLost == 0)
    }

    /// FFmpeg's RTSP client, as the reference, on the same server: the same access units.
    @Test(.enabled(if: enabled, "needs GStreamer's RTSP server for Python and FFmpeg"))
    func sameAccessUnitsAsFFmpeg() throws {
        let server = try GStreamerRTSPServer(file: try #require(RTSPServedStream.mp4))
        defer { server.stop() }
        let ours = try Self.pull(server.url(), .init(transport: .tcp, silenceTimeout: .seconds(5)))
        let dir = try Support.temporaryDirectory()
        try FFmpeg.ffmpeg(["-loglevel", "error", "-rtsp_transport", "tcp", "-i", server.url(), "-c", "copy", "-f", "h264", "-y",
                           dir + "/ffmpeg.h264"], timeout: 20).checked("ffmpeg rtsp pull")
        let reference = Support.readFile(dir + "/ffmpeg.h264")
        let frames = try FFmpeg.ffprobe(["-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0",
                                         dir + "/ffmpeg.h264"]).checked("ffprobe").output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(frames) == ours.accessUnits.count)
        #expect(try RTSPServedStream.slices(of: reference)
                == ours.accessUnits.flatMap { $0.nalUnits.filter { $0.type == .slice || $0.type == .idrSlice }.map { Array($0.bytes) } })
    }

    @Test(.enabled(if: enabled, "needs GStreamer's RTSP server for Python and FFmpeg"),
          arguments: ["basic", "digest"])
    func authentication(scheme: String) throws {
        let server = try GStreamerRTSPServer(file: try #require(RTSPServedStream.mp4), auth: scheme)
        defer { server.stop() }
        // Credentials from the URL (the password's colon percent-encoded), then from the options.
        let fromURL = try Self.pull(server.url("user:pa%3Ass@"), .init(silenceTimeout: .seconds(5)))
        #expect(fromURL.accessUnits.count == RTSPServedStream.frames)
        let fromOptions = try Self.pull(server.url(), .init(credentials: RTSPCredentials(user: "user", password: "pa:ss"),
                                                            silenceTimeout: .seconds(5)))
        #expect(fromOptions.accessUnits.count == RTSPServedStream.frames)
        // None, or a wrong password: refused, and the password never in the reason.
        #expect(throws: RTSPError.invalid(.unauthorized, "")) { try RTSPClient(url: server.url()).start() }
        do {
            try RTSPClient(url: server.url("user:wrong-secret@")).start()
            Issue.record("a wrong password was accepted")
        } catch {
            #expect(error.code == .unauthorized)
            #expect(!error.reason.contains("wrong-secret"))
        }
    }

    /// The same through the `AsyncSequence`: every access unit, then the end (BYE).
    @Test(.enabled(if: enabled, "needs GStreamer's RTSP server for Python and FFmpeg"), .timeLimit(.minutes(5)))
    func asAnAsyncSequence() async throws {
        let server = try GStreamerRTSPServer(file: try #require(RTSPServedStream.mp4))
        defer { server.stop() }
        let stream = try await RTSPStream.open(server.url(), options: .init(transport: .udp, silenceTimeout: .seconds(5)))
        #expect(stream.tracks.count == 1)
        var count = 0
        for try await event in stream {
            if case .video = event { count += 1 }
        }
        #expect(count == RTSPServedStream.frames)
        #expect(stream.eventsDropped == 0)
    }

    /// Wall clock: two clients of one shared stream (one over TCP, one over UDP) map the same
    /// pictures, through the sender reports each received, to the same NTP time, within a
    /// millisecond.
    @Test(.enabled(if: enabled, "needs GStreamer's RTSP server for Python and FFmpeg"), .timeLimit(.minutes(5)))
    func wallClockAgreesAcrossSessions() async throws {
        let server = try GStreamerRTSPServer(file: try #require(RTSPServedStream.longMP4), shared: true)
        defer { server.stop() }
        // One after the other into the shared media (two clients preparing it at once make
        // GStreamer's server close one of them), then read together.
        let first = try await RTSPStream.open(server.url(), options: .init(transport: .tcp, silenceTimeout: .seconds(5)))
        let second = try await RTSPStream.open(server.url(), options: .init(transport: .udp, silenceTimeout: .seconds(5)))
        async let tcp = Self.times(first)
        async let udp = Self.times(second)
        let (a, b) = try await (tcp, udp)
        let common = Set(a.keys).intersection(b.keys)
        #expect(common.count >= 30, "pictures mapped by both: \(common.count)")
        for t in common {
            let difference = abs(RTCP.unixSeconds(ntpTimestamp: a[t]!) - RTCP.unixSeconds(ntpTimestamp: b[t]!))
            #expect(difference < 0.001, "RTP time \(t): \(difference) s apart")
        }
        // And the mapping is the sender's clock: within a minute of this machine's.
        if let any = common.first {
            #expect(abs(RTCP.unixSeconds(ntpTimestamp: a[any]!) - Date().timeIntervalSince1970) < 60)
        }
    }

    /// The NTP time of each picture that has one, by RTP timestamp.
    static func times(_ stream: RTSPStream) async throws -> [UInt32: UInt64] {
        var out: [UInt32: UInt64] = [:]
        for try await event in stream {
            if case .video(let au) = event, let ntp = au.ntpTimestamp { out[au.timestamp] = ntp }
        }
        return out
    }
}
