import H264

extension FrameSource {
    /// The frames of this source as an `AsyncSequence`: see ``FrameSourceSequence``.
    ///
    /// ```swift
    /// let encoder = AsyncFrameEncoder(try X264Encoder(options: config))
    /// for try await au in encoder.encodedFrames(from: source.frames()) { try await sink.write(au) }
    /// ```
    ///
    /// - Parameter buffering: how many frames wait for the consumer and what happens when more
    ///   come: back-pressure (the default, right for files and test patterns) or dropping
    ///   (``FrameBuffering/dropOldest(capacity:)`` for a live capturer).
    public func frames(buffering: FrameBuffering = .waitForConsumer()) -> FrameSourceSequence {
        FrameSourceSequence(source: self, buffering: buffering)
    }
}

/// The frames of a `FrameSource` as an `AsyncSequence`, for async stages such as
/// `AsyncFrameEncoder.encodedFrames(from:)`: from any source, pull or push.
///
/// ```swift
/// let frames = capturer.frames(buffering: .dropOldest(capacity: 4))
/// for try await au in encoder.encodedFrames(from: frames) { try await publisher.send(au) }
/// print("dropped \(frames.droppedFrameCount) frames")
/// ```
///
/// **Where the source runs.** The first `next()` starts the source with
/// `start(_:onEnd:)` on a new thread of its own (a POSIX thread, never one of the cooperative
/// pool's): a pull source (``Y4MSource``, ``RawFrameSource``, ``TestPatternSource``) reads and
/// delivers there until it ends; a push source returns at once and delivers from its own
/// thread, and the sequence's thread ends.
///
/// **Buffering.** Up to ``FrameBuffering/capacity`` frames wait for the consumer; a frame that
/// comes when they are all taken makes the source's thread wait (back-pressure, the default) or
/// is dropped, or drops the oldest, as ``FrameBuffering`` says; ``droppedFrameCount`` counts
/// the dropped ones. A frame goes straight to a consumer that is already waiting.
///
/// **The end.** When the source ends (`FrameSource.start(_:onEnd:)` reports it: a pull
/// source's `start` returned, a push source called `onEnd`), the consumer gets the frames that
/// wait, then the end, or the source's error, rethrown unchanged. ``stop()`` stops the source
/// and ends the sequence the same way. A source whose `start(_:onEnd:)` reports the end when
/// its `start(_:)` returns (`reportingEndOnReturn`) ends there.
///
/// **Cancellation.** When the consuming task is cancelled (or the iterator is dropped), the
/// suspended `next()` throws `CancellationError` at once, whatever the source is doing, the
/// waiting frames are released and the source's `stop()` is called. A pull source returns
/// after the frame it is delivering (its consumer throws `CancellationError`, which also wakes
/// a thread waiting for room); a push source stops after its next check of `stop`.
///
/// The sequence can be iterated once: a second iterator throws
/// `H264VideoError.Code.invalidArgument` (call `frames()` again for a new one).
///
/// - Complexity: O(1) per frame besides the source's own work, plus a thread start for the
///   first frame. Memory: at most (``FrameBuffering/capacity`` + 1) frames (those that wait
///   and the one being delivered) × frame size.
public struct FrameSourceSequence: AsyncSequence, Sendable {
    public typealias Element = VideoFrame

    let channel: FrameChannel

    init(source: any FrameSource, buffering: FrameBuffering) {
        channel = FrameChannel(source: source, buffering: buffering)
    }

    /// The frames dropped so far under a dropping ``FrameBuffering`` policy (0 under
    /// back-pressure). Read it from any thread, during the iteration or after.
    public var droppedFrameCount: Int { channel.droppedFrameCount }

    /// Stops the source (its `stop()`); the consumer gets the frames that wait, then the end.
    /// Safe from any thread, more than once. Frames the source delivers after it are not
    /// taken (its consumer throws `CancellationError`, which stops it).
    public func stop() { channel.stop() }

    /// Creates the iterator; the first call's iterator gets the frames.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(iteration: channel.claim() ? Iteration(channel) : nil)
    }

    /// Takes the frames one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let iteration: Iteration?

        /// The next frame, in the order the source delivered them; nil after the last.
        ///
        /// - Throws: `CancellationError` when the task is cancelled; what the source's
        ///   `start(_:onEnd:)` reported, after the frames that were waiting;
        ///   `H264VideoError.Code.limitExceeded` when the system refuses a thread for the source;
        ///   `H264VideoError.Code.invalidArgument` on a second iterator of one sequence.
        public mutating func next() async throws -> VideoFrame? {
            guard let iteration else {
                throw H264VideoError.invalid(.invalidArgument, "the frames of a FrameSourceSequence can be iterated once; call frames() again")
            }
            return try await iteration.channel.next()
        }
    }

    /// Ends the frames when the iterator that took them goes away without reaching the end
    /// (a `break` out of the loop): the source is stopped and its thread released.
    final class Iteration: Sendable {
        let channel: FrameChannel
        init(_ channel: FrameChannel) { self.channel = channel }
        deinit { channel.terminate() }
    }
}
