import H264
import MediaSupport
import Synchronization

/// A `FrameSource` over a Y4M stream read in chunks by a caller-supplied function (a file,
/// stdin, a pipe, memory).
///
/// A pull source: ``start(_:)`` reads, parses and delivers on the caller's thread, and returns
/// at the end of the stream or after ``stop()`` (from any thread, or from the consumer).
///
/// - Complexity: O(stream bytes); memory holds one chunk and the frame being parsed.
public final class Y4MSource: FrameSource {
    private struct State {
        var parser = Y4MParser()
        var pending: VideoFrame?
    }

    private let read: @Sendable () throws -> [UInt8]?
    private let state = ThreadLock(State())
    private let stopped = Atomic(false)

    /// The stream header, once read (by ``readHeader()`` or by ``start(_:)``).
    public var header: Y4MHeader? { state.withLock { $0.parser.header } }

    /// Creates a source; `read` returns the next chunk of the stream, or nil at its end. What
    /// `read` throws, ``readHeader()`` and ``start(_:)`` rethrow unchanged.
    public init(read: @escaping @Sendable () throws -> [UInt8]?) { self.read = read }

    /// Reads and parses until the header is known, without delivering a frame.
    ///
    /// - Throws: what `read` throws; header errors (an `H264VideoError`, see ``Y4MHeader/init(line:)``);
    ///   `H264VideoError.Code.truncated` when the stream ends first.
    public func readHeader() throws -> Y4MHeader {
        while true {
            let header = try state.withLock { (s: inout State) throws(H264VideoError) -> Y4MHeader? in
                if s.parser.header == nil, s.pending == nil, let f = try s.parser.nextFrame() { s.pending = f }
                return s.parser.header
            }
            if let header { return header }
            guard let chunk = try read() else { throw H264VideoError.invalid(.truncated, "Y4M stream has no header") }
            state.withLock { $0.parser.append(chunk) }
        }
    }

    /// Delivers every frame of the stream on the caller's thread; returns at its end or after
    /// ``stop()``.
    ///
    /// - Throws: what `read` or `consumer` throws; the parser's `H264VideoError`s.
    public func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {
        stopped.store(false, ordering: .relaxed)
        while !stopped.load(ordering: .relaxed) {
            let frame = try state.withLock { (s: inout State) throws(H264VideoError) -> VideoFrame? in
                if let f = s.pending { s.pending = nil; return f }
                return try s.parser.nextFrame()
            }
            if let frame {
                try consumer(frame)
                continue
            }
            guard let chunk = try read() else {
                try state.withLock { (s: inout State) throws(H264VideoError) in try s.parser.finish() }
                return
            }
            state.withLock { $0.parser.append(chunk) }
        }
    }

    /// Delivers the frames as ``start(_:)`` does, on this thread, then reports its return (nil)
    /// or its error to `onEnd`.
    public func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void) {
        reportingEndOnReturn(consumer, onEnd: onEnd)
    }

    /// Asks ``start(_:)`` to return before the next frame; safe from any thread.
    public func stop() { stopped.store(true, ordering: .relaxed) }
}
