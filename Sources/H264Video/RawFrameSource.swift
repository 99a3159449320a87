import H264
import Synchronization

/// A `FrameSource` over headerless raw frames of a known size and pixel format, back to
/// back with tight strides (what `ffmpeg -f rawvideo -pix_fmt bgra -` writes to a pipe),
/// read in chunks by a caller-supplied function.
///
/// A pull source: ``start(_:)`` reads and delivers on the caller's thread, and returns at the
/// end of the stream or after ``stop()`` (from any thread, or from the consumer).
///
/// - Complexity: O(stream bytes); memory holds one chunk and at most one frame's bytes.
public final class RawFrameSource: FrameSource {
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Pixel format of the frames.
    public let format: PixelFormat
    /// Frame rate as numerator / denominator: the timescale and the ticks per frame of `pts`.
    public let frameRate: (numerator: Int32, denominator: Int32)
    private let read: @Sendable () throws -> [UInt8]?
    private let geometry: [(rowBytes: Int, rows: Int)]
    private let stopped = Atomic(false)

    /// Creates a source; `read` returns the next chunk of the stream, or nil at its end.
    ///
    /// - Throws: `H264VideoError.Code.invalidArgument` for a size out of range or a frame rate
    ///   that is not positive.
    public init(width: Int, height: Int, format: PixelFormat, frameRate: (numerator: Int32, denominator: Int32),
                read: @escaping @Sendable () throws -> [UInt8]?) throws(H264VideoError) {
        var geometry: [(rowBytes: Int, rows: Int)] = []
        for i in 0..<format.planeCount {
            guard let g = format.planeGeometry(i, width: width, height: height) else {
                throw H264VideoError.invalid(.invalidArgument, "raw frame size \(width)x\(height) is out of range")
            }
            geometry.append(g)
        }
        guard frameRate.numerator > 0, frameRate.denominator > 0 else {
            throw H264VideoError.invalid(.invalidArgument, "frame rate must be positive")
        }
        self.width = width
        self.height = height
        self.format = format
        self.frameRate = frameRate
        self.read = read
        self.geometry = geometry
    }

    /// Bytes of one frame.
    public var frameByteCount: Int { geometry.reduce(0) { $0 &+ $1.rowBytes &* $1.rows } }  // <= 3 * 2^34

    /// Delivers every frame of the stream on the caller's thread, with `pts` counting frames
    /// at ``frameRate``; returns at its end or after ``stop()``.
    ///
    /// - Throws: what `read` or `consumer` throws; `H264VideoError.Code.truncated` when the stream
    ///   ends inside a frame.
    public func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {
        stopped.store(false, ordering: .relaxed)
        let size = frameByteCount
        var buffer: [UInt8] = []
        var index: Int64 = 0
        var position = 0
        while !stopped.load(ordering: .relaxed) {
            if buffer.count &- position >= size {
                var planes: [VideoFrame.Plane] = []
                for g in geometry {
                    let n = g.rowBytes &* g.rows
                    planes.append(VideoFrame.Plane(bytes: Array(buffer[position..<(position &+ n)]), bytesPerRow: g.rowBytes))
                    position &+= n
                }
                let frame = try H264VideoError.catchingH264("raw frame \(index)") { () throws(H264Error) in
                    try VideoFrame(width: width, height: height, format: format, planes: planes,
                                   pts: index &* Int64(frameRate.denominator), timescale: frameRate.numerator)
                }
                index &+= 1
                try consumer(frame)
                continue
            }
            guard let chunk = try read() else {
                if buffer.count > position {
                    throw H264VideoError.invalid(.truncated, "raw stream ends inside frame \(index) (\(buffer.count &- position) of \(size) bytes)")
                }
                return
            }
            if position > 0 {
                buffer.removeFirst(position)
                position = 0
            }
            buffer.append(contentsOf: chunk)
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
