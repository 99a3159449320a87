extension BitWriter {
    /// Appends the bits of `source` from bit `start` to the end: how slice data is copied
    /// after a re-written slice header, whatever the two alignments.
    /// - Complexity: O(n); whole bytes are appended directly when both sides are aligned.
    public mutating func appendBits(of source: ArraySlice<UInt8>, from start: Int) {
        let total = source.count &* 8  // an array's count times 8 cannot overflow on 64-bit
        guard start >= 0, start < total else { return }
        var reader = BitReader(source)
        // Reach a byte boundary in the source first.
        let head = (8 &- (start & 7)) & 7
        try? reader.seek(toBit: start)
        if head > 0 {
            let n = Swift.min(head, total &- start)
            writeBits((try? reader.readBits(n)) ?? 0, n)
        }
        if byteAligned {
            let from = source.startIndex &+ (reader.bitPosition >> 3)
            writeBytes(source[from...])
            return
        }
        while reader.bitsRemaining >= 64 { writeBits((try? reader.readBits(64)) ?? 0, 64) }
        let rest = reader.bitsRemaining
        if rest > 0 { writeBits((try? reader.readBits(rest)) ?? 0, rest) }
    }
}
