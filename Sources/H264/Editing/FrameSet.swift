/// A set of frame indices, written `5`, `10-20`, `100-`, `*`, each optionally stepped
/// (`0-99/2`, `*/30`: every 30th frame from the first), joined by commas: `0,10-20,100-/25`.
///
/// Used by ``SEIInsertionSchedule`` to say on which frames a message goes.
public struct FrameSet: Sendable, Hashable, CustomStringConvertible {
    /// One item: the frames `lower...upper` (no upper bound when nil) that are `step` apart
    /// from `lower`.
    public struct Range: Sendable, Hashable {
        /// The first frame.
        public var lower: Int
        /// The last frame, nil for no end.
        public var upper: Int?
        /// The distance between frames (at least 1).
        public var step: Int

        /// Creates a range.
        public init(lower: Int, upper: Int? = nil, step: Int = 1) {
            self.lower = Swift.max(0, lower)
            self.upper = upper
            self.step = Swift.max(1, step)
        }

        /// True when `frame` is in the range.
        public func contains(_ frame: Int) -> Bool {
            frame >= lower && (upper.map { frame <= $0 } ?? true) && (frame &- lower) % step == 0
        }
    }

    /// The ranges; a frame is in the set when it is in any.
    public var ranges: [Range]

    /// The most ranges a parsed set holds.
    public static let maximumRanges = 4096

    /// Creates a set of ranges.
    public init(_ ranges: [Range]) { self.ranges = ranges }

    /// Every frame.
    public static let all = FrameSet([Range(lower: 0)])

    /// The frames `indices`.
    public init(frames indices: [Int]) { self.init(indices.map { Range(lower: $0, upper: $0) }) }

    /// Parses the syntax above.
    /// - Throws: ``H264Error/Code/invalidArgument`` for anything else (negative numbers, an
    ///   upper bound below the lower one, a step of 0, more than ``maximumRanges`` items).
    public init(parsing text: String) throws(H264Error) {
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !text.isEmpty, items.count <= Self.maximumRanges else {
            throw H264Error.invalid(.invalidArgument, "frame set '\(text.prefix(64))' is empty or has more than \(Self.maximumRanges) items")
        }
        func number(_ s: Substring) -> Int? {
            s.isEmpty || s.count > 9 || !s.allSatisfy({ $0.isASCII && $0.isNumber }) ? nil : Int(s)
        }
        var ranges: [Range] = []
        for item in items {
            let parts = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            var step = 1
            if parts.count == 2 {
                guard let s = number(parts[1]), s > 0 else { throw Self.bad(text, item) }
                step = s
            }
            let span = parts[0]
            if span == "*" {
                ranges.append(Range(lower: 0, step: step))
                continue
            }
            let bounds = span.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let lower = number(bounds[0]) else { throw Self.bad(text, item) }
            if bounds.count == 1 {
                ranges.append(Range(lower: lower, upper: lower, step: step))
            } else if bounds[1].isEmpty {
                ranges.append(Range(lower: lower, step: step))
            } else {
                guard let upper = number(bounds[1]), upper >= lower else { throw Self.bad(text, item) }
                ranges.append(Range(lower: lower, upper: upper, step: step))
            }
        }
        self.ranges = ranges
    }

    private static func bad(_ text: String, _ item: Substring) -> H264Error {
        H264Error.invalid(.invalidArgument, "frame set '\(text.prefix(64))': '\(item.prefix(32))' is not N, A-B, A- or * (with an optional /STEP)")
    }

    /// True when `frame` is in the set.
    /// - Complexity: O(number of ranges).
    public func contains(_ frame: Int) -> Bool { ranges.contains { $0.contains(frame) } }

    /// The set in the syntax ``init(parsing:)`` reads.
    public var description: String {
        ranges.map { r in
            let span = r.lower == 0 && r.upper == nil ? "*" : r.upper == r.lower ? "\(r.lower)" : "\(r.lower)-\(r.upper.map(String.init) ?? "")"
            return r.step == 1 ? span : "\(span)/\(r.step)"
        }.joined(separator: ",")
    }
}
