extension SyntaxCoder {
    /// The default ``SyntaxCoder/peekBits(_:skipping:)``: reads from a copy of the coder.
    /// - Complexity: O(1 + skip / 32) elements.
    public func peekBits(_ count: Int, skipping skip: Int) throws(H264Error) -> UInt32 {
        var probe = self
        var left = skip
        var value: UInt32 = 0
        while left > 0 {
            let n = Swift.min(left, 32)
            try probe.u(n, &value, "look_ahead")
            left &-= n  // n <= left
        }
        try probe.u(count, &value, "look_ahead")
        return value
    }

    /// The next `count` bits (0...32), nothing consumed: ``peekBits(_:skipping:)`` skipping none.
    /// - Throws: ``H264Error/Code/truncated`` when the bits are not there.
    @inlinable
    public func peekBits(_ count: Int) throws(H264Error) -> UInt32 {
        try peekBits(count, skipping: 0)
    }

    /// Reads the `ue(v)` that comes next without consuming it (and without a tracer recording
    /// it), checking it against `range`.
    /// - Throws: ``H264Error/Code/truncated``, ``H264Error/Code/invalidExpGolomb``,
    ///   ``H264Error/Code/valueOutOfRange``.
    /// - Complexity: O(number of leading zero bits) look-aheads, at most 32.
    public func peekUE(_ name: SyntaxName, _ range: ClosedRange<UInt32>) throws(H264Error) -> UInt32 {
        var zeros = 0
        while try peekBits(1, skipping: zeros) == 0 {
            zeros &+= 1  // at most 32 here
            guard zeros <= 31 else { throw H264Error.invalid(.invalidExpGolomb, "\(name): more than 31 leading zero bits") }
        }
        let info = zeros == 0 ? 0 : try peekBits(zeros, skipping: zeros &+ 1)
        let value = UInt32(truncatingIfNeeded: (UInt64(1) << UInt64(zeros)) &- 1 &+ UInt64(info))  // zeros <= 31: < 2^32 - 1
        guard range.contains(value) else { throw .outOfRange("\(name)", Int64(value)) }
        return value
    }

    /// Checks, without consuming anything, that `count` more bits can be read.
    /// - Throws: ``H264Error/Code/truncated`` when they cannot.
    /// - Complexity: O(1) for the library's coders, O(count / 32) for others.
    public func requireBits(_ count: Int, _ name: SyntaxName) throws(H264Error) {
        guard count >= 0 else { throw .truncated("\(name): negative bit count \(count)") }
        do {
            _ = try peekBits(0, skipping: count)
        } catch {
            throw .truncated("\(name): \(count) bits needed at bit \(bitPosition), the input ends first")
        }
    }
}
