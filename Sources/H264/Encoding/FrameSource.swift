/// A producer of ``VideoFrame``s with timestamps: a camera or screen capturer, a file reader,
/// a test pattern.
///
/// ``start(_:)`` delivers frames to the consumer, in presentation order; the sources of the
/// `H264Video` module produce them on the caller's thread and return when they run out or when
/// ``stop()`` is called (from the consumer or another thread). A capturer that produces frames
/// on its own thread returns from `start` at once instead and delivers until `stop`.
///
/// A source's errors and its consumer's are of different modules (a Y4M reader's `H264Error`,
/// the caller's own file errors, an encoder's `X264Error`), so ``start(_:)`` throws untyped:
/// whatever the consumer or the source's read function throws comes back unchanged.
public protocol FrameSource: AnyObject {
    /// Delivers frames to `consumer` until the source ends or ``stop()`` is called. An error
    /// thrown by the consumer stops the source and is rethrown.
    func start(_ consumer: (VideoFrame) throws -> Void) throws

    /// Asks the source to stop delivering frames.
    func stop()
}
