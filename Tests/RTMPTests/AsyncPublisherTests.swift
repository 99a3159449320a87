import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Testing
import FLV
import H264
import H264Video
import TestSupport
import X264
@testable import RTMP

/// `AsyncRTMPPublisher`: encoded frames from an async sequence published without the caller
/// touching a timestamp, and cancellation that stops the encoder and the publisher within a
/// bound whatever the server does (a real nginx, a silent server, a server that stops reading).
@Suite struct AsyncPublisherTests {
    /// The bound every cancellation below is held to: the server sees the connection closed
    /// within this many seconds of `cancel()` (the awaiting task's own return: see
    /// ``cancel(_:_:)``). The
    /// operations' own deadlines are 300 s, so only the cancellation can end them in time —
    /// and a test starved of the cooperative pool by a loaded machine (30 s was seen between
    /// the server's greeting and the test's cancel) cannot reach them first.
    static let bound = 1.0
    static let patient = RTMPPublisher.Options(connection: .init(connectTimeout: .seconds(300), timeout: .seconds(300)))

    /// A count shared with a producer.
    final class Counter: Sendable {
        let value = Atomic(0)
        var current: Int { value.load(ordering: .relaxed) }
    }

    /// When the test server read the end of the connection.
    final class ClosedAt: Sendable {
        let instant = Mutex<ContinuousClock.Instant?>(nil)
        var value: ContinuousClock.Instant? { instant.withLock { $0 } }
    }

    /// Test-pattern frames pulled one by one, 25 fps, counting the pulls; endless when `count`
    /// is nil.
    static func frames(_ count: Int?, pulled: Counter) throws -> AsyncThrowingStream<VideoFrame, any Error> {
        let source = try TestPatternSource(width: 160, height: 96, frameRate: (25, 1), frameCount: count ?? Int.max)
        return AsyncThrowingStream(unfolding: {
            let index = pulled.value.add(1, ordering: .relaxed).oldValue
            if let count, index >= count { return nil }
            return try source.makeFrame(index)
        })
    }

    /// An encoder with B-frames (its first DTS is negative) and SPS/PPS out of band only.
    static func encoder() throws -> AsyncFrameEncoder<X264Encoder> {
        var config = X264Encoder.Options(width: 160, height: 96)
        config.expectedFrameRate = 25
        config.preset = .veryfast
        config.maxConsecutiveBFrames = 2
        config.rateControl = .averageBitrate(300_000)
        return AsyncFrameEncoder(try X264Encoder(options: config))
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = start.duration(to: .now)
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static var canPublish: Bool { NginxServer.isAvailable && FFmpeg.isPresent }

    /// A local nginx, an encoder, and an async publisher of `stream` on it.
    static func publishing(_ stream: String, options: RTMPPublisher.Options) async throws
        -> (NginxServer, AsyncFrameEncoder<X264Encoder>, AsyncRTMPPublisher) {
        let server = try NginxServer()
        let encoder = try Self.encoder()
        let rtmp = try await AsyncRTMPPublisher(url: "rtmp://127.0.0.1:\(server.port)/live/\(stream)",
                                                metadata: FLVMetadata(width: 160, height: 96, frameRate: 25),
                                                parameterSets: encoder.parameterSets, options: options)
        return (server, encoder, rtmp)
    }

    /// An async sequence of encoded frames (B-frames: the first DTS is below 0) straight into
    /// `publish`: every frame recorded, DTS from 0 in milliseconds, and FFmpeg decodes it all.
    @Test(.enabled(if: canPublish, "needs nginx with libnginx-mod-rtmp and ffmpeg"))
    func publishEncodedFramesFromAnAsyncSequence() async throws {
        let (server, encoder, rtmp) = try await Self.publishing("async", options: .init(overflowPolicy: .block(maximumWait: .seconds(5))))
        let pulled = Counter()
        let statistics = try await rtmp.publish(encoder.encodedFrames(from: try Self.frames(50, pulled: pulled)))
        #expect(statistics.framesSent == 50 && statistics.framesDropped == 0)
        server.stopAfterStreamEnds()
        let probe = try FFmpeg.packets(server.recording("async"))
        #expect(probe.errors.isEmpty, "\(probe.errors)")
        #expect(probe.packets.count == 50)
        #expect(probe.packets.first?.dts == 0 && probe.packets.first?.key == true)
        // 25 fps in milliseconds, shifted by the B-frame delay: DTS 0, 40, 80, ...
        #expect(probe.packets.map(\.dts) == (0..<50).map { Int64($0 * 40) })
        #expect(probe.packets.allSatisfy { $0.pts >= $0.dts })
        let decode = try FFmpeg.decode(server.recording("async"))
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }

    /// Cancelling the task that publishes an endless encoded sequence stops both: the task
    /// returns, no frame is pulled after it, the publisher is cancelled and
    /// nginx sees the client go.
    @Test(.enabled(if: NginxServer.isAvailable, "needs nginx with libnginx-mod-rtmp"))
    func cancellationStopsTheEncoderAndThePublisher() async throws {
        let (server, encoder, rtmp) = try await Self.publishing("endless", options: Self.patient)
        let pulled = Counter()
        let frames = try Self.frames(nil, pulled: pulled)
        let task = Task { try await rtmp.publish(encoder.encodedFrames(from: frames)) }
        for _ in 0..<6000 where rtmp.statistics.framesSent < 30 { try await Task.sleep(for: .milliseconds(10)) }  // up to 60 s on a loaded machine
        #expect(rtmp.statistics.framesSent >= 30)
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        let taken = Self.seconds(since: start)
        // Its return is the cooperative pool's to schedule (see `cancel(_:_:)`): a loose bound.
        #expect(taken < 60, "the publishing task took \(taken) s to end")
        switch result {
        case .success: Issue.record("an endless publish returned")
        case .failure(let error):
            #expect(error is CancellationError || (error as? RTMPError)?.code == .cancelled, "\(error)")
        }
        // The encoder stopped: no frame is pulled any more.
        let pulledAtEnd = pulled.current
        try await Task.sleep(for: .milliseconds(300))
        #expect(pulled.current == pulledAtEnd)
        // The publisher stopped: cancelled, sends refused, and nginx saw the connection close.
        #expect(rtmp.isCancelled)
        await #expect(throws: RTMPError(.cancelled, "")) { try await rtmp.finish() }
        var closed = false
        for _ in 0..<Int(Self.bound * 100) where !closed {
            closed = server.log.contains("disconnect")
            if !closed { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(closed, "nginx did not see the client go: \(server.log.suffix(500))")
    }

    /// A server that accepts the TCP connection and never answers the handshake, with 300 s
    /// deadlines: cancelling the connecting task ends it within the bound, and the socket is
    /// closed (the server reads the end of the stream) within the bound too.
    @Test func cancellingAConnectionToASilentServer() async throws {
        let closedAt = ClosedAt()
        let greeted = HostileServerTests.Server.Flag()
        let server = try HostileServerTests.Server { fd, shouldStop in
            _ = HostileServerTests.Server.read(fd, 1537)  // C0 and C1, never answered
            greeted.set()
            Self.waitForClose(fd, shouldStop: shouldStop, closedAt: closedAt)
        }
        defer { server.finish() }
        let task = Task {
            try await AsyncRTMPPublisher(url: "rtmp://127.0.0.1:\(server.port)/live/test", metadata: FLVMetadata(),
                                         options: Self.patient)
        }
        // Cancel once the client waits in the handshake (a task cancelled before it connects
        // never opens a socket at all).
        for _ in 0..<1000 where !greeted.isSet { try await Task.sleep(for: .milliseconds(10)) }
        #expect(greeted.isSet)
        try await Task.sleep(for: .milliseconds(100))
        let start = await Self.cancel(task, "connecting")
        try await Self.expectClosed(closedAt, after: start)
    }

    /// A server that accepts the stream and then stops reading: the publisher's queue blocks
    /// in a send (300 s deadline) and `finish` would wait for it. Cancelling the finishing task
    /// ends it within the bound, and the connection is closed.
    @Test func cancellingFinishWhileTheServerStopsReading() async throws {
        let closedAt = ClosedAt()
        let reading = HostileServerTests.Server.Flag()
        let server = try HostileServerTests.Server { fd, shouldStop in
            var w = RTMPChunkWriter()
            HostileServerTests.Server.acceptPublishing(fd, writer: &w)
            while !shouldStop() && !reading.isSet { usleep(10_000) }  // read nothing until told
            Self.waitForClose(fd, shouldStop: shouldStop, closedAt: closedAt)
        }
        defer { server.finish() }
        let encoder = try Self.encoder()
        let rtmp = try await AsyncRTMPPublisher(url: "rtmp://127.0.0.1:\(server.port)/live/test", metadata: FLVMetadata(),
                                                parameterSets: encoder.parameterSets, options: Self.patient)
        // One real keyframe, then copies padded to 1 MiB: far more than the socket buffers hold.
        var first: EncodedFrame?
        for index in 0..<8 where first == nil {
            first = try await encoder.encode(try TestPatternSource(width: 160, height: 96).makeFrame(index)).first
        }
        if first == nil { first = try await encoder.flush().first }
        let keyframe = try #require(first)
        let padded = keyframe.nalUnits.map { unit in
            unit.type == .idrSlice ? (try? NALUnit(Array(unit.bytes) + [UInt8](repeating: 0x55, count: 1 << 20))) ?? unit : unit
        }
        for k in 0..<24 {
            try await rtmp.send(EncodedFrame(nalUnits: padded, pts: Int64(k), dts: Int64(k), timescale: 25))
        }
        let task = Task { try await rtmp.finish() }
        try await Task.sleep(for: .milliseconds(300))
        #expect(rtmp.statistics.framesSent < 24, "the server's buffers took every frame")
        let start = await Self.cancel(task, "finish")
        reading.set()
        try await Self.expectClosed(closedAt, after: start, draining: true)
    }

    /// Cancels `task` and expects it to end with `cancelled`; returns when it was cancelled.
    ///
    /// The publisher's bound is what the server sees (``expectClosed(_:after:draining:)``, timed
    /// by the server's thread). When the awaiting task runs again is the cooperative pool's
    /// business: in a full `swift test` on two cores, synchronous tests waiting for child
    /// processes can hold the pool for many seconds, so the task's end is held to a looser
    /// bound that only a publisher waiting for its 300 s deadlines would miss.
    static func cancel<T: Sendable>(_ task: Task<T, any Error>, _ what: String) async -> ContinuousClock.Instant {
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        let taken = seconds(since: start)
        #expect(taken < 60, "\(what) took \(taken) s to end")
        #expect(throws: RTMPError(.cancelled, "")) { try result.get() }
        return start
    }

    /// Reads (and drops) what the client sends until it closes the connection; notes when.
    static func waitForClose(_ fd: Int32, shouldStop: () -> Bool, closedAt: ClosedAt) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !shouldStop() {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 10) > 0 else { continue }
            if recv(fd, &buffer, buffer.count, 0) <= 0 {
                closedAt.instant.withLock { $0 = .now }
                return
            }
        }
    }

    /// Expects the server to have read the end of the connection within the bound of `start`
    /// (or, when it had megabytes to drain first, within the bound of now).
    static func expectClosed(_ closedAt: ClosedAt, after start: ContinuousClock.Instant,
                             draining: Bool = false) async throws {
        let from = draining ? ContinuousClock.now : start
        for _ in 0..<Int(bound * 200) where closedAt.value == nil { try await Task.sleep(for: .milliseconds(10)) }
        let at = try #require(closedAt.value, "the server never saw the connection close")
        let d = from.duration(to: at)
        let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        #expect(s < bound, "the socket was closed \(s) s after the cancellation")
    }
}
