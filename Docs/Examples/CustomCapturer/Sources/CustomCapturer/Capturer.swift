// A custom capturer in the style of OpenTok's OTVideoCapture: a FrameSource that owns a capture
// thread and hands every frame to the consumer it was given, until it is stopped or runs out.
import Foundation
import H264
import Synchronization

final class Capturer: FrameSource {
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    let frameCount: Int

    init(frameCount: Int) { self.frameCount = frameCount }

    /// Keeps the consumer, starts the capture thread and returns at once.
    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {
        start(consumer, onEnd: { _ in })
    }

    /// The same, and the capture thread reports the end: nil when stopped or out of frames,
    /// the consumer's error when one stopped the capture (FrameSource's rule for push sources).
    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void) {
        running.store(true, ordering: .relaxed)
        Thread.detachNewThread { [self] in
            var failure: (any Error)?
            for index in 0..<frameCount where running.load(ordering: .relaxed) {
                do { try consumer(grab(index)) } catch { failure = error; break }
            }
            running.store(false, ordering: .relaxed)
            finished.signal()
            onEnd(failure)
        }
    }

    /// Stops capturing after the frame being delivered: from any thread, or from the consumer.
    func stop() { running.store(false, ordering: .relaxed) }

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
