import Dispatch
import FLV
import H264

/// RTMP publishing for Swift concurrency: `async` connect, send, finish and whole-sequence
/// publishing that never block a thread of the cooperative pool, and that stop when their task
/// is cancelled, whatever the server does.
///
/// ```swift
/// let encoder = AsyncFrameEncoder(try X264Encoder(configuration: config))
/// let rtmp = try await AsyncRTMPPublisher(url: "rtmp://live.example.com/app/key", metadata: metadata,
///                                         parameterSets: encoder.encoder.parameterSets)
/// let statistics = try await rtmp.publish(encoder.encodedFrames(from: frames))
/// ```
///
/// Built on the synchronous ``RTMPVideoPublisher`` (the fast path: `send` only queues): every
/// call that waits for the network (the connection and `publish` handshake, ``finish(timeoutMilliseconds:)``,
/// a ``send(_:)`` under ``RTMPPublisher/OverflowPolicy/block(maximumWaitMilliseconds:)``)
/// runs on this publisher's own serial `DispatchQueue` while the task suspends. Samples go in
/// as the encoder or the parser hands them over (any `AccessUnitSample`): the library converts
/// their timestamps to milliseconds, writes composition times, shifts a negative first DTS and
/// sends a new sequence header when the parameter sets change.
///
/// ## Cancellation
///
/// When the task awaiting a call is cancelled, the call throws ``RTMPError/Code/cancelled``
/// at once, from the cancellation handler (it does not wait for the server, nor for the
/// deadline of the operation in progress), and the publisher is cancelled
/// (``RTMPPublisher/cancel()``): queued frames are dropped and the connection is closed
/// without a goodbye. The socket is closed by the publisher's queue as soon as its current
/// system call returns; every wait on the socket also watches the interrupt that cancellation
/// fires, so that is at once (a DNS lookup in progress, which cannot be interrupted, finishes
/// first: connect by address where that matters). A call made after cancellation throws
/// ``RTMPError/Code/cancelled`` too.
///
/// - Complexity: memory is the publisher's bounded queue (``RTMPPublisher/Options/queueCapacity``
///   frames) plus one sample being framed.
public final class AsyncRTMPPublisher: Sendable {
    /// The synchronous publisher underneath (its ``RTMPVideoPublisher/publisher`` has the
    /// statistics and the error).
    public let publisher: RTMPVideoPublisher
    private let queue: DispatchQueue

    /// Connects, publishes `url` and queues the metadata, off the cooperative pool.
    /// - Parameters:
    ///   - url: `rtmp://host[:port]/app/stream`.
    ///   - metadata: the `onMetaData` to send first.
    ///   - parameterSets: SPS and PPS known before the first frame (an encoder's
    ///     `parameterSets`), for samples that do not carry them in band.
    ///   - options: publisher settings (timeouts, queue capacity, overflow policy).
    /// - Throws: ``RTMPError/Code/cancelled`` when the task is cancelled (at once; the
    ///   connection in progress is abandoned and closed), and the errors of
    ///   ``RTMPVideoPublisher/init(url:metadata:parameterSets:options:)``.
    public init(url: String, metadata: FLVMetadata, parameterSets: [NALUnit] = [],
                options: RTMPPublisher.Options = .init()) async throws(RTMPError) {
        let interrupt = SocketInterrupt()
        let queue = DispatchQueue(label: "swift-h264.rtmp.async-publisher")
        publisher = try await BlockingCall.run(on: queue, onCancel: { interrupt.fire() },
                                               discard: { $0.publisher.cancel() }) { () throws(RTMPError) in
            try RTMPVideoPublisher(url: url, metadata: metadata, parameterSets: parameterSets, options: options,
                                   interrupt: interrupt)
        }
        self.queue = queue
    }

    /// Queues one access unit or encoded frame (see ``RTMPVideoPublisher/send(_:)``).
    ///
    /// With the default overflow policy (``RTMPPublisher/OverflowPolicy/dropUntilKeyframe``)
    /// this never waits; with `.block(maximumWaitMilliseconds:)` the wait runs on the
    /// publisher's queue.
    /// - Returns: false when the overflow policy dropped the frame.
    /// - Throws: ``RTMPError/Code/cancelled`` when the task is cancelled (the publisher is
    ///   cancelled with it), and the errors of ``RTMPVideoPublisher/send(_:)``.
    @discardableResult
    public func send(_ sample: some AccessUnitSample) async throws(RTMPError) -> Bool {
        try checkCancellation()
        switch publisher.publisher.options.overflowPolicy {
        case .dropUntilKeyframe:
            return try publisher.send(sample)
        case .block:
            let publisher = self.publisher
            return try await BlockingCall.run(on: queue, onCancel: { publisher.publisher.cancel() }) { () throws(RTMPError) in
                try publisher.send(sample)
            }
        }
    }

    /// Sends what is queued, the end of sequence, `FCUnpublish` and `deleteStream`, and closes
    /// the connection, off the cooperative pool; returns the counters.
    /// - Parameter timeoutMilliseconds: the deadline for the queue to drain and the goodbye.
    /// - Throws: ``RTMPError/Code/cancelled`` when the task is cancelled (at once: the
    ///   publisher is cancelled and closes without a goodbye), and the errors of
    ///   ``RTMPVideoPublisher/finish(timeoutMilliseconds:)``.
    @discardableResult
    public func finish(timeoutMilliseconds: Int = 10_000) async throws(RTMPError) -> RTMPPublisher.Statistics {
        try checkCancellation()
        let publisher = self.publisher
        return try await BlockingCall.run(on: queue, onCancel: { publisher.publisher.cancel() }) { () throws(RTMPError) in
            try publisher.finish(timeoutMilliseconds: timeoutMilliseconds)
        }
    }

    /// Publishes every sample of `samples` (an `AsyncFrameEncoder`'s encoded frames, a
    /// parser's access units), then finishes; returns the counters.
    ///
    /// The samples are pulled one at a time: with the default overflow policy a slow server
    /// drops frames up to the next keyframe instead of holding the producer back.
    ///
    /// - Parameters:
    ///   - samples: the access units or encoded frames, in decoding order.
    ///   - finishTimeoutMilliseconds: the deadline of the final ``finish(timeoutMilliseconds:)``.
    /// - Throws: what `samples` throws (a `CancellationError` from an encoder's sequence, a
    ///   read error), unchanged; ``RTMPError/Code/cancelled`` when the task is cancelled; the
    ///   publisher's errors. On any error the publisher is cancelled (closed without a
    ///   goodbye) before the error is thrown.
    @discardableResult
    public func publish<Samples: AsyncSequence>(_ samples: Samples, finishTimeoutMilliseconds: Int = 10_000) async throws
        -> RTMPPublisher.Statistics where Samples.Element: AccessUnitSample {
        do {
            for try await sample in samples { try await send(sample) }
        } catch {
            cancel()
            throw error
        }
        return try await finish(timeoutMilliseconds: finishTimeoutMilliseconds)
    }

    /// Stops the publisher at once (``RTMPPublisher/cancel()``): from any thread, any number
    /// of times.
    public func cancel() { publisher.publisher.cancel() }

    /// The counters so far.
    public var statistics: RTMPPublisher.Statistics { publisher.publisher.statistics }

    /// Cancels the publisher and throws ``RTMPError/Code/cancelled`` when the task is cancelled.
    private func checkCancellation() throws(RTMPError) {
        guard Task.isCancelled else { return }
        cancel()
        throw RTMPError.invalid(.cancelled, "the task was cancelled")
    }
}
