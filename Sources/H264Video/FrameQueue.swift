import H264

/// The frames waiting between a source and its consumer: a ring of fixed capacity, first in
/// first out.
struct FrameQueue {
    private var slots: [VideoFrame?]
    private var head = 0
    private(set) var count = 0

    /// An empty queue for at most `capacity` frames (at least 1).
    init(capacity: Int) { slots = Array(repeating: nil, count: Swift.max(1, capacity)) }

    var isFull: Bool { count == slots.count }

    /// Appends `frame`; the queue must not be full.
    /// - Complexity: O(1).
    mutating func append(_ frame: VideoFrame) {
        // head < slots.count and count < slots.count: the sum is below 2 * slots.count.
        slots[(head &+ count) % slots.count] = frame
        count &+= 1
    }

    /// Removes and returns the oldest frame, or nil when the queue is empty.
    /// - Complexity: O(1).
    mutating func popFirst() -> VideoFrame? {
        guard count > 0 else { return nil }
        defer {
            slots[head] = nil
            head = (head &+ 1) % slots.count
            count &-= 1
        }
        return slots[head]
    }

    /// Drops every frame (their memory is released).
    /// - Complexity: O(capacity).
    mutating func removeAll() {
        while popFirst() != nil {}
    }
}
