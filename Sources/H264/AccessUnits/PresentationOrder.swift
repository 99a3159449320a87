/// Derives presentation order from decoding order and picture order counts, the way the
/// output process of a decoder's picture buffer does (C.4.5.3 "bumping"), without decoding.
///
/// Pictures are pushed in decoding order with their POC. A picture is released for
/// presentation once more than `reorderDepth` pictures wait, smallest POC first; an IDR picture
/// or one with `memory_management_control_operation` 5 first releases everything waiting (a new
/// POC period). Each released picture gets the next presentation index.
///
/// Memory is bounded by `2 × (reorderDepth + 1) + 32` entries of two integers: the waiting
/// pictures, and released ones whose places are reclaimed in batches.
public struct PresentationOrder: Sendable {
    /// How many pictures may wait before the one with the smallest POC is released:
    /// `max_num_reorder_frames` for a conforming stream.
    public var reorderDepth: Int

    /// The waiting pictures from `head` on, sorted by POC, pictures of equal POC in decoding
    /// order: the next to release is at `head` (no scan, nothing moved down per release).
    private var waiting: [(decodeIndex: Int, poc: Int64)] = []
    /// Entries before it were released; reclaimed when they are as many as the waiting ones
    /// and at least 32, or when nothing waits.
    private var head = 0
    private var nextPresentationIndex = 0

    /// Creates an empty order with a reorder depth (clamped to 0...32).
    public init(reorderDepth: Int) {
        self.reorderDepth = Swift.max(0, Swift.min(reorderDepth, 32))
    }

    /// Adds the next picture in decoding order.
    /// - Parameters:
    ///   - decodeIndex: the picture's index in decoding order.
    ///   - poc: the picture's order count within its POC period.
    ///   - startsPeriod: an IDR picture or one with mmco 5.
    /// - Returns: the pictures released by this push, as (decodeIndex, presentationIndex).
    public mutating func push(decodeIndex: Int, poc: Int64, startsPeriod: Bool) -> [(decodeIndex: Int, presentationIndex: Int)] {
        var released: [(decodeIndex: Int, presentationIndex: Int)] = []
        push(decodeIndex: decodeIndex, poc: poc, startsPeriod: startsPeriod, into: &released)
        return released
    }

    /// ``push(decodeIndex:poc:startsPeriod:)`` that appends the released pictures to the
    /// caller's buffer: no allocation once the buffer has grown to the reorder depth.
    mutating func push(decodeIndex: Int, poc: Int64, startsPeriod: Bool,
                       into released: inout [(decodeIndex: Int, presentationIndex: Int)]) {
        if startsPeriod { drain(into: &released) }
        insert((decodeIndex, poc))
        while waiting.count &- head > reorderDepth { releaseSmallest(into: &released) }
    }

    /// Inserts a picture after every waiting one of smaller or equal POC (usually at the end,
    /// or a few places before it).
    private mutating func insert(_ picture: (decodeIndex: Int, poc: Int64)) {
        waiting.append(picture)
        let head = self.head
        waiting.withUnsafeMutableBufferPointer { w in
            var j = w.count &- 1
            while j > head && w[j &- 1].poc > picture.poc {
                w[j] = w[j &- 1]
                j &-= 1
            }
            w[j] = picture
        }
    }

    /// Releases every waiting picture (end of stream).
    public mutating func flush() -> [(decodeIndex: Int, presentationIndex: Int)] {
        var released: [(decodeIndex: Int, presentationIndex: Int)] = []
        drain(into: &released)
        return released
    }

    /// ``flush()`` into the caller's buffer.
    mutating func flush(into released: inout [(decodeIndex: Int, presentationIndex: Int)]) {
        drain(into: &released)
    }

    /// Releases the waiting picture of decoding index `decodeIndex` now, ahead of the pictures
    /// of smaller POC that wait (``TimestampAssigner``'s bound on how long a picture waits):
    /// it gets the next presentation index.
    /// - Returns: false when no such picture waits.
    /// - Complexity: O(w) for w pictures waiting.
    mutating func release(decodeIndex: Int, into released: inout [(decodeIndex: Int, presentationIndex: Int)]) -> Bool {
        guard let i = waiting[head...].firstIndex(where: { $0.decodeIndex == decodeIndex }) else { return false }
        waiting.remove(at: i)
        released.append((decodeIndex, nextPresentationIndex))
        nextPresentationIndex &+= 1  // one per picture: bounded by the number of pictures
        if head == waiting.count {
            waiting.removeAllKeepingCapacity()
            head = 0
        }
        return true
    }

    private mutating func drain(into released: inout [(decodeIndex: Int, presentationIndex: Int)]) {
        while head < waiting.count { releaseSmallest(into: &released) }
    }

    /// Releases the picture of smallest POC (the first pushed of those with that POC): the
    /// one at `head`. Some picture waits.
    private mutating func releaseSmallest(into released: inout [(decodeIndex: Int, presentationIndex: Int)]) {
        let picture = waiting[head]
        head &+= 1
        released.append((picture.decodeIndex, nextPresentationIndex))
        nextPresentationIndex &+= 1  // one per picture: bounded by the number of pictures
        if head == waiting.count {
            waiting.removeAllKeepingCapacity()
            head = 0
        } else if head >= 32 && head >= waiting.count &- head {
            waiting.removeFirst(head)
            head = 0
        }
    }
}

/// Decode and presentation timestamps for an elementary stream without a container.
///
/// With presentation indices known, `PTS = presentationIndex × duration` and
/// `DTS = (decodeIndex − delay) × duration`, where `delay` is the smallest shift that keeps
/// `PTS >= DTS` for every picture: `max(decodeIndex − presentationIndex)`. DTS then strictly
/// increases and the delay is exactly what the stream needs.
public enum TimestampDerivation {
    /// The reorder delay a stream needs, from each picture's decode and presentation index.
    /// - Complexity: O(n).
    public static func requiredDelay<S: Sequence>(_ pairs: S) -> Int where S.Element == (decodeIndex: Int, presentationIndex: Int) {
        var delay = 0
        for p in pairs { delay = Swift.max(delay, p.decodeIndex &- p.presentationIndex) }
        return delay
    }
}
