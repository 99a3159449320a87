import H264
import MediaSupport

/// What a ``FrameSourceSequence`` shares between its source's thread and the task that takes
/// the frames: the package's bounded queue (``FrameBuffering`` is its capacity and overflow
/// policy), and whether the source has started.
///
/// The source delivers with ``deliver(_:)`` (from its thread), reports its end with
/// ``sourceEnded(_:)``; the consumer takes frames with ``next()``; ``stop()`` ends the frames
/// after those that wait, ``terminate()`` at once (cancellation, the iterator dropped).
final class FrameChannel: Sendable {
    private struct State {
        /// The one iterator that may take the frames has been made.
        var claimed = false
        /// The source was started (or will never be: the frames ended first).
        var started = false
    }

    let source: any FrameSource
    private let frames: BoundedQueue<VideoFrame>
    private let state = ThreadLock(State())

    init(source: any FrameSource, buffering: FrameBuffering) {
        self.source = source
        let overflow: BoundedQueue<VideoFrame>.Overflow
        switch buffering.overflow {
        case .waitForConsumer: overflow = .block
        case .dropOldest: overflow = .dropOldest
        case .dropNewest: overflow = .dropNewest
        }
        frames = BoundedQueue(capacity: buffering.capacity, overflow: overflow)
    }

    var droppedFrameCount: Int { frames.statistics.dropped }

    /// True the first time: the one iterator that may take the frames.
    func claim() -> Bool {
        state.withLock { s in
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
            startIfIdle()
            return try await frames.next()
        } onCancel: {
            terminate()
        }
    }

    private func startIfIdle() {
        let start = state.withLock { s in
            defer { s.started = true }
            return !s.started
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
        do throws(BlockingWorker.ThreadStartError) {
            // A pull source blocks in `start` as long as it reads: a thread of its own, never
            // one of the cooperative pool's.
            try BlockingWorker.detach { source.start(consumer, onEnd: onEnd) }
        } catch {
            sourceEnded(H264VideoError.invalid(.limitExceeded, "cannot start a thread for the frame source (error \(error.code))"))
        }
    }

    // MARK: The source's side

    /// Hands `frame` to the waiting consumer, or queues it, or applies the overflow policy
    /// (waiting for room under back-pressure).
    /// - Throws: `CancellationError` when the frames have ended (the consumer stopped them or
    ///   went away): the source stops.
    func deliver(_ frame: VideoFrame) throws {
        if frames.push(frame) == .closed { throw CancellationError() }
    }

    /// The source's end: the consumer gets the waiting frames, then nil or `error`. Ignored
    /// when the frames have already ended (stopped, cancelled).
    func sourceEnded(_ error: (any Error)?) {
        frames.close(error)
    }

    // MARK: Ending

    /// Stops the source; the consumer gets the frames that wait, then nil.
    func stop() {
        state.withLock { $0.started = true }  // a source not started yet never starts
        frames.close()  // a source waiting for room gets CancellationError and stops
        source.stop()
    }

    /// Ends the frames at once: the waiting frames are dropped, a suspended `next()` throws
    /// `CancellationError`, the source is stopped.
    func terminate() {
        state.withLock { $0.started = true }
        frames.cancel()
        source.stop()
    }
}
