import H264

/// A push parser for YUV4MPEG2 streams: feed it byte chunks of any size, take frames out.
///
/// ```swift
/// var parser = Y4MParser()
/// while let chunk = read() {
///     parser.append(chunk)
///     while let frame = try parser.nextFrame() { consume(frame) }
/// }
/// try parser.finish()
/// ```
public struct Y4MParser: Sendable {
    /// The stream header, once its line has been read.
    public private(set) var header: Y4MHeader?
    /// Number of frames returned so far.
    public private(set) var frameIndex: Int = 0
    private var buffer: [UInt8] = []
    private var position = 0
    /// Where the search for the current line's end goes on: the bytes from `position` up to
    /// here hold no line feed. Each byte is looked at once however the stream is chunked.
    private var lineScanEnd = 0

    /// The longest header or `FRAME` line accepted.
    public static let maxLineLength = 4096

    /// Creates a parser.
    public init() {}

    /// Adds bytes to the parser's buffer.
    public mutating func append<C: Collection>(_ chunk: C) where C.Element == UInt8 {
        if position > 0 && position >= buffer.count / 2 {
            buffer.removeFirst(position)
            lineScanEnd = Swift.max(0, lineScanEnd &- position)
            position = 0
        }
        buffer.append(contentsOf: chunk)
    }

    /// The next complete frame, or nil when more bytes are needed.
    ///
    /// Frames are I420, I422 or I444 with tight strides; `pts` counts frames in units of the
    /// header's frame rate (timescale = rate numerator, a frame = denominator ticks), or 1/25 s
    /// when the rate is unknown.
    /// - Throws: header errors (see ``Y4MHeader/init(line:)``), or
    ///   `H264VideoError.Code.invalidArgument` for a frame that does not start with `FRAME` or a
    ///   line longer than ``maxLineLength``.
    public mutating func nextFrame() throws(H264VideoError) -> VideoFrame? {
        if header == nil {
            guard let line = try takeLine() else { return nil }
            header = try Y4MHeader(line: line)
        }
        guard let h = header else { return nil }
        guard let end = lineEnd() else {
            try checkLineLength()
            return nil
        }
        let frameBytes = h.frameByteCount
        // end - position <= maxLineLength, frameBytes <= 3 * 2^32: the sums fit in Int.
        guard buffer.count &- (end &+ 1) >= frameBytes else { return nil }
        guard buffer[position..<end].starts(with: Y4MParser.frameTag) else {
            throw H264VideoError.invalid(.invalidArgument, "Y4M frame \(frameIndex) does not start with FRAME")
        }
        var offset = end &+ 1
        var planes: [VideoFrame.Plane] = []
        for i in 0..<h.pixelFormat.planeCount {
            guard let g = h.pixelFormat.planeGeometry(i, width: h.width, height: h.height) else { break }
            let size = g.rowBytes &* g.rows
            planes.append(VideoFrame.Plane(bytes: Array(buffer[offset..<(offset &+ size)]), bytesPerRow: g.rowBytes))
            offset &+= size
        }
        position = offset
        let rate = h.frameRate
        let validRate = rate.numerator > 0 && rate.denominator > 0 && rate.numerator <= Int(Int32.max)
        let timescale = validRate ? Int32(rate.numerator) : 25
        let pts = Int64(frameIndex) &* Int64(validRate ? rate.denominator : 1)
        frameIndex &+= 1
        return try H264VideoError.catchingH264("Y4M frame \(frameIndex &- 1)") { () throws(H264Error) in
            try VideoFrame(width: h.width, height: h.height, format: h.pixelFormat, planes: planes, pts: pts, timescale: timescale)
        }
    }

    /// Checks that the stream did not end inside a header or a frame.
    ///
    /// - Throws: `H264VideoError.Code.truncated` when bytes of an incomplete frame remain.
    public func finish() throws(H264VideoError) {
        if position < buffer.count {
            throw .invalid(.truncated, "Y4M stream ends inside frame \(frameIndex) (\(buffer.count &- position) bytes left)")
        }
        if header == nil { throw .invalid(.truncated, "Y4M stream has no header") }
    }

    private static let frameTag: [UInt8] = Array("FRAME".utf8)

    private mutating func lineEnd() -> Int? {
        let limit = Swift.min(buffer.count, position &+ Y4MParser.maxLineLength)
        let from = Swift.min(Swift.max(position, lineScanEnd), limit)
        if let end = buffer[from..<limit].firstIndex(of: 0x0A) { return end }
        lineScanEnd = limit
        return nil
    }

    private func checkLineLength() throws(H264VideoError) {
        if buffer.count &- position >= Y4MParser.maxLineLength {
            throw H264VideoError.invalid(.invalidArgument, "Y4M line longer than \(Y4MParser.maxLineLength) bytes")
        }
    }

    private mutating func takeLine() throws(H264VideoError) -> ArraySlice<UInt8>? {
        guard let end = lineEnd() else {
            try checkLineLength()
            return nil
        }
        let line = buffer[position..<end]
        position = end &+ 1
        return line
    }
}
