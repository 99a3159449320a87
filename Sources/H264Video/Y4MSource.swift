import H264

/// A ``FrameSource`` over a Y4M stream read in chunks by a caller-supplied function (a file,
/// stdin, a pipe, memory).
public final class Y4MSource: FrameSource {
    private let read: () throws -> [UInt8]?
    private var parser = Y4MParser()
    private var stopped = false

    /// The stream header, once the first frame has been delivered.
    public var header: Y4MHeader? { parser.header }

    /// Creates a source; `read` returns the next chunk of the stream, or nil at its end. What
    /// `read` throws, ``readHeader()`` and ``start(_:)`` rethrow unchanged.
    public init(read: @escaping () throws -> [UInt8]?) { self.read = read }

    /// Reads and parses until the header is known, without delivering a frame.
    ///
    /// - Throws: what `read` throws; header errors (an `H264Error`, see ``Y4MHeader/init(line:)``);
    ///   ``H264/H264Error/Code/truncated`` when the stream ends first.
    public func readHeader() throws -> Y4MHeader {
        while parser.header == nil {
            if let f = try parser.nextFrame() { pending = f; break }
            guard let chunk = try read() else { throw H264Error.truncated("Y4M stream has no header") }
            parser.append(chunk)
        }
        guard let h = parser.header else { throw H264Error.truncated("Y4M stream has no header") }
        return h
    }
    private var pending: VideoFrame?

    public func start(_ consumer: (VideoFrame) throws -> Void) throws {
        stopped = false
        if let f = pending { pending = nil; try consumer(f) }
        while !stopped {
            if let frame = try parser.nextFrame() {
                try consumer(frame)
                continue
            }
            guard let chunk = try read() else {
                try parser.finish()
                return
            }
            parser.append(chunk)
        }
    }

    public func stop() { stopped = true }
}
