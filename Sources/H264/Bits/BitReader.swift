/// Reads the bit-level syntax elements of ITU-T H.264 clause 7.2 from an RBSP.
///
/// The reader works on the raw byte sequence payload: emulation-prevention bytes must have been
/// removed first (see ``EmulationPrevention``). It never traps on short input: reading past the
/// end throws ``H264Error/Code/truncated``.
///
/// Bit positions count from the first bit of `bytes`, most significant bit first.
///
/// It holds the bytes and a position; each read is done by the library's one reading
/// implementation (the internal `UnsafeSyntaxReader`, which the parsers use over a whole
/// structure) over the bytes' memory, for that read only.
public struct BitReader: Sendable {
    /// The bytes read, as given.
    public let bytes: ArraySlice<UInt8>
    /// Number of bits in `bytes`.
    public let bitCount: Int
    /// Position of the next bit to read, counted from the first bit of `bytes`.
    @inlinable public var bitPosition: Int { position }
    @usableFromInline var position: Int = 0

    /// Creates a reader positioned at the first bit of `bytes`.
    @inlinable
    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.bitCount = bytes.count &* 8  // an array's count times 8 cannot overflow Int on 64-bit
    }

    /// Creates a reader over a whole array.
    @inlinable
    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// Bits left before the end of the buffer.
    @inlinable public var bitsRemaining: Int { bitCount &- bitPosition }  // position never exceeds count

    /// True when the next bit starts a byte.
    @inlinable public var byteAligned: Bool { bitPosition & 7 == 0 }

    /// `body`'s result, run with the reading implementation at this position over `bytes`, and
    /// the position it ended at (also when it threw).
    @inlinable
    func reading<R>(_ body: (inout UnsafeSyntaxReader) throws(H264Error) -> R) -> (result: Result<R, H264Error>, end: Int) {
        let start = position
        return bytes.withUnsafeBytes { raw in
            var r = UnsafeSyntaxReader(raw)
            r.position = start
            do throws(H264Error) {
                let value = try body(&r)
                return (.success(value), r.position)
            } catch {
                return (.failure(error), r.position)
            }
        }
    }

    /// `body`'s result, run with the reading implementation at this position over `bytes`.
    @inlinable
    func looking<R>(_ body: (UnsafeSyntaxReader) -> R) -> R {
        let start = position
        return bytes.withUnsafeBytes { raw in
            var r = UnsafeSyntaxReader(raw)
            r.position = start
            return body(r)
        }
    }

    /// Runs `body` at this position and moves to where it ended (as far as it read when it
    /// threw, as each element's reader leaves it).
    @inlinable
    mutating func read<R>(_ body: (inout UnsafeSyntaxReader) throws(H264Error) -> R) throws(H264Error) -> R {
        let (result, end) = reading(body)
        position = end
        return try result.get()
    }

    /// Looks at the next `count` bits (0...64) without consuming them. Bits past the end read as 0.
    @inlinable
    public func peekBits(_ count: Int) -> UInt64 {
        precondition(count >= 0 && count <= 64, "peekBits takes 0 to 64 bits")
        return looking { $0.peek(count) }
    }

    /// Reads `count` bits (0...64) as an unsigned integer: the spec's `u(n)` / `f(n)`.
    /// - Throws: ``H264Error/Code/truncated`` when fewer than `count` bits remain.
    @inlinable
    public mutating func readBits(_ count: Int) throws(H264Error) -> UInt64 {
        guard count <= bitsRemaining else { throw .truncated("needed \(count) bits at bit \(bitPosition), \(bitsRemaining) left") }
        precondition(count >= 0 && count <= 64, "readBits takes 0 to 64 bits")
        return try read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.readBits(count) }
    }

    /// Reads one bit as a flag: the spec's `u(1)` for flags.
    @inlinable
    public mutating func readFlag() throws(H264Error) -> Bool {
        try read { (r: inout UnsafeSyntaxReader) throws(H264Error) in
            var flag = false
            try r.flag(&flag, "flag")
            return flag
        }
    }

    /// Reads `count` whole bytes (`count` × `u(8)`); at a byte-aligned position they are copied
    /// in one step.
    /// - Throws: ``H264Error/Code/truncated`` when fewer than `count` bytes remain.
    /// - Complexity: O(count).
    public mutating func readBytes(_ count: Int) throws(H264Error) -> [UInt8] {
        guard count >= 0, count <= bitsRemaining >> 3 else {
            throw .truncated("needed \(count) bytes at bit \(bitPosition), \(bitsRemaining) bits left")
        }
        return try read { (r: inout UnsafeSyntaxReader) throws(H264Error) in
            var out: [UInt8] = []
            try r.bytes(&out, count: count, "bytes")
            return out
        }
    }

    /// Skips `count` bits.
    @inlinable
    public mutating func skipBits(_ count: Int) throws(H264Error) {
        guard count >= 0, count <= bitsRemaining else { throw .truncated("cannot skip \(count) bits at bit \(bitPosition)") }
        position &+= count
    }

    /// Reads an unsigned Exp-Golomb code: the spec's `ue(v)` (9.1).
    ///
    /// At most 31 leading zero bits are accepted (values up to 2^32 - 2); more is
    /// ``H264Error/Code/invalidExpGolomb``.
    @inlinable
    public mutating func readUE() throws(H264Error) -> UInt32 {
        try read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.readUE() }
    }

    /// Reads a signed Exp-Golomb code: the spec's `se(v)` (9.1.1).
    @inlinable
    public mutating func readSE() throws(H264Error) -> Int32 {
        try read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.readSE() }
    }

    /// The spec's `more_rbsp_data()` (7.2): true while there are bits before the
    /// `rbsp_stop_one_bit`, the last 1 bit of the buffer once trailing zero bytes are ignored.
    @inlinable
    public var moreRBSPData: Bool {
        guard let stop = rbspStopBitPosition else { return false }
        return bitPosition < stop
    }

    /// The bit position of the `rbsp_stop_one_bit`: the last set bit in the buffer, or nil when
    /// every bit is zero.
    @inlinable
    public var rbspStopBitPosition: Int? {
        looking { $0.rbspStopBitPosition }
    }

    /// Reads `rbsp_trailing_bits()`: a 1 bit then zero bits up to the byte boundary.
    /// - Throws: ``H264Error/Code/invalidTrailingBits`` when the bits are not of that form.
    @inlinable
    public mutating func readTrailingBits() throws(H264Error) {
        try read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.trailingBits() }
    }

    /// Moves to a bit position previously read from ``bitPosition``.
    @inlinable
    public mutating func seek(toBit position: Int) throws(H264Error) {
        guard position >= 0, position <= bitCount else { throw .truncated("seek to bit \(position) of \(bitCount)") }
        self.position = position
    }
}
