/// How many frames a ``FrameSourceSequence`` holds between its source and the task that takes
/// them, and what happens when the source delivers a frame while they are all taken.
///
/// - ``waitForConsumer(capacity:)``: the source's thread waits until the consumer takes a
///   frame (back-pressure). Nothing is lost; right for files and test patterns, which can go
///   at the consumer's pace.
/// - ``dropOldest(capacity:)``: the oldest waiting frame is dropped to make room, so the
///   consumer gets the newest frames; right for a live capturer, which cannot be slowed down
///   and whose consumer wants the latest picture.
/// - ``dropNewest(capacity:)``: the new frame is dropped, the waiting ones kept.
///
/// Dropped frames are counted: ``FrameSourceSequence/droppedFrameCount``.
///
/// Memory: at most `capacity` frames wait, plus the one the source is delivering:
/// (capacity + 1) × frame size (a 1280x720 I420 frame is 1.4 MB).
public struct FrameBuffering: Sendable, Hashable {
    /// What the sequence does with a frame that arrives while ``capacity`` frames wait.
    public enum Overflow: Sendable, Hashable {
        /// The source's thread waits until the consumer takes a frame.
        case waitForConsumer
        /// The oldest waiting frame is dropped and the new one kept.
        case dropOldest
        /// The new frame is dropped.
        case dropNewest
    }

    /// The most frames that wait for the consumer: at least 1.
    public let capacity: Int
    /// What happens to a frame that arrives when ``capacity`` frames wait.
    public let overflow: Overflow

    /// Creates a policy; a `capacity` below 1 is taken as 1.
    public init(capacity: Int, overflow: Overflow) {
        self.capacity = Swift.max(1, capacity)
        self.overflow = overflow
    }

    /// Back-pressure: the source waits while `capacity` frames wait (2 by default: the source
    /// prepares the next frame while the consumer works on one).
    public static func waitForConsumer(capacity: Int = 2) -> FrameBuffering {
        FrameBuffering(capacity: capacity, overflow: .waitForConsumer)
    }

    /// For a live source: keep the newest `capacity` frames, dropping the oldest.
    public static func dropOldest(capacity: Int = 4) -> FrameBuffering {
        FrameBuffering(capacity: capacity, overflow: .dropOldest)
    }

    /// For a live source: keep the `capacity` frames that wait, dropping new ones.
    public static func dropNewest(capacity: Int = 4) -> FrameBuffering {
        FrameBuffering(capacity: capacity, overflow: .dropNewest)
    }
}
