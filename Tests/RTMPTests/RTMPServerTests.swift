import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import H264
import FLV
import TestSupport
@testable import RTMP

/// Publishing to a real nginx-rtmp started by the test, with `record all`, and reading back
/// what the server received.
@Suite struct RTMPServerTests {
    static let stream = "cros-codecs/test-25fps.h264"
    static var canPublish: Bool {
        NginxServer.isAvailable && FFmpeg.isPresent && FileManager.default.fileExists(atPath: Corpus.path(stream))
    }

    @Test(.enabled(if: canPublish, "needs nginx with libnginx-mod-rtmp, ffmpeg and ../shared/corpus"))
    func publishTenSecondsAndReadTheRecording() throws {
        let server = try NginxServer()
        let path = Corpus.path(Self.stream)
        let annexB = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let order = try FFmpeg.presentationOrder(path)
        let accessUnits = AccessUnits.assemble(annexB: annexB[...]).accessUnits
        #expect(accessUnits.count == 250)  // 10 s at 25 fps
        let options = RTMPPublisher.Options(queueCapacity: 16, overflowPolicy: .block(maximumWait: .seconds(5)))
        let stats = try RTMPVideoPublisher.publish(annexB: annexB, to: "rtmp://127.0.0.1:\(server.port)/live/test",
                                               realTime: false, options: options)
        #expect(stats.framesSent == 250 && stats.framesDropped == 0)
        // nginx closes the recording when the stream is deleted; give it a moment, then stop.
        server.stopAfterStreamEnds()
        let recording = server.recording("test")
        #expect(FileManager.default.fileExists(atPath: recording), "\(server.log)")

        // FFmpeg: every frame, keyframes where sent, no decoding errors.
        let probe = try FFmpeg.packets(recording)
        #expect(probe.errors.isEmpty, "\(probe.errors)")
        #expect(probe.packets.count == 250)
        let idrs = accessUnits.map(\.flags.isSync)
        #expect(zip(probe.packets, idrs).allSatisfy { $0.key || !$1 })
        #expect(probe.packets.map(\.dts) == (0..<250).map { Int64($0 * 40) })
        let decode = try FFmpeg.decode(recording)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")

        // Our reader: the same samples we sent, byte for byte.
        let recorded = try FLVVideoTrack(reading: [UInt8](try Data(contentsOf: URL(fileURLWithPath: recording))))
        var sent: [FLVVideoSample] = []
        var builder = FLVSampleBuilder()
        for au in accessUnits { sent.append(try builder.sample(au).sample) }
        #expect(recorded.samples.count == 250)
        #expect(recorded.samples == sent)
        // Presentation times agree with FFmpeg's output order.
        let delay = max(order.enumerated().map { $0.offset - $0.element }.max() ?? 0, 0)
        #expect(recorded.samples.map(\.pts) == order.map { Int64(($0 + delay) * 40) })
        #expect(recorded.samples.map(\.isKeyframe) == idrs)
    }

    @Test(.enabled(if: NginxServer.isAvailable, "needs nginx with libnginx-mod-rtmp"))
    func unknownApplicationIsRejected() throws {
        let server = try NginxServer()
        #expect(throws: RTMPError(.connectionRejected, "")) {
            try RTMPPublisher(url: "rtmp://127.0.0.1:\(server.port)/nosuchapp/test")
        }
    }

    @Test func closedPortIsRefused() throws {
        let port = try NginxServer.freePort()
        #expect(throws: RTMPError(.connectionRefused, "")) {
            try RTMPPublisher(url: "rtmp://127.0.0.1:\(port)/live/test")
        }
    }

    @Test(.enabled(if: canPublish, "needs nginx with libnginx-mod-rtmp and ../shared/corpus"))
    func serverClosingMidStream() throws {
        let server = try NginxServer()
        let annexB = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.path(Self.stream))))
        let accessUnits = AccessUnits.assemble(annexB: annexB[...]).accessUnits
        let options = RTMPPublisher.Options(queueCapacity: 4, overflowPolicy: .block(maximumWait: .seconds(2)))
        let session = try RTMPVideoPublisher(url: "rtmp://127.0.0.1:\(server.port)/live/gone", metadata: FLVMetadata(), options: options)
        for au in accessUnits.prefix(10) { try session.send(au) }
        server.kill()
        var caught: RTMPError?
        do {
            for au in accessUnits.dropFirst(10) {
                try session.send(au)
                usleep(2000)
            }
            try session.finish()
        } catch {
            caught = error
        }
        #expect(caught?.code == .connectionClosed, "\(String(describing: caught))")
    }

    @Test(.enabled(if: canPublish, "needs nginx with libnginx-mod-rtmp and ../shared/corpus"))
    func fullQueueDropsUntilKeyframe() throws {
        let server = try NginxServer()
        let annexB = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.path(Self.stream))))
        let options = RTMPPublisher.Options(queueCapacity: 1, overflowPolicy: .dropUntilKeyframe)
        let stats = try RTMPVideoPublisher.publish(annexB: annexB, to: "rtmp://127.0.0.1:\(server.port)/live/drops",
                                               realTime: false, options: options)
        #expect(stats.framesSent + stats.framesDropped == 250)
        #expect(stats.framesSent == stats.framesQueued)
        server.stopAfterStreamEnds()
        // What arrived: after every gap, the next frame is a keyframe.
        let recorded = try FLVVideoTrack(reading: [UInt8](try Data(contentsOf: URL(fileURLWithPath: server.recording("drops")))))
        #expect(recorded.samples.count == stats.framesSent)
        var previous: Int64 = -40
        for s in recorded.samples {
            if s.dts != previous + 40 { #expect(s.isKeyframe, "frame at \(s.dts) ms follows a gap") }
            previous = s.dts
        }
    }

    /// A second publisher of a name already being published gets NetStream.Publish.BadName.
    @Test(.enabled(if: NginxServer.isAvailable, "needs nginx with libnginx-mod-rtmp"))
    func nameInUseIsRejected() throws {
        let server = try NginxServer()
        let url = "rtmp://127.0.0.1:\(server.port)/live/busy"
        let first = try RTMPPublisher(url: url)
        #expect(throws: RTMPError(.connectionRejected, "")) { try RTMPPublisher(url: url) }
        try first.finish()
    }

    /// Paced publishing (a 3-frame stream, so the test stays short); the server parsed our
    /// `@setDataFrame` (nginx-rtmp does not record metadata, so its debug log is the witness).
    @Test(.enabled(if: canPublish, "needs nginx with libnginx-mod-rtmp, ffmpeg and ../shared/corpus"))
    func realTimePublishing() throws {
        let server = try NginxServer(logLevel: "debug")
        let path = Corpus.path("cros-codecs/64x64-I-P-B-P.h264")
        let annexB = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let order = try FFmpeg.presentationOrder(path)
        let stats = try RTMPVideoPublisher.publish(annexB: annexB, to: "rtmp://127.0.0.1:\(server.port)/live/paced",
                                               timing: .init(frameRate: (25, 1), overridesStreamTiming: true), realTime: true)
        #expect(stats.framesSent == order.count && stats.framesDropped == 0)
        server.stopAfterStreamEnds()
        let recording = [UInt8](try Data(contentsOf: URL(fileURLWithPath: server.recording("paced"))))
        #expect(FLVConversion.isFLV(recording))
        let track = try FLVVideoTrack(reading: recording)
        let delay = max(order.enumerated().map { $0.offset - $0.element }.max() ?? 0, 0)
        #expect(track.samples.map(\.pts) == order.map { Int64(($0 + delay) * 40) })
        if server.log.contains("[debug]") {  // nginx built --with-debug, as Debian's is
            #expect(server.log.contains("data frame: width=64 height=64"))
        }
    }
}
