// Frames for when nothing is piped in: `count` BGRA frames (a moving gradient), as the
// chunks RawFrameSource reads.
import Synchronization

func generatedFrames(width: Int, height: Int, count: Int) -> @Sendable () -> [UInt8]? {
    let next = Counter()
    return {
        let index = next.value.add(1, ordering: .relaxed).oldValue
        guard index < count else { return nil }
        var frame = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                frame[(y * width + x) * 4] = UInt8(truncatingIfNeeded: x + 2 * index)
                frame[(y * width + x) * 4 + 1] = UInt8(truncatingIfNeeded: y)
                frame[(y * width + x) * 4 + 2] = UInt8(truncatingIfNeeded: x ^ (y + index))
            }
        }
        return frame
    }
}

/// A frame counter the read function (`@Sendable`, as `RawFrameSource` takes it) may share.
final class Counter: Sendable {
    let value = Atomic(0)
}
