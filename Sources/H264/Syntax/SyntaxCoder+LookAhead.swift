/// Coders that can look ahead without copying themselves: a reader copies its position, a
/// tracer looks through its reader (copying its element list would cost O(elements) a peek).
protocol SyntaxLookAhead {
    /// The `count` bits (0...32) after the next `skip` bits, nothing consumed.
    func lookAhead(_ count: Int, skipping skip: Int) throws(H264Error) -> UInt32
}

extension SyntaxReader: SyntaxLookAhead {
    func lookAhead(_ count: Int, skipping skip: Int) throws(H264Error) -> UInt32 {
        guard (0...32).contains(count) else { throw .outOfRange("look-ahead bit count", Int64(count)) }
        var r = reader
        try r.skipBits(skip)
        return UInt32(truncatingIfNeeded: try r.readBits(count))
    }
}

extension SyntaxTracer: SyntaxLookAhead {
    func lookAhead(_ count: Int, skipping skip: Int) throws(H264Error) -> UInt32 {
        try inner.lookAhead(count, skipping: skip)
    }
}

extension BoundedSyntaxCoder: SyntaxLookAhead where Inner: SyntaxLookAhead {
    func lookAhead(_ count: Int, skipping skip: Int) throws(H264Error) -> UInt32 {
        guard skip >= 0, count >= 0, !isReading || (skip <= bitsRemaining && count <= bitsRemaining &- skip) else {
            throw .truncated("look-ahead of \(count) bits after \(skip) runs past the payload (\(bitsRemaining) bits left)")
        }
        return try inner.lookAhead(count, skipping: skip)
    }
}

extension SyntaxCoder {
    /// Reads `count` bits (0...32) that follow the next `skip` bits, without consuming anything.
    /// Only meaningful when ``isReading``.
    ///
    /// Syntax tables that branch on bits not yet read (the 0xFF runs of SEI message headers,
    /// `show_bits` in FFmpeg) use this, so that the element is then read under its right name.
    /// The library's coders look through their reader; any other coder is probed by reading
    /// from a copy of it.
    /// - Throws: ``H264Error/Code/truncated`` when the bits are not there.
    /// - Complexity: O(1 + skip / 32).
    public func peekBits(_ count: Int, skipping skip: Int = 0) throws(H264Error) -> UInt32 {
        // The library's parsing readers first, by their concrete types (a cast a specialised
        // caller resolves when compiled): as an existential they would be boxed, an allocation
        // per peek.
        if let r = self as? UnsafeSyntaxReader { return try r.lookAhead(count, skipping: skip) }
        if let r = self as? BoundedSyntaxCoder<UnsafeSyntaxReader> { return try r.lookAhead(count, skipping: skip) }
        if let la = self as? any SyntaxLookAhead { return try la.lookAhead(count, skipping: skip) }
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
