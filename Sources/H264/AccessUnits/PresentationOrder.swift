/// Derives presentation order from decoding order and picture order counts, the way the
/// output process of a decoder's picture buffer does (C.4.5.3 "bumping"), without decoding.
///
/// Pictures are pushed in decoding order with their POC. A picture is released for
/// presentation once more than `reorderDepth` pictures wait, smallest POC first; an IDR picture
/// or one with `memory_management_control_operation` 5 first releases everything waiting (a new
/// POC period). Each released picture gets the next presentation index.
///
/// Memory is bounded by `reorderDepth + 1` entries.
public struct PresentationOrder: Sendable {
    /// How many pictures may wait before the one with the smallest POC is released:
    /// `max_num_reorder_frames` for a conforming stream.
    public var reorderDepth: Int

    private var waiting: [(decodeIndex: Int, poc: Int64)] = []
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
        waiting.append((decodeIndex, poc))
        while waiting.count > reorderDepth { releaseSmallest(into: &released) }
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

    private mutating func drain(into released: inout [(decodeIndex: Int, presentationIndex: Int)]) {
        while !waiting.isEmpty { releaseSmallest(into: &released) }
    }

    private mutating func releaseSmallest(into released: inout [(decodeIndex: Int, presentationIndex: Int)]) {
        var best = 0
        for i in 1..<waiting.count where waiting[i].poc < waiting[best].poc { best = i }
        let picture = waiting.remove(at: best)
        released.append((picture.decodeIndex, nextPresentationIndex))
        nextPresentationIndex &+= 1  // one per picture: bounded by the number of pictures
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
