/// A coder that lets a structure read no further than a given bit position.
///
/// An SEI payload (D.1) is parsed from its own `payloadSize` bytes: wrapping the message's coder
/// in a `BoundedSyntaxCoder` whose ``limit`` is the payload's last bit makes any element that
/// would cross into the next message throw ``H264Error/Code/truncated`` instead. Writing is not
/// bounded (the writer decides the size).
///
/// The wrapped coder is held by value; take it back from ``inner`` when done.
public struct BoundedSyntaxCoder<Inner: SyntaxCoder>: SyntaxCoder {
    /// The coder doing the work.
    public var inner: Inner
    /// The first bit position (in `inner`'s numbering) that may not be read.
    public let limit: Int

    /// Wraps `inner` so that reading stops at bit position `limit`.
    public init(_ inner: Inner, limit: Int) {
        self.inner = inner
        self.limit = limit
    }

    /// Bits left before ``limit`` (0 when writing).
    public var bitsRemaining: Int { isReading ? Swift.max(0, limit &- inner.bitPosition) : 0 }

    public var isReading: Bool { inner.isReading }
    public var bitPosition: Int { inner.bitPosition }
    /// True when reading and ``limit`` has been reached.
    public var isAtEnd: Bool { isReading && inner.bitPosition >= limit }

    private func require(_ bits: Int, _ name: SyntaxName) throws(H264Error) {
        guard !isReading || bits <= bitsRemaining else {
            throw .truncated("\(name): \(bits) bits wanted, \(bitsRemaining) left in the payload")
        }
    }

    private func checkOvershoot(_ name: SyntaxName) throws(H264Error) {
        guard !isReading || inner.bitPosition <= limit else {
            throw .truncated("\(name) runs past the end of the payload")
        }
    }

    public mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error) {
        try require(bits, name)
        try inner.u(bits, &value, name)
    }

    public mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        try require(bits, name)
        try inner.u(bits, &value, name, range)
    }

    public mutating func ue<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        try require(1, name)
        try inner.ue(&value, name, range)
        try checkOvershoot(name)
    }

    public mutating func se<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        try require(1, name)
        try inner.se(&value, name, range)
        try checkOvershoot(name)
    }

    public mutating func flag(_ value: inout Bool, _ name: SyntaxName) throws(H264Error) {
        try require(1, name)
        try inner.flag(&value, name)
    }

    /// When reading: whether bits remain before ``limit``. When writing: `writerAnswer`.
    public mutating func moreRBSPData(writerAnswer: Bool) -> Bool {
        isReading ? inner.bitPosition < limit : writerAnswer
    }

    public mutating func trailingBits() throws(H264Error) {
        try require(1, "rbsp_stop_one_bit")
        try inner.trailingBits()
        try checkOvershoot("rbsp_alignment_zero_bit")
    }

    public mutating func bytes(_ bytes: inout [UInt8], count: Int, _ name: SyntaxName) throws(H264Error) {
        guard !isReading || (count >= 0 && count <= bitsRemaining / 8) else {
            throw .truncated("\(name): \(count) bytes wanted, \(bitsRemaining / 8) left in the payload")
        }
        try inner.bytes(&bytes, count: count, name)
    }

    public mutating func byteElements(_ bytes: inout [UInt8], count: Int, _ name: (Int) -> SyntaxName) throws(H264Error) {
        guard !isReading || (count >= 0 && count <= bitsRemaining / 8) else {
            throw .truncated("\(name(0)): \(count) bytes wanted, \(bitsRemaining / 8) left in the payload")
        }
        try inner.byteElements(&bytes, count: count, name)
    }

    /// The inner coder's look-ahead, within ``limit``.
    public func peekBits(_ count: Int, skipping skip: Int) throws(H264Error) -> UInt32 {
        guard skip >= 0, count >= 0, !isReading || (skip <= bitsRemaining && count <= bitsRemaining &- skip) else {
            throw .truncated("look-ahead of \(count) bits after \(skip) runs past the payload (\(bitsRemaining) bits left)")
        }
        return try inner.peekBits(count, skipping: skip)
    }

    /// The inner coder's failure.
    public func failure(_ make: () -> H264Error) -> H264Error { inner.failure(make) }
}
