extension SyntaxCoder {
    /// Reads `count` bits (0...32) that follow the next `skip` bits, without consuming anything,
    /// by reading from a copy of the coder. Only meaningful when ``isReading``; a tracing coder's copy records the element
    /// and is thrown away.
    ///
    /// Syntax tables that branch on bits not yet read (the 0xFF runs of SEI message headers,
    /// `show_bits` in FFmpeg) use this, so that the element is then read under its right name.
    /// - Throws: ``H264Error/Code/truncated`` when fewer than `count` bits remain.
    /// - Complexity: O(1 + skip / 32) for a reader; a tracer also copies its element list once.
    public func peekBits(_ count: Int, skipping skip: Int = 0) throws(H264Error) -> UInt32 {
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

    /// Checks, on a copy of the coder, that `count` more bits can be read.
    /// - Throws: ``H264Error/Code/truncated`` when they cannot.
    /// - Complexity: O(count / 32).
    public func requireBits(_ count: Int, _ name: SyntaxName) throws(H264Error) {
        guard count >= 0 else { throw .truncated("\(name): negative bit count \(count)") }
        var probe = self
        var left = count
        var sink: UInt32 = 0
        do {
            while left > 0 {
                let n = Swift.min(left, 32)
                try probe.u(n, &sink, name)
                left &-= n  // n <= left
            }
        } catch {
            throw .truncated("\(name): \(count) bits needed at bit \(bitPosition), the input ends first")
        }
    }
}
