import Foundation
import H264
import H264Video
import Synchronization
import Testing

private struct SourceFailure: Error, Equatable { let frame: Int }

/// What a test source records: frames begun (before the consumer is called), stop calls, and
/// whether its delivery has ended (a pull source's `start` returned, a push source's thread
/// ended).
private final class Record: Sendable {
    let begun = Atomic(0)
    let stops = Atomic(0)
    let ended = Atomic(false)
    var begunCount: Int { begun.load(ordering: .relaxed) }
    var stopCount: Int { stops.load(ordering: .relaxed) }
    var hasEnded: Bool { ended.load(ordering: .relaxed) }
}

private let pattern = try! TestPatternSource(width: 16, height: 16, frameCount: 0)

/// A pull source: delivers on the caller's thread, `count` frames (pts 0, 1, ...) or until
/// stopped, optionally throwing before frame `failAt`.
private final class PullSource: FrameSource {
    let record = Record()
    let count: Int
    let failAt: Int?
    private let stopped = Atomic(false)

    init(count: Int, failAt: Int? = nil) {
        self.count = count
        self.failAt = failAt
    }

    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {
        defer { record.ended.store(true, ordering: .relaxed) }
        var index = 0
        while index < count && !stopped.load(ordering: .relaxed) {
            if index == failAt { throw SourceFailure(frame: index) }
            record.begun.add(1, ordering: .relaxed)
            try consumer(try pattern.makeFrame(index))
            index += 1
        }
    }

    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void) {
        reportingEndOnReturn(consumer, onEnd: onEnd)
    }

    func stop() {
        record.stops.add(1, ordering: .relaxed)
        stopped.store(true, ordering: .relaxed)
    }
}

/// A push capturer as a user writes one: `start(_:onEnd:)` keeps the consumer, starts its own
/// capture thread and returns at once; the thread delivers `count` frames as fast as it can
/// (or until stopped, or fails after `failAt`), then reports the end. With `holdAfterFirst`,
/// it waits after the first frame until ``release()``.
private final class PushCapturer: FrameSource {
    let record = Record()
    let count: Int
    let failAt: Int?
    private let held: Atomic<Bool>
    let startThreads = Mutex<[String]>([])
    private let stopped = Atomic(false)

    init(count: Int, failAt: Int? = nil, holdAfterFirst: Bool = false) {
        self.count = count
        self.failAt = failAt
        self.held = Atomic(holdAfterFirst)
    }

    func release() { held.store(false, ordering: .relaxed) }

    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {
        start(consumer, onEnd: { _ in })
    }

    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void) {
        stopped.store(false, ordering: .relaxed)
        Thread.detachNewThread { [self] in
            var failure: (any Error)?
            var index = 0
            while index < count && !stopped.load(ordering: .relaxed) {
                if index == failAt { failure = SourceFailure(frame: index); break }
                record.begun.add(1, ordering: .relaxed)
                do { try consumer(try pattern.makeFrame(index)) } catch { failure = error; break }
                while index == 0 && held.load(ordering: .relaxed) { usleep(100) }
                index += 1
            }
            record.ended.store(true, ordering: .relaxed)
            onEnd(failure)
        }
    }

    func stop() {
        record.stops.add(1, ordering: .relaxed)
        stopped.store(true, ordering: .relaxed)
    }
}

/// Polls `condition` every 2 ms until it holds or `limit` passes; true when it held.
private func eventually(within limit: Duration = .seconds(10), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// Polls `condition` every 2 ms until it holds, with no deadline of its own: for progress that
/// needs another task to run. How soon a task runs is the cooperative pool's business — in a
/// full `swift test` on two cores, synchronous tests that wait for child processes held the
/// pool for more than 120 s — so such waits are bounded by the suite's time limit instead of a
/// clock, and a broken sequence still fails (the limit cancels the test).
private func whenTasksHaveRun(_ condition: () -> Bool) async throws {
    while !condition() { try await Task.sleep(for: .milliseconds(2)) }
}

/// Cancels `task`, which iterates a source's frames: it ends with `CancellationError`, the
/// source's `stop()` was called, and its delivery ends within a second of that. (How soon the
/// cancelled task itself runs again is the cooperative pool's business: with the whole suite
/// running on two cores it took 27 s once, so it is not timed here; `cancellationCallsStopAtOnce`
/// checks the sequence's own bound.)
private func cancelAndCheck<T>(_ task: Task<T, any Error>, record: Record) async throws {
    task.cancel()
    let result = await task.result
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(record.stopCount >= 1)
    #expect(try await eventually(within: .seconds(1)) { record.hasEnded })
}

@Suite(.timeLimit(.minutes(10))) struct FrameSourceSequenceTests {
    @Test func pullSourceGivesEveryFrameInOrderOffTheCooperativePool() async throws {
        let source = PullSource(count: 40)
        let frames = source.frames()
        var pts: [Int64] = []
        for try await frame in frames { pts.append(frame.pts) }
        #expect(pts == Array(0..<40))
        #expect(frames.droppedFrameCount == 0)
        #expect(source.record.hasEnded)
    }

    /// The library's own sources deliver on the thread that calls `start`: the sequence runs
    /// it on a thread of its own, not in a task.
    @Test func startRunsOutsideAnyTask() async throws {
        final class TaskProbe: FrameSource {
            let insideATask = Atomic(true)
            func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {
                insideATask.store(withUnsafeCurrentTask { $0 != nil }, ordering: .relaxed)
                try consumer(try pattern.makeFrame(0))
            }
            func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void) {
                reportingEndOnReturn(consumer, onEnd: onEnd)
            }
            func stop() {}
        }
        let probe = TaskProbe()
        var count = 0
        for try await _ in probe.frames() { count += 1 }
        #expect(count == 1)
        let inside = probe.insideATask.load(ordering: .relaxed)
        #expect(!inside)
    }

    /// Back-pressure: nothing is lost, and the source never runs more than the capacity (and
    /// the frame it is delivering) ahead of a slow consumer.
    @Test func backPressureHoldsTheSourceBack() async throws {
        let source = PullSource(count: 30)
        let frames = source.frames(buffering: .waitForConsumer(capacity: 2))
        var taken = 0
        var maxAhead = 0
        for try await frame in frames {
            #expect(frame.pts == Int64(taken))
            taken += 1
            try await Task.sleep(for: .milliseconds(3))
            maxAhead = max(maxAhead, source.record.begunCount - taken)
        }
        #expect(taken == 30)
        #expect(frames.droppedFrameCount == 0)
        #expect(maxAhead <= 2 + 1)
        #expect(maxAhead >= 1)  // it did run ahead: the buffer was used
    }

    /// A push capturer delivers 60 frames while the consumer holds the first: the policy keeps
    /// `capacity` of the other 59, and counts the rest as dropped.
    @Test(arguments: [FrameBuffering.Overflow.dropOldest, .dropNewest])
    func dropPolicyUnderASlowConsumer(_ overflow: FrameBuffering.Overflow) async throws {
        let capturer = PushCapturer(count: 60, holdAfterFirst: true)
        let frames = capturer.frames(buffering: FrameBuffering(capacity: 3, overflow: overflow))
        var iterator = frames.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.pts == 0)
        capturer.release()
        #expect(try await eventually { capturer.record.hasEnded })
        var rest: [Int64] = []
        while let frame = try await iterator.next() { rest.append(frame.pts) }
        #expect(rest == (overflow == .dropOldest ? [57, 58, 59] : [1, 2, 3]))
        #expect(frames.droppedFrameCount == 56)
    }

    /// The same under a steadily slow consumer: some frames dropped, every one counted, the
    /// rest in order, and the newest kept.
    @Test func dropOldestWithAThreadedCapturerKeepsTheNewest() async throws {
        let capturer = PushCapturer(count: 200)
        let frames = capturer.frames(buffering: .dropOldest(capacity: 2))
        var pts: [Int64] = []
        for try await frame in frames {
            pts.append(frame.pts)
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(frames.droppedFrameCount > 0)
        #expect(pts.count + frames.droppedFrameCount == 200)
        #expect(pts == pts.sorted() && Set(pts).count == pts.count)
        #expect(pts.last == 199)
    }

    @Test func cancellationStopsAPullSourceWithinABound() async throws {
        let source = PullSource(count: .max)
        let taken = Atomic(0)
        let task = Task {
            for try await _ in source.frames() {
                taken.add(1, ordering: .relaxed)
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        try await whenTasksHaveRun { taken.load(ordering: .relaxed) >= 5 }
        // The source's thread returns from start: it was waiting for room, or about to.
        try await cancelAndCheck(task, record: source.record)
    }

    @Test func cancellationStopsAPushCapturer() async throws {
        let capturer = PushCapturer(count: .max)
        let frames = capturer.frames(buffering: .dropOldest(capacity: 2))
        let task = Task {
            var count = 0
            for try await _ in frames { count += 1 }
            return count
        }
        try await whenTasksHaveRun { capturer.record.begunCount >= 20 }
        try await cancelAndCheck(task, record: capturer.record)
    }

    /// A task waiting for a frame: cancelling it calls the source's `stop()` before `cancel()`
    /// returns (the cancellation handler runs on the cancelling thread), and the task ends with
    /// `CancellationError`.
    @Test func cancellationCallsStopAtOnce() async throws {
        final class IdleCapturer: FrameSource {
            let started = Atomic(false)
            let stops = Atomic(0)
            func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {}
            func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void) {
                started.store(true, ordering: .relaxed)
            }
            func stop() { stops.add(1, ordering: .relaxed) }
        }
        let capturer = IdleCapturer()
        let task = Task { for try await _ in capturer.frames() {} }
        // Started from the first next(), inside its cancellation handler's scope.
        try await whenTasksHaveRun { capturer.started.load(ordering: .relaxed) }
        task.cancel()
        let stops = capturer.stops.load(ordering: .relaxed)
        #expect(stops == 1)
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    /// Leaving the loop early (no cancellation) releases a source that waits for room.
    @Test func breakingOutStopsTheSource() async throws {
        let source = PullSource(count: .max)
        for try await frame in source.frames(buffering: .waitForConsumer(capacity: 1)) where frame.pts == 3 { break }
        #expect(try await eventually(within: .seconds(1)) { source.record.hasEnded })
        #expect(source.record.stopCount >= 1)
        #expect(source.record.begunCount <= 4 + 2)
    }

    @Test func aPullSourceErrorEndsTheSequenceAfterItsFrames() async throws {
        var pts: [Int64] = []
        await #expect(throws: SourceFailure(frame: 5)) {
            for try await frame in PullSource(count: 10, failAt: 5).frames() { pts.append(frame.pts) }
        }
        #expect(pts == [0, 1, 2, 3, 4])
    }

    @Test func aPushCapturerErrorEndsTheSequenceAfterItsFrames() async throws {
        var pts: [Int64] = []
        await #expect(throws: SourceFailure(frame: 5)) {
            for try await frame in PushCapturer(count: 10, failAt: 5).frames(buffering: .waitForConsumer(capacity: 8)) {
                pts.append(frame.pts)
            }
        }
        #expect(pts == [0, 1, 2, 3, 4])
    }

    /// A push capturer's end (its `onEnd`) ends the sequence: all frames, then nil.
    @Test func aPushCapturerThatRunsOutEndsTheSequence() async throws {
        let capturer = PushCapturer(count: 25)
        var count = 0
        for try await _ in capturer.frames() { count += 1 }
        #expect(count == 25)
    }

    @Test func stopEndsTheSequenceAfterTheWaitingFrames() async throws {
        let capturer = PushCapturer(count: .max)
        let frames = capturer.frames(buffering: .waitForConsumer(capacity: 4))
        var pts: [Int64] = []
        for try await frame in frames {
            pts.append(frame.pts)
            if frame.pts == 10 { frames.stop() }
        }
        #expect(capturer.record.stopCount >= 1)
        #expect(pts == Array(0..<Int64(pts.count)))
        #expect(pts.count >= 11 && pts.count <= 11 + 4)
        #expect(try await eventually(within: .seconds(1)) { capturer.record.hasEnded })
    }

    @Test func aSecondIteratorIsATypedError() async throws {
        let frames = PullSource(count: 3).frames()
        var first = frames.makeAsyncIterator()
        var second = frames.makeAsyncIterator()
        await #expect(throws: H264VideoError.self) { _ = try await second.next() }
        #expect(try await first.next()?.pts == 0)
    }

    /// A push source whose author reports its end at the return of `start(_:)` (written with
    /// `reportingEndOnReturn`, as for a pull source): its frames end when `start` returns, and
    /// the sequence stops it. (A source that writes neither method cannot conform: the
    /// protocol has no default for either, so no near-miss signature is silently bypassed.)
    @Test func aPushSourceReportingItsEndOnReturnEndsThere() async throws {
        final class PlainPush: FrameSource {
            let inner = PushCapturer(count: .max)
            func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws { try inner.start(consumer) }
            func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void) {
                reportingEndOnReturn(consumer, onEnd: onEnd)
            }
            func stop() { inner.stop() }
        }
        let source = PlainPush()
        var count = 0
        for try await _ in source.frames() { count += 1 }
        // A few frames may come before start's return is reported (capacity 2 + 1 in hand,
        // more if that thread is descheduled meanwhile); an endless capturer is not followed.
        #expect(count <= 100)
        #expect(source.inner.record.stopCount >= 1)
        #expect(try await eventually(within: .seconds(1)) { source.inner.record.hasEnded })
    }
}
