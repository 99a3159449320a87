import Foundation
import Testing
import TestSupport

/// The sizes for the fault-injection tests of ``ReconnectTests`` (whose pass they run
/// in, with its helpers): a publish of 2,000 frames at real time (80 s) with our server and
/// with nginx-rtmp killed and restarted, and a proxy that drops the connection every 3 s for a
/// minute with the outage buffer and the process's memory sampled. Minutes each: opt-in
/// (`H264_REALTIME_TESTS=1 H264_LONG_FAULT_TESTS=1 swift test --filter ReconnectTests`); each
/// prints what it measured (Docs/Benchmarks.md has a run's).
extension ReconnectTests {
    static let longFaultTests = ProcessInfo.processInfo.environment["H264_LONG_FAULT_TESTS"] == "1"
    static let longFaultReason: Comment = "minutes of real time: H264_LONG_FAULT_TESTS=1 (with H264_REALTIME_TESTS=1)"

    /// Our server closed 30 s into a 2,000-frame real-time publish and started again 2 s
    /// later: one outage, the publish after it resumes at a keyframe with timestamps
    /// continuing, the frames lost at most the outage and one GOP.
    @Test(.enabled(if: longFaultTests, longFaultReason), .timeLimit(.minutes(5)))
    func ourServerRestartsDuringTwoThousandFrames() async throws {
        let outcome = try await Self.ourServerRestart(frameCount: 2000, closingAfter: .seconds(30))
        print("long fault test, our server restarted: \(outcome)")
    }

    /// nginx-rtmp killed 30 s into a 2,000-frame real-time publish and started again 2 s
    /// later: its recording of the new publish starts at a keyframe, decodes cleanly, has no
    /// gap; the frames lost are at most the outage and one GOP.
    @Test(.enabled(if: longFaultTests && canRunNginx, longFaultReason), .timeLimit(.minutes(5)))
    func nginxRestartsDuringTwoThousandFrames() async throws {
        let outcome = try await Self.nginxRestart(frameCount: 2000, killingAfter: .seconds(30))
        print("long fault test, nginx-rtmp restarted: \(outcome)")
    }

    /// A proxy that drops the connection every 3 s for a minute (20 drops): every drop
    /// recovered, the outage buffer within its bound and the process's resident memory within
    /// 16 MB of its first sample after the first drop, both sampled every 100 ms.
    @Test(.enabled(if: longFaultTests, longFaultReason), .timeLimit(.minutes(5)))
    func connectionDroppedEveryThreeSecondsForAMinute() async throws {
        let outcome = try await Self.connectionDropped(every: .seconds(3), times: 20, frameCount: 2000)  // up to 80 s
        print("long fault test, a connection dropped every 3 s: \(outcome)")
    }
}
