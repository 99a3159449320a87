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
/// let encoder = try X264Encoder(options: config)   // Sendable
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
/// ## The end of the frames
///
/// ``start(_:onEnd:)`` also reports when the frames are over, and why: it calls its `onEnd`
/// exactly once, after the last call to the consumer, with nil (the source ran out or was
/// stopped) or the error that ended it. Both methods are requirements with no default, so a
/// conformer that gets either signature slightly wrong (a `throws` too many, a closure type
/// that differs) does not compile, instead of having a default silently called in its place.
/// Each takes one line to write from the other:
///
/// - a pull source writes `start(_:)` and implements `start(_:onEnd:)` with
///   ``reportingEndOnReturn(_:onEnd:)``, which calls `start(_:)` and reports its return or its
///   error;
/// - a push source writes `start(_:onEnd:)` (its capture thread calls `onEnd` when it stops,
///   runs out or fails, a camera unplugged) and `start(_:)` as
///   `start(consumer, onEnd: { _ in })`. A caller that waits for the end (the `H264Video`
///   module's `frames()`, an `AsyncSequence` of the frames) uses `start(_:onEnd:)`.
///
/// ```swift
/// final class Camera: FrameSource {            // a push source
///     func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {
///         start(consumer, onEnd: { _ in })
///     }
///     func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void,
///                onEnd: @escaping @Sendable ((any Error)?) -> Void) {
///         // keep both; the capture thread calls consumer per frame and onEnd once at the end
///     }
///     func stop() { /* ask the capture thread to stop */ }
/// }
/// ```
///
/// ## Errors
///
/// A source's errors and its consumer's are of different modules (a Y4M reader's `H264VideoError`,
/// the caller's own file errors, an encoder's `X264Error`), so ``start(_:)`` throws untyped.
/// An error thrown by the consumer stops the source: a pull source rethrows it unchanged from
/// `start`; a push source, which has already returned, drops the consumer (the error stays
/// with the caller's code that threw it).
public protocol FrameSource: AnyObject, Sendable {
    /// Delivers frames to `consumer` until the source ends or ``stop()`` is called; see the
    /// protocol's discussion for where and when the consumer is called.
    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws

    /// Delivers frames to `consumer` as ``start(_:)`` does, and calls `onEnd` exactly once
    /// after the last call to the consumer: with nil when the source ran out or was stopped,
    /// with the error that ended it otherwise (its own, or the consumer's). Errors go to
    /// `onEnd`, never thrown.
    ///
    /// A pull source implements it with ``reportingEndOnReturn(_:onEnd:)``; a push source
    /// writes it: see the protocol's discussion.
    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void)

    /// Asks the source to stop delivering frames. Safe to call from any thread, more than
    /// once, and from inside the consumer.
    func stop()
}

extension FrameSource {
    /// `start(_:onEnd:)` for a pull source (its ``start(_:)`` returns when it has run out, been
    /// stopped or failed): calls ``start(_:)``, then `onEnd` with nil or the error it threw.
    ///
    /// ```swift
    /// func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void,
    ///            onEnd: @escaping @Sendable ((any Error)?) -> Void) {
    ///     reportingEndOnReturn(consumer, onEnd: onEnd)
    /// }
    /// ```
    public func reportingEndOnReturn(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void,
                                     onEnd: @escaping @Sendable ((any Error)?) -> Void) {
        do {
            try start(consumer)
            onEnd(nil)
        } catch {
            onEnd(error)
        }
    }
}
