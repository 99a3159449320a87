/// A producer of ``VideoFrame``s with timestamps: a camera or screen capturer, a file reader,
/// a test pattern.
///
/// ``start(_:)`` hands the source a consumer, which it calls once per frame, in presentation
/// order, until the source runs out or ``stop()`` is called. The consumer is `@escaping` and
/// `@Sendable`, so a source may keep it and call it from any thread:
///
/// - A *pull* source (the `H264Video` module's Y4M, raw-frame and test-pattern sources)
///   delivers on the caller's thread and returns from `start` when it runs out or is stopped.
/// - A *push* source (a capturer that owns a capture thread, a `DispatchQueue`, or a C
///   callback, as OpenTok's `OTVideoCapture` owns its `videoCaptureConsumer`) stores the
///   consumer, returns from `start` at once, and calls it from its own thread until `stop`.
///
/// ```swift
/// let encoder = try X264Encoder(configuration: config)   // Sendable
/// try capturer.start { frame in
///     for au in try encoder.encode(frame) { sink.write(au) }
/// }
/// // ... later, from any thread:
/// capturer.stop()
/// ```
///
/// ``stop()`` may be called from any thread, and from inside the consumer; the source
/// delivers no frame after its next check of the stop request (a pull source checks before
/// each frame, so at most the frame being delivered completes).
///
/// ## Errors
///
/// A source's errors and its consumer's are of different modules (a Y4M reader's `H264Error`,
/// the caller's own file errors, an encoder's `X264Error`), so ``start(_:)`` throws untyped.
/// An error thrown by the consumer stops the source: a pull source rethrows it unchanged from
/// `start`; a push source, which has already returned, drops the consumer (the error stays
/// with the caller's code that threw it).
public protocol FrameSource: AnyObject, Sendable {
    /// Delivers frames to `consumer` until the source ends or ``stop()`` is called; see the
    /// protocol's discussion for where and when the consumer is called.
    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws

    /// Asks the source to stop delivering frames. Safe to call from any thread, more than
    /// once, and from inside the consumer.
    func stop()
}
