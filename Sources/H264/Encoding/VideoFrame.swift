/// One uncompressed picture: its size, pixel format, planes, presentation time and
/// (optionally) the orientation it must be displayed in.
///
/// Each plane has its own bytes-per-row, which may be larger than the plane's row: capture
/// buffers are commonly padded to 16, 32 or 64 bytes.
public struct VideoFrame: Sendable {
    /// One plane of pixel data.
    public struct Plane: Sendable {
        /// The plane's bytes, row after row.
        public var bytes: [UInt8]
        /// Distance in bytes from the start of one row to the start of the next.
        public var bytesPerRow: Int

        /// Creates a plane.
        public init(bytes: [UInt8], bytesPerRow: Int) {
            self.bytes = bytes
            self.bytesPerRow = bytesPerRow
        }
    }

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The pixel format, which fixes the number and geometry of ``planes``.
    public let format: PixelFormat
    /// The planes, in the order of the format (Y, U, V; Y, UV; or the one packed plane).
    public internal(set) var planes: [Plane]
    /// Presentation timestamp in units of 1/``timescale`` seconds.
    public var pts: Int64
    /// Units per second of ``pts``.
    public var timescale: Int32
    /// How the picture must be turned for display, or nil when unknown (nothing is written).
    public var orientation: Orientation?

    /// Creates a frame over existing planes, checking that they are large enough.
    ///
    /// - Parameters:
    ///   - width: width in pixels, 1...``PixelFormat/maxDimension``.
    ///   - height: height in pixels, 1...``PixelFormat/maxDimension``.
    ///   - format: the pixel format.
    ///   - planes: one plane per ``PixelFormat/planeCount``; each row must fit in its
    ///     bytes-per-row and the last row must fit in the plane's bytes.
    ///   - pts: presentation timestamp.
    ///   - timescale: units per second of `pts`, positive.
    ///   - orientation: display orientation, if known.
    /// - Throws: ``H264Error/Code/invalidArgument`` when a size, stride or timescale does not fit.
    public init(width: Int, height: Int, format: PixelFormat, planes: [Plane], pts: Int64 = 0,
                timescale: Int32 = 90_000, orientation: Orientation? = nil) throws(H264Error) {
        guard timescale > 0 else { throw H264Error.invalid(.invalidArgument, "timescale must be positive, is \(timescale)") }
        guard planes.count == format.planeCount else {
            throw H264Error.invalid(.invalidArgument, "\(format) has \(format.planeCount) planes, \(planes.count) given")
        }
        for (i, plane) in planes.enumerated() {
            guard let g = format.planeGeometry(i, width: width, height: height) else {
                throw H264Error.invalid(.invalidArgument, "frame size \(width)x\(height) is out of range")
            }
            guard plane.bytesPerRow >= g.rowBytes else {
                throw H264Error.invalid(.invalidArgument, "plane \(i): bytesPerRow \(plane.bytesPerRow) < row size \(g.rowBytes)")
            }
            let (span, o1) = plane.bytesPerRow.multipliedReportingOverflow(by: g.rows &- 1)
            let (need, o2) = span.addingReportingOverflow(g.rowBytes)
            guard !o1, !o2, plane.bytes.count >= need else {
                throw H264Error.invalid(.invalidArgument, "plane \(i): \(plane.bytes.count) bytes, needs \(need)")
            }
        }
        self.width = width
        self.height = height
        self.format = format
        self.planes = planes
        self.pts = pts
        self.timescale = timescale
        self.orientation = orientation
    }

    /// Creates a frame with zero-filled planes, each row padded to a multiple of `alignment` bytes.
    ///
    /// - Throws: ``H264Error/Code/invalidArgument`` when the size is out of range.
    public init(width: Int, height: Int, format: PixelFormat, pts: Int64 = 0, timescale: Int32 = 90_000,
                alignment: Int = 1) throws(H264Error) {
        let align = Swift.max(1, Swift.min(alignment, 4096))
        var planes: [Plane] = []
        for i in 0..<format.planeCount {
            guard let g = format.planeGeometry(i, width: width, height: height) else {
                throw H264Error.invalid(.invalidArgument, "frame size \(width)x\(height) is out of range")
            }
            // rowBytes <= 4 * 2^16 and rows <= 2^16: the padded size fits in Int.
            let stride = (g.rowBytes &+ align &- 1) / align &* align
            planes.append(Plane(bytes: [UInt8](repeating: 0, count: stride &* g.rows), bytesPerRow: stride))
        }
        try self.init(width: width, height: height, format: format, planes: planes, pts: pts,
                      timescale: timescale)
    }

    /// Calls `body` with a mutable view of plane `index`'s bytes and its bytes-per-row.
    /// The plane's size cannot change.
    public mutating func withMutablePlane<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<UInt8>, Int) -> R) -> R {
        let stride = planes[index].bytesPerRow
        return planes[index].bytes.withUnsafeMutableBufferPointer { p in body(p, stride) }
    }

    /// Calls `body` with mutable views of every plane's bytes at once, in the order of
    /// ``planes`` (Y, U, V; Y, UV; or the one packed plane), for code that writes several planes
    /// in one pass (a colour converter). Each plane's stride is its ``Plane/bytesPerRow``; the
    /// planes' sizes cannot change.
    ///
    /// - Complexity: O(1): the bytes are not copied.
    public mutating func withMutablePlanes<R>(_ body: ([UnsafeMutableBufferPointer<UInt8>]) -> R) -> R {
        // Each plane is moved out into its own variable, so that all three can be borrowed
        // mutably at once, and moved back afterwards. A format has at most three planes.
        let count = planes.count
        var p0 = count > 0 ? planes[0].bytes : [], p1 = count > 1 ? planes[1].bytes : [], p2 = count > 2 ? planes[2].bytes : []
        for i in planes.indices { planes[i].bytes = [] }
        defer {
            if count > 0 { planes[0].bytes = p0 }
            if count > 1 { planes[1].bytes = p1 }
            if count > 2 { planes[2].bytes = p2 }
        }
        return p0.withUnsafeMutableBufferPointer { b0 in
            p1.withUnsafeMutableBufferPointer { b1 in
                p2.withUnsafeMutableBufferPointer { b2 in body(Array([b0, b1, b2].prefix(count))) }
            }
        }
    }
}
