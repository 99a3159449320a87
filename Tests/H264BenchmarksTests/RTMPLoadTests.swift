import Foundation
import Glibc
@testable import H264Benchmarks
import H264
import H264Fixtures
import RTMP
import Testing
import TestSupport

/// The RTMP load generator (`H264Benchmarks rtmp-load`): its framing of the input, and a short
/// run of a few streams into the library's `RTMPServer` in this process, every frame of every
/// stream received by the server.
@Suite struct RTMPLoadTests {
    @Test func inputIsFramedOnceAndLoops() throws {
        let facts = Fixture.baselineCAVLC.facts
        let input = try RTMPLoadCommand.Input(annexB: Fixture.baselineCAVLC.bytes())
        #expect(input.frames.count == facts.frameCount)
        #expect(input.frames.first?.isKeyframe == true && input.frames.first?.dts == 0)
        #expect(input.frames.filter(\.isKeyframe).count == facts.idrCount)
        #expect(input.loopDuration == input.frames.last!.dts + input.frameInterval)
        // Looping: twice the loop's time holds twice its frames; half a frame interval, one.
        #expect(input.frameCount(milliseconds: 2 * input.loopDuration) == 2 * input.frames.count)
        #expect(input.frameCount(milliseconds: input.loopDuration + 1) == input.frames.count + 1)
        #expect(input.frameCount(milliseconds: 1) == 1)
        // A stream that does not start with a keyframe is refused.
        var units = try AnnexB.split(Fixture.baselineCAVLC.bytes())
        units.removeAll { $0.type == .idrSlice }
        #expect(throws: (any Error).self) { try RTMPLoadCommand.Input(annexB: units.flatMap { [0, 0, 0, 1] + $0.bytes }) }
    }

    @Test(.timeLimit(.minutes(5)))
    func everyFrameOfEveryStreamReachesTheServer() async throws {
        var options = RTMPServer.Options()
        options.authorize = { _ in .allow }
        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: options)
        defer { server.close() }
        let received = Task {
            try await withThrowingTaskGroup(of: (String, Int).self) { group in
                var counts: [String: Int] = [:]
                var taken = 0
                for try await ingest in server.publishedStreams {
                    group.addTask {
                        var n = 0
                        for try await event in ingest { if case .video = event { n += 1 } }
                        return (ingest.request.streamName, n)
                    }
                    taken += 1
                    if taken == 3 { break }
                }
                for try await (name, n) in group { counts[name] = n }
                return counts
            }
        }
        let input = try RTMPLoadCommand.Input(annexB: Fixture.baselineCAVLC.bytes())
        let milliseconds: Int64 = 700
        let port = UInt16(server.localPort)
        let run = LoadRun(input: input, streams: 3, milliseconds: milliseconds,
                          urls: (0..<3).map { "rtmp://127.0.0.1:\(port)/live/t-\($0)" }, port: port, serverPIDs: [getpid()])
        // The run paces on its own thread (it sleeps between frames), not on the pool's.
        let report = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try run.run() }) }
        }
        #expect(report.connected == 3 && report.connectErrors.isEmpty && report.errors.isEmpty)
        let expected = input.frameCount(milliseconds: milliseconds)
        #expect(expected > 1 && report.sent == [expected, expected, expected] && report.dropped == [0, 0, 0])
        #expect(report.serverStart != nil && report.serverEnd != nil)
        #expect(try await received.value == ["t-0": expected, "t-1": expected, "t-2": expected])
    }
}
