// A custom capturer in the style of OpenTok's OTVideoCapture: it owns a capture thread and
// hands every frame to the consumer it was given, until it is stopped or runs out.
import Foundation
import H264
import Synchronization

final class Capturer: Sendable {
    private let consumer: @Sendable (VideoFrame) -> Void
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    let frameCount: Int

    init(frameCount: Int, consumer: @escaping @Sendable (VideoFrame) -> Void) {
        self.frameCount = frameCount
        self.consumer = consumer
    }

    /// Starts the capture thread and returns at once.
    func start() {
        running.store(true, ordering: .relaxed)
        Thread.detachNewThread { [self] in
            for index in 0..<frameCount where running.load(ordering: .relaxed) {
                consumer(grab(index))
            }
            finished.signal()
        }
    }

    /// Stops capturing; returns when the capture thread has delivered its last frame.
    func stop() {
        running.store(false, ordering: .relaxed)
        waitUntilFinished()
    }

    /// Returns when the capture thread has ended (stopped, or out of frames).
    func waitUntilFinished() {
        finished.wait()
        finished.signal()
    }

    /// What a camera would deliver: 640x360 BGRA, rows padded to 2624 bytes, shot with the
    /// device turned a quarter (displayed rotated 90 degrees clockwise), 30 fps at 90 kHz.
    private func grab(_ index: Int) -> VideoFrame {
        let width = 640, height = 360, bytesPerRow = 2624
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * height)
        for y in 0..<height {
            for x in 0..<width {
                let p = y * bytesPerRow + x * 4
                pixels[p] = UInt8(truncatingIfNeeded: x + index * 3)      // B
                pixels[p + 1] = UInt8(truncatingIfNeeded: y + index)      // G
                pixels[p + 2] = UInt8(truncatingIfNeeded: x ^ y)          // R
                pixels[p + 3] = 255                                       // A
            }
        }
        return try! VideoFrame(width: width, height: height, format: .bgra,
                               planes: [.init(bytes: pixels, bytesPerRow: bytesPerRow)],
                               pts: Int64(index) * 3000, timescale: 90_000,
                               orientation: Orientation(rotation: .clockwise90))
    }
}
