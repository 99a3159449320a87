import H264
import MediaSupport

/// What a ``FrameSourceSequence`` shares between its source's threads and the task that takes
/// the frames: the waiting frames, the consumer's suspended `next()`, and where the frames are
/// in their life.
///
/// The source delivers with ``deliver(_:)`` (from its thread), reports its end with
/// ``sourceEnded(_:)``; the consumer takes frames with ``next()``; ``stop()`` ends the frames
/// after those that wait, ``terminate()`` at once (cancellation, the iterator dropped).
final class FrameChannel: Sendable {
    enum Phase {
        /// Nothing started yet: the first `next()` starts the source.
        case idle
        /// The source delivers.
        case running
        /// The source has ended or was stopped: the waiting frames go out, then the end (or the
        /// error).
        case ending((any Error)?)
        /// Cancelled, or the iterator went away: the next `next()` throws `CancellationError`.
        case cancelled
        /// The consumer has had the end: nothing more comes.
        case finished
    }

    struct State {
        var phase = Phase.idle
        var frames: FrameQueue
        /// The consumer's `next()`, suspended while no frame waits.
        var waiting: UnsafeContinuation<VideoFrame?, any Error>?
        var dropped = 0
        var claimed = false
    }

    let source: any FrameSource
    let overflow: FrameBuffering.Overflow
    private let lock: ThreadLock<State>

    init(source: any FrameSource, buffering: FrameBuffering) {
        self.source = source
        self.overflow = buffering.overflow
        self.lock = ThreadLock(State(frames: FrameQueue(capacity: buffering.capacity)))
    }

    var droppedFrameCount: Int { lock.withLock { s, _ in s.dropped } }

    /// True the first time: the one iterator that may take the frames.
    func claim() -> Bool {
        lock.withLock { s, _ in
            defer { s.claimed = true }
            return !s.claimed
        }
    }

    // MARK: The consumer's side

    /// The next frame; nil after the end. Starts the source on the first call.
    /// - Throws: `CancellationError` when the task is cancelled; the source's error after the
    ///   frames that were waiting; `H264VideoError.Code.limitExceeded` when no thread could be
    ///   started for the source.
    func next() async throws -> VideoFrame? {
        try await withTaskCancellationHandler {
            // After the cancellation handler when the task was cancelled already: then the
            // source is never started.
            try startIfIdle()
            return try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<VideoFrame?, any Error>) in
                let outcome: Result<VideoFrame?, any Error>? = lock.withLock { s, _ in
                    if let frame = s.frames.popFirst() { return .success(frame) }
                    switch s.phase {
                    case .idle, .running:
                        s.waiting = continuation
                        return nil
                    case .ending(let error):
                        s.phase = .finished
                        return error.map { .failure($0) } ?? .success(nil)
                    case .cancelled:
                        s.phase = .finished
                        return .failure(CancellationError())
                    case .finished:
                        return .success(nil)
                    }
                }
                guard let outcome else { return }
                if case .success(.some) = outcome, overflow == .waitForConsumer { lock.signalAll() }
                continuation.resume(with: outcome)
            }
        } onCancel: {
            terminate()
        }
    }

    private func startIfIdle() throws(H264VideoError) {
        let start = lock.withLock { s, _ in
            guard case .idle = s.phase else { return false }
            s.phase = .running
            return true
        }
        guard start else { return }
        // The closures hold the channel weakly: a push source may keep its consumer after the
        // sequence is gone, and the channel holds the source.
        let source = self.source
        let consumer: @Sendable (VideoFrame) throws -> Void = { [weak self] frame in
            guard let self else { throw CancellationError() }
            try self.deliver(frame)
        }
        let onEnd: @Sendable ((any Error)?) -> Void = { [weak self] error in self?.sourceEnded(error) }
        do {
            try SourceThread.detach { source.start(consumer, onEnd: onEnd) }
        } catch {
            sourceEnded(error)
        }
    }

    // MARK: The source's side

    /// Hands `frame` to the waiting consumer, or queues it, or applies the overflow policy.
    /// - Throws: `CancellationError` when the frames have ended (the consumer stopped them or
    ///   went away): the source stops.
    func deliver(_ frame: VideoFrame) throws {
        let consumer: UnsafeContinuation<VideoFrame?, any Error>? = try lock.withLock { s, waiter in
            while true {
                guard case .running = s.phase else { throw CancellationError() }
                if let waiting = s.waiting {
                    s.waiting = nil
                    return waiting
                }
                if !s.frames.isFull {
                    s.frames.append(frame)
                    return nil
                }
                switch overflow {
                case .waitForConsumer:
                    waiter.wait()
                case .dropOldest:
                    _ = s.frames.popFirst()
                    s.frames.append(frame)
                    s.dropped &+= 1  // one per delivered frame: cannot reach Int.max
                    return nil
                case .dropNewest:
                    s.dropped &+= 1
                    return nil
                }
            }
        }
        consumer?.resume(returning: frame)
    }

    /// The source's end: the consumer gets the waiting frames, then nil or `error`. Ignored
    /// when the frames have already ended (stopped, cancelled).
    func sourceEnded(_ error: (any Error)?) {
        let consumer: UnsafeContinuation<VideoFrame?, any Error>? = lock.withLock { s, _ in
            guard case .running = s.phase else { return nil }
            guard let waiting = s.waiting else {
                s.phase = .ending(error)
                return nil
            }
            // A waiting consumer means no frame waits.
            s.waiting = nil
            s.phase = .finished
            return waiting
        }
        if let error {
            consumer?.resume(throwing: error)
        } else {
            consumer?.resume(returning: nil)
        }
    }

    // MARK: Ending

    /// Stops the source; the consumer gets the frames that wait, then nil.
    func stop() {
        let consumer: UnsafeContinuation<VideoFrame?, any Error>? = lock.withLock { s, _ in
            switch s.phase {
            case .idle, .running:
                if let waiting = s.waiting {
                    s.waiting = nil
                    s.phase = .finished
                    return waiting
                }
                s.phase = .ending(nil)
                return nil
            case .ending, .cancelled, .finished:
                return nil
            }
        }
        lock.signalAll()  // a source waiting for room gets CancellationError and stops
        source.stop()
        consumer?.resume(returning: nil)
    }

    /// Ends the frames at once: the waiting frames are dropped, a suspended `next()` throws
    /// `CancellationError`, the source is stopped.
    func terminate() {
        let consumer: UnsafeContinuation<VideoFrame?, any Error>? = lock.withLock { s, _ in
            s.frames.removeAll()
            if let waiting = s.waiting {
                s.waiting = nil
                s.phase = .finished
                return waiting
            }
            if case .finished = s.phase {} else { s.phase = .cancelled }
            return nil
        }
        lock.signalAll()
        source.stop()
        consumer?.resume(throwing: CancellationError())
    }
}
