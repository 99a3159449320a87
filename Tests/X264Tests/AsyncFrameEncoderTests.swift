import Foundation
import H264
import H264Video
import Synchronization
import Testing
import X264

/// Test-pattern frames as an `AsyncSequence`, counting how many were pulled; endless when
/// `count` is nil.
private struct PatternFrames: AsyncSequence, Sendable {
    typealias Element = VideoFrame
    let source: TestPatternSource
    let count: Int?
    let pulled: Counter

    final class Counter: Sendable {
        let value = Atomic(0)
        var current: Int { value.load(ordering: .relaxed) }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let frames: PatternFrames
        var index = 0
        mutating func next() async throws -> VideoFrame? {
            if let count = frames.count, index >= count { return nil }
            defer { index += 1 }
            frames.pulled.value.add(1, ordering: .relaxed)
            return try frames.source.makeFrame(index)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(frames: self) }
}

/// An encoder that records whether each call ran inside a Swift task (on the cooperative pool)
/// and returns nothing.
private final class TaskProbeEncoder: FrameEncoder {
    let callsInsideATask = Atomic(0)
    let calls = Atomic(0)
    private func probe() {
        calls.add(1, ordering: .relaxed)
        if withUnsafeCurrentTask(body: { $0 != nil }) { callsInsideATask.add(1, ordering: .relaxed) }
    }
    func encode(_ frame: VideoFrame, options: FrameEncodeOptions) throws(X264Error) -> [EncodedFrame] { probe(); return [] }
    func flush() throws(X264Error) -> [EncodedFrame] { probe(); return [] }
    func setAverageBitrate(_ bitsPerSecond: Int) throws(X264Error) { probe() }
    func setDataRateLimits(_ limits: [DataRateLimit]) throws(X264Error) {}
    var parameterSets: [NALUnit] { [] }
}

@Suite struct AsyncFrameEncoderTests {
    /// Every call runs on the wrapper's queue, outside any task: never on a cooperative thread.
    @Test func callsRunOffTheCooperativePool() async throws {
        let probe = TaskProbeEncoder()
        let encoder = AsyncFrameEncoder(probe)
        let frame = try VideoFrame(width: 16, height: 16, format: .i420)
        _ = try await encoder.encode(frame)
        try await encoder.setAverageBitrate(100_000)
        _ = try await encoder.flush()
        let calls = probe.calls.load(ordering: .relaxed), inside = probe.callsInsideATask.load(ordering: .relaxed)
        #expect(calls == 3)
        #expect(inside == 0)
        // The probe itself can tell: called directly from this task, it counts.
        _ = try probe.encode(frame, options: .none)
        let insideNow = probe.callsInsideATask.load(ordering: .relaxed)
        #expect(insideNow == 1)
    }

    @Test func sequenceEncodesEveryFrameAndFlushes() async throws {
        let encoder = AsyncFrameEncoder(try X264Encoder(options: X264Support.config()))
        let frames = PatternFrames(source: try TestPatternSource(width: 160, height: 96, frameCount: 30),
                                   count: 30, pulled: .init())
        var out: [EncodedFrame] = []
        for try await au in encoder.encodedFrames(from: frames, options: { FrameEncodeOptions(forceKeyframe: $0.pts == 12) }) {
            out.append(au)
            // Back-pressure: a frame is pulled only when the previous encode's output is taken,
            // so no more than the encoder's delay (plus the frame in hand) runs ahead (until the
            // last frame, when the flush drains the delay).
            let pulled = frames.pulled.current
            if pulled < 30 { #expect(pulled <= out.count + encoder.base.delayedFrames + 1) }
        }
        #expect(out.count == 30)
        #expect(out.map(\.pts).sorted() == Array(0..<30))
        #expect(out.filter(\.isSyncSample).map(\.pts).sorted() == [0, 12])
        // The sequence ended with a flush: the encoder takes no more frames.
        await #expect(throws: X264Error.self) { try await encoder.encode(try TestPatternSource(width: 160, height: 96).makeFrame(31)) }
    }

    /// A library pull source as an async sequence (`frames()`, its `start` on a thread of its
    /// own) into the encoder: every frame, in order, under back-pressure.
    @Test func frameSourceThroughTheEncoder() async throws {
        let encoder = AsyncFrameEncoder(try X264Encoder(options: X264Support.config()))
        let source = try TestPatternSource(width: 160, height: 96, frameCount: 45)
        let frames = source.frames()
        var out: [EncodedFrame] = []
        for try await au in encoder.encodedFrames(from: frames) { out.append(au) }
        #expect(out.count == 45)
        #expect(out.map(\.pts).sorted() == Array(0..<45))
        #expect(zip(out, out.dropFirst()).allSatisfy { $0.dts < $1.dts })  // decoding order
        #expect(out.first?.isSyncSample == true)
        #expect(frames.droppedFrameCount == 0)
    }

    @Test func cancellationStopsTheEncoderWithinAFrame() async throws {
        let encoder = AsyncFrameEncoder(try X264Encoder(options: X264Support.config()))
        let frames = PatternFrames(source: try TestPatternSource(width: 160, height: 96, frameCount: 0),
                                   count: nil, pulled: .init())
        let received = Atomic(0)
        let task = Task {
            for try await _ in encoder.encodedFrames(from: frames) { received.add(1, ordering: .relaxed) }
        }
        while received.load(ordering: .relaxed) < 20 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        let pulledAtCancel = frames.pulled.current
        let clock = ContinuousClock()
        let started = clock.now
        let result = await task.result
        let elapsed = clock.now - started
        #expect(throws: CancellationError.self) { try result.get() }
        // When the cancelled task runs again is the cooperative pool's business (on two cores a
        // full `swift test` can hold it for many seconds); the exact bound is the frames pulled.
        #expect(elapsed < .seconds(60))
        // At most the frame in flight was pulled after the cancel.
        #expect(frames.pulled.current <= pulledAtCancel + 1)
        // The encoder stopped: a later frame goes in after the last one pulled, not flushed.
        let next = try TestPatternSource(width: 160, height: 96).makeFrame(frames.pulled.current)
        _ = try await encoder.encode(next)
        #expect(try await encoder.flush().count > 0)
    }
}
