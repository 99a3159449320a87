import FLV
import H264
import MediaSupport

/// RTMP publishing for Swift concurrency: `async` connect, send, finish and whole-sequence
/// publishing that never block a thread of the cooperative pool, and that stop when their task
/// is cancelled, whatever the server does.
///
/// ```swift
/// let encoder = AsyncFrameEncoder(try X264Encoder(options: config))
/// let rtmp = try await AsyncRTMPPublisher(url: "rtmp://live.example.com/app/key", metadata: metadata,
///                                         parameterSets: encoder.parameterSets)
/// let statistics = try await rtmp.publish(encoder.encodedFrames(from: frames))
/// ```
///
/// Built on the synchronous ``RTMPVideoPublisher`` (the fast path: `send` only queues): every
/// call that waits for the network (the connection and `publish` handshake, ``finish(timeout:)``,
/// a ``send(_:)`` under ``RTMPPublisher/OverflowPolicy/block(maximumWait:)``)
/// runs on this publisher's own thread while the task suspends. Samples go in
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
/// without a goodbye. The socket is closed by the publisher's thread as soon as its current
/// system call returns; every wait on the socket also watches the interrupt that cancellation
/// fires, so that is at once (a DNS lookup in progress, which cannot be interrupted, finishes
/// first: connect by address where that matters). A call made after cancellation throws
/// ``RTMPError/Code/cancelled`` too.
///
/// ## Reconnection
///
/// With ``RTMPPublisher/Options/reconnection`` set, a lost connection is made again with
/// backoff while frames wait in a bounded outage buffer (see ``RTMPPublisher/Reconnection``);
/// each change (lost, retrying, connected, gave up) comes out of ``connectionEvents``.
///
/// ## Restreaming
///
/// ``restream(_:finishTimeout:)`` forwards a publish an ``RTMPServer`` took in
/// (``RTMPIngestStream``) to this publisher's server: its metadata, its access units (the
/// sequence headers made again from the parameter sets the keyframes carry), and its audio and
/// data tags as they came, with their times in step with the video's:
///
/// ```swift
/// for try await ingest in server.publishedStreams {
///     Task {
///         let out = try await AsyncRTMPPublisher(url: "rtmp://cdn.example.com/live/key", metadata: FLVMetadata(),
///                                                options: .init(reconnection: .init()))
///         try await out.restream(ingest)          // out.connectionEvents: lost, retrying, connected
///     }
/// }
/// ```
///
/// With reconnection set, a restream outlives its server's restarts: the outage buffer keeps
/// whole groups of pictures, each with its audio and data (a group dropped takes its audio
/// with it), and on the new connection the metadata and the AAC and AVC sequence headers go
/// first, then the stream from a keyframe.
///
/// - Complexity: memory is the publisher's bounded queue (``RTMPPublisher/Options/queueCapacity``
///   frames), one sample being framed, and while disconnected the outage buffer
///   (``RTMPPublisher/Reconnection/bufferBytes``) and up to ``connectionEventBuffer`` events.
public final class AsyncRTMPPublisher: Sendable {
    /// The synchronous publisher underneath.
    let base: RTMPVideoPublisher
    /// The thread the waiting calls run on, one at a time.
    private let worker: BlockingWorker
    /// The end of ``connectionEvents`` the sender thread yields to.
    private let eventSink: AsyncStream<RTMPPublisher.ConnectionEvent>.Continuation

    /// The changes of the connection when ``RTMPPublisher/Options/reconnection`` is set (lost,
    /// retrying, connected, gave up), in order, for a task to log and alert on: one iterator.
    ///
    /// Bounded: when nobody reads, the newest ``connectionEventBuffer`` events wait and older
    /// ones are dropped. Ends when ``finish(timeout:)`` returns or throws, when the publisher
    /// is cancelled, or when it is released.
    public let connectionEvents: AsyncStream<RTMPPublisher.ConnectionEvent>

    /// The most events ``connectionEvents`` keeps for a reader that lags.
    public static let connectionEventBuffer = 64

    /// Connects, publishes `url` and queues the metadata, off the cooperative pool.
    /// - Parameters:
    ///   - url: `rtmp://host[:port]/app/stream`.
    ///   - metadata: the `onMetaData` to send first.
    ///   - parameterSets: SPS and PPS known before the first frame (an encoder's
    ///     `parameterSets`), for samples that do not carry them in band.
    ///   - options: publisher settings (timeouts, queue capacity, overflow policy,
    ///     reconnection: its events come out of ``connectionEvents``).
    /// - Throws: ``RTMPError/Code/cancelled`` when the task is cancelled (at once; the
    ///   connection in progress is abandoned and closed), and the errors of
    ///   ``RTMPVideoPublisher/init(url:metadata:parameterSets:options:)``.
    public init(url: String, metadata: FLVMetadata, parameterSets: [NALUnit] = [],
                options: RTMPPublisher.Options = .init()) async throws(RTMPError) {
        let interrupt = Interrupt()
        let worker = BlockingWorker()
        let (stream, sink) = AsyncStream.makeStream(of: RTMPPublisher.ConnectionEvent.self,
                                                    bufferingPolicy: .bufferingNewest(Self.connectionEventBuffer))
        do {
            base = try await worker.run(onCancel: { interrupt.fire() }, cancellationError: Self.cancelled,
                                        discard: { $0.cancel() }) { () throws(RTMPError) in
                try RTMPVideoPublisher(url: url, metadata: metadata, parameterSets: parameterSets, options: options,
                                       events: { sink.yield($0) }, interrupt: interrupt)
            }
        } catch {
            sink.finish()
            throw error
        }
        self.worker = worker
        connectionEvents = stream
        eventSink = sink
    }

    deinit { eventSink.finish() }

    /// Queues one access unit or encoded frame (see ``RTMPVideoPublisher/send(_:)``).
    ///
    /// With the default overflow policy (``RTMPPublisher/OverflowPolicy/dropUntilKeyframe``)
    /// this never waits; with `.block(maximumWait:)` the wait runs on the publisher's thread.
    /// - Returns: false when the overflow policy dropped the frame.
    /// - Throws: ``RTMPError/Code/cancelled`` when the task is cancelled (the publisher is
    ///   cancelled with it), and the errors of ``RTMPVideoPublisher/send(_:)``.
    @discardableResult
    public func send(_ sample: some AccessUnitSample) async throws(RTMPError) -> Bool {
        try checkCancellation()
        switch base.connection.options.overflowPolicy {
        case .dropUntilKeyframe:
            return try base.send(sample)
        case .block:
            let publisher = self.base
            return try await worker.run(onCancel: { publisher.cancel() }, cancellationError: Self.cancelled) {
                () throws(RTMPError) in try publisher.send(sample)
            }
        }
    }

    /// Queues an audio or data tag, sent as it is in order with the frames
    /// (``RTMPVideoPublisher/send(tag:time:)``): `time` is its time in milliseconds on the
    /// clock of the samples' timestamps (an ``RTMPIngestStream/Event/tag(_:time:)``'s).
    ///
    /// With the default overflow policy this never waits; with `.block(maximumWait:)` the wait
    /// runs on the publisher's thread.
    /// - Returns: false when the overflow policy dropped the tag.
    /// - Throws: ``RTMPError/Code/cancelled`` when the task is cancelled, and the errors of
    ///   ``RTMPVideoPublisher/send(tag:time:)``.
    @discardableResult
    public func send(tag: FLVTag, time: Int64) async throws(RTMPError) -> Bool {
        try checkCancellation()
        switch base.connection.options.overflowPolicy {
        case .dropUntilKeyframe:
            return try base.send(tag: tag, time: time)
        case .block:
            let publisher = self.base
            return try await worker.run(onCancel: { publisher.cancel() }, cancellationError: Self.cancelled) {
                () throws(RTMPError) in try publisher.send(tag: tag, time: time)
            }
        }
    }

    /// Queues what one event of an ``RTMPIngestStream`` carries, as ``restream(_:finishTimeout:)``
    /// does for each (``RTMPVideoPublisher/forward(_:)-(RTMPIngestStream.Event)``): for a task that reads the ingest
    /// itself (to record it as well) and hands each event on.
    ///
    /// With the default overflow policy this never waits; with `.block(maximumWait:)` the wait
    /// runs on the publisher's thread.
    /// - Returns: false when the event was skipped (a frame before the first random access
    ///   point, a decoder configuration, an end of sequence) or dropped by the overflow policy.
    /// - Throws: ``RTMPError/Code/cancelled`` when the task is cancelled, and the errors of
    ///   ``RTMPVideoPublisher/forward(_:)-(RTMPIngestStream.Event)``.
    @discardableResult
    public func forward(_ event: RTMPIngestStream.Event) async throws(RTMPError) -> Bool {
        try checkCancellation()
        switch base.connection.options.overflowPolicy {
        case .dropUntilKeyframe:
            return try base.forward(event)
        case .block:
            let publisher = self.base
            return try await worker.run(onCancel: { publisher.cancel() }, cancellationError: Self.cancelled) {
                () throws(RTMPError) in try publisher.forward(event)
            }
        }
    }

    /// Queues new `@setDataFrame onMetaData` (never waits, never dropped).
    public func send(metadata: FLVMetadata) {
        base.send(metadata: metadata)
    }

    /// Forwards every event of `ingest` (a publish taken in by an ``RTMPServer``) until it
    /// ends, then finishes; returns the counters.
    ///
    /// Each event goes through ``forward(_:)``:
    /// - ``RTMPIngestStream/Event/metadata(_:)``: sent on (``send(metadata:)``).
    /// - ``RTMPIngestStream/Event/video(_:)``: ``send(_:)``, from the first random access
    ///   point (the frames before one are skipped: nothing could decode them); the access units of keyframes
    ///   carry the parameter sets of the sequence header in force, from which the AVC sequence
    ///   headers are made again (so ``RTMPIngestStream/Event/decoderConfiguration(_:timestamp:)``
    ///   needs no forwarding).
    /// - ``RTMPIngestStream/Event/tag(_:time:)``: audio and data, as they came, at their
    ///   unrolled time (``send(tag:time:)``), in step with the video.
    /// - ``RTMPIngestStream/Event/endOfSequence(timestamp:)``: the finish sends one.
    ///
    /// To record the publish as well, read the ingest yourself (one task may iterate it) and
    /// hand each event to ``forward(_:)``, then call ``finish(timeout:)``.
    ///
    /// The publisher's settings apply: with the default overflow policy a slow server drops
    /// whole groups of pictures (their audio too) rather than hold the ingest back, and with
    /// ``RTMPPublisher/Options/reconnection`` the restream survives its server's restarts.
    /// Audio and data tags count against ``RTMPPublisher/Options/queueCapacity`` as frames do:
    /// beside 30 fps video, AAC at 44.1 kHz (about 43 tags a second) makes the default 60 less
    /// than a second; give a restream more.
    /// - Parameters:
    ///   - ingest: the publish to forward (one task iterates it: this one).
    ///   - finishTimeout: the deadline of the final ``finish(timeout:)`` (10 s by default).
    /// - Throws: the error that ended `ingest` (its publisher went away in the middle of a
    ///   message, fell silent, was refused), unchanged; ``RTMPError/Code/cancelled`` when the
    ///   task is cancelled; the publisher's errors. On any error the publisher is cancelled
    ///   (closed without a goodbye) before the error is thrown.
    @discardableResult
    public func restream(_ ingest: RTMPIngestStream, finishTimeout: Duration = .seconds(10)) async throws
        -> RTMPPublisher.Statistics {
        do {
            for try await event in ingest { try await forward(event) }
        } catch {
            cancel()
            throw error
        }
        return try await finish(timeout: finishTimeout)
    }

    /// Sends what is queued, the end of sequence, `FCUnpublish` and `deleteStream`, and closes
    /// the connection, off the cooperative pool; returns the counters.
    /// - Parameter timeout: the deadline for the queue to drain and the goodbye (10 s by
    ///   default).
    /// - Throws: ``RTMPError/Code/cancelled`` when the task is cancelled (at once: the
    ///   publisher is cancelled and closes without a goodbye), and the errors of
    ///   ``RTMPVideoPublisher/finish(timeout:)``.
    @discardableResult
    public func finish(timeout: Duration = .seconds(10)) async throws(RTMPError) -> RTMPPublisher.Statistics {
        try checkCancellation()
        let publisher = self.base
        defer { eventSink.finish() }
        return try await worker.run(onCancel: { publisher.cancel() }, cancellationError: Self.cancelled) {
            () throws(RTMPError) in try publisher.finish(timeout: timeout)
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
    ///   - finishTimeout: the deadline of the final ``finish(timeout:)`` (10 s by default).
    /// - Throws: what `samples` throws (a `CancellationError` from an encoder's sequence, a
    ///   read error), unchanged; ``RTMPError/Code/cancelled`` when the task is cancelled; the
    ///   publisher's errors. On any error the publisher is cancelled (closed without a
    ///   goodbye) before the error is thrown.
    @discardableResult
    public func publish<Samples: AsyncSequence>(_ samples: Samples, finishTimeout: Duration = .seconds(10)) async throws
        -> RTMPPublisher.Statistics where Samples.Element: AccessUnitSample {
        do {
            for try await sample in samples { try await send(sample) }
        } catch {
            cancel()
            throw error
        }
        return try await finish(timeout: finishTimeout)
    }

    /// Stops the publisher at once (``RTMPPublisher/cancel()``): from any thread, any number
    /// of times.
    public func cancel() {
        base.cancel()
        eventSink.finish()
    }

    /// True once ``cancel()`` was called (or the task that sent was cancelled).
    public var isCancelled: Bool { base.isCancelled }

    /// The counters so far.
    public var statistics: RTMPPublisher.Statistics { base.statistics }

    /// The error that stopped the publisher, if any.
    public var error: RTMPError? { base.error }

    /// The synchronous publisher underneath; its statistics, error and cancellation are now
    /// this publisher's own (``statistics``, ``error``, ``cancel()``, ``isCancelled``).
    @available(*, deprecated, message: "use the publisher's own statistics, error, cancel() and isCancelled")
    public var publisher: RTMPVideoPublisher { base }

    /// Cancels the publisher and throws ``RTMPError/Code/cancelled`` when the task is cancelled.
    private func checkCancellation() throws(RTMPError) {
        guard Task.isCancelled else { return }
        cancel()
        throw Self.cancelled()
    }

    /// The error of a call whose task was cancelled.
    @Sendable private static func cancelled() -> RTMPError {
        RTMPError.invalid(.cancelled, "the task was cancelled")
    }
}
