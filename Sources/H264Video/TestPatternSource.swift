import H264
import MediaSupport
import Synchronization

/// A synthetic `FrameSource`: moving colour bars with the frame number drawn on them, or
/// white noise (the hardest input for an encoder).
///
/// Frames are I420 with BT.601 limited-range values; timestamps count frames at the given rate.
/// A pull source: ``start(_:)`` renders and delivers on the caller's thread, and returns after
/// ``frameCount`` frames or after ``stop()`` (from any thread, or from the consumer).
/// ``makeFrame(_:)`` renders one frame, for a capturer of the caller's own.
public final class TestPatternSource: FrameSource {
    /// What the frames show.
    public enum Pattern: Sendable, Hashable {
        /// Eight 75% colour bars moving right by 4 pixels a frame, with a frame counter.
        case colorBars
        /// Independent uniformly random samples in every frame.
        case noise
    }

    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames per second as numerator / denominator (timescale and ticks per frame).
    public let frameRate: (numerator: Int32, denominator: Int32)
    /// Number of frames delivered by ``start(_:)``.
    public let frameCount: Int
    /// The pattern.
    public let pattern: Pattern
    private let stopped = Atomic(false)
    private let random = ThreadLock<UInt64>(0x9E37_79B9_7F4A_7C15)

    /// Creates a test pattern source.
    ///
    /// - Throws: `H264VideoError.Code.invalidArgument` for a size out of range, odd sizes (4:2:0
    ///   output), a frame rate that is not positive or a negative frame count.
    public init(width: Int = 1280, height: Int = 720, frameRate: (numerator: Int32, denominator: Int32) = (30, 1),
                frameCount: Int = 300, pattern: Pattern = .colorBars) throws(H264VideoError) {
        guard width > 0, height > 0, width <= PixelFormat.maxDimension, height <= PixelFormat.maxDimension,
              width % 2 == 0, height % 2 == 0 else {
            throw H264VideoError.invalid(.invalidArgument, "test pattern size \(width)x\(height) must be even and positive")
        }
        guard frameRate.numerator > 0, frameRate.denominator > 0 else {
            throw H264VideoError.invalid(.invalidArgument, "frame rate must be positive")
        }
        guard frameCount >= 0 else { throw H264VideoError.invalid(.invalidArgument, "frame count must not be negative") }
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.frameCount = frameCount
        self.pattern = pattern
    }

    /// Delivers ``frameCount`` frames on the caller's thread; returns after the last or after
    /// ``stop()``.
    ///
    /// - Throws: what `consumer` throws.
    public func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {
        stopped.store(false, ordering: .relaxed)
        var index = 0
        while index < frameCount && !stopped.load(ordering: .relaxed) {
            try consumer(try makeFrame(index))
            index &+= 1
        }
    }

    /// Delivers the frames as ``start(_:)`` does, on this thread, then reports its return (nil)
    /// or its error to `onEnd`.
    public func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void) {
        reportingEndOnReturn(consumer, onEnd: onEnd)
    }

    /// Asks ``start(_:)`` to return before the next frame; safe from any thread.
    public func stop() { stopped.store(true, ordering: .relaxed) }

    // 75% bars, BT.601 limited range (Y, Cb, Cr): white, yellow, cyan, green, magenta, red, blue, black.
    private static let bars: [(UInt8, UInt8, UInt8)] = [
        (180, 128, 128), (162, 44, 142), (131, 156, 44), (112, 72, 58),
        (84, 184, 198), (65, 100, 212), (35, 212, 114), (16, 128, 128),
    ]

    /// Renders frame number `index`.
    ///
    /// - Throws: `H264VideoError.Code.invalidArgument` for a negative index.
    public func makeFrame(_ index: Int) throws(H264VideoError) -> VideoFrame {
        guard index >= 0 else { throw H264VideoError.invalid(.invalidArgument, "frame index must not be negative") }
        // index * denominator fits Int64 for any index below 2^31.
        let pts = Int64(index) &* Int64(frameRate.denominator)
        var frame = try H264VideoError.catchingH264("test pattern frame \(index)") { () throws(H264Error) in
            try VideoFrame(width: width, height: height, format: .i420, pts: pts, timescale: frameRate.numerator)
        }
        switch pattern {
        case .noise: fillNoise(&frame)
        case .colorBars: drawBars(&frame, index)
        }
        return frame
    }

    private func fillNoise(_ frame: inout VideoFrame) {
        var random = self.random.withLock { $0 }
        defer { self.random.withLock { $0 = random } }
        for plane in 0..<3 {
            frame.withMutablePlane(plane) { p, _ in
                var i = 0
                while i < p.count {
                    random ^= random << 13; random ^= random >> 7; random ^= random << 17
                    var r = random
                    var k = 0
                    while k < 8 && i < p.count { p[i] = UInt8(truncatingIfNeeded: r); r >>= 8; i &+= 1; k &+= 1 }
                }
            }
        }
    }

    private func drawBars(_ frame: inout VideoFrame, _ index: Int) {
        let w = width, h = height
        let shift = (index % w) &* 4 % w
        let barWidth = Swift.max(1, (w &+ 7) / 8)
        for plane in 0..<3 {
            let sub = plane == 0 ? 1 : 2
            frame.withMutablePlane(plane) { p, stride in
                let pw = w / sub, ph = h / sub
                var row: [UInt8] = []
                row.reserveCapacity(pw)
                for x in 0..<pw {
                    let px = ((x &* sub) &+ w &- shift) % w
                    let bar = TestPatternSource.bars[Swift.min(px / barWidth, 7)]
                    row.append(plane == 0 ? bar.0 : plane == 1 ? bar.1 : bar.2)
                }
                for y in 0..<ph { for x in 0..<pw { p[y &* stride &+ x] = row[x] } }
            }
        }
        drawCounter(&frame, index)
    }

    // 3x5 digit glyphs, one row of three bits per entry, top to bottom.
    private static let glyphs: [[UInt8]] = [
        [7, 5, 5, 5, 7], [2, 6, 2, 2, 7], [7, 1, 7, 4, 7], [7, 1, 7, 1, 7], [5, 5, 7, 1, 1],
        [7, 4, 7, 1, 7], [7, 4, 7, 5, 7], [7, 1, 1, 1, 1], [7, 5, 7, 5, 7], [7, 5, 7, 1, 7],
    ]

    /// Draws the frame number in white on a black box in the top-left corner (neutral chroma).
    private func drawCounter(_ frame: inout VideoFrame, _ index: Int) {
        let digits = Array(String(index).utf8).map { Int($0 &- 48) }
        let scale = Swift.max(1, height / 60)
        let boxW = (digits.count &* 4 &+ 1) &* scale, boxH = 7 &* scale
        guard boxW <= width, boxH <= height else { return }
        for plane in 1...2 {
            frame.withMutablePlane(plane) { p, stride in
                for y in 0..<((boxH &+ 1) / 2) { for x in 0..<((boxW &+ 1) / 2) { p[y &* stride &+ x] = 128 } }
            }
        }
        frame.withMutablePlane(0) { p, stride in
            for y in 0..<boxH { for x in 0..<boxW { p[y &* stride &+ x] = 16 } }
            for (n, d) in digits.enumerated() {
                for gy in 0..<5 {
                    let bits = TestPatternSource.glyphs[d][gy]
                    for gx in 0..<3 where bits & (4 >> UInt8(gx)) != 0 {
                        let x0 = (1 &+ n &* 4 &+ gx) &* scale, y0 = (1 &+ gy) &* scale
                        for y in y0..<(y0 &+ scale) { for x in x0..<(x0 &+ scale) { p[y &* stride &+ x] = 235 } }
                    }
                }
            }
        }
    }
}
