/// The name of a syntax element as the specification (and FFmpeg's `trace_headers`) spell it,
/// with up to two array subscripts: `offset_for_ref_frame[3]`, `luma_weight_l0[1]`.
///
/// Costs nothing when nobody traces: it is a static string and two integers.
public struct SyntaxName: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The element name without subscripts.
    public let base: StaticString
    /// Number of subscripts (0, 1 or 2).
    public let subscriptCount: Int
    /// The first subscript (when `subscriptCount >= 1`).
    public let i: Int
    /// The second subscript (when `subscriptCount == 2`).
    public let j: Int

    @inlinable public init(stringLiteral value: StaticString) {
        base = value; subscriptCount = 0; i = 0; j = 0
    }
    @inlinable public init(_ base: StaticString) {
        self.base = base; subscriptCount = 0; i = 0; j = 0
    }
    @inlinable public init(_ base: StaticString, _ i: Int) {
        self.base = base; subscriptCount = 1; self.i = i; j = 0
    }
    @inlinable public init(_ base: StaticString, _ i: Int, _ j: Int) {
        self.base = base; subscriptCount = 2; self.i = i; self.j = j
    }

    public var description: String {
        switch subscriptCount {
        case 0: return "\(base)"
        case 1: return "\(base)[\(i)]"
        default: return "\(base)[\(i)][\(j)]"
        }
    }

    /// Equal names print alike: the same base text and subscripts.
    public static func == (a: SyntaxName, b: SyntaxName) -> Bool {
        guard a.subscriptCount == b.subscriptCount, a.i == b.i, a.j == b.j else { return false }
        return a.base.withUTF8Buffer { x in b.base.withUTF8Buffer { y in x.elementsEqual(y) } }
    }

    public func hash(into hasher: inout Hasher) {
        base.withUTF8Buffer { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(subscriptCount)
        hasher.combine(i)
        hasher.combine(j)
    }
}

/// One syntax description drives reading, writing and tracing.
///
/// Each H.264 structure is transcribed once from its syntax table as a generic
/// `mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error)`. A reading coder fills
/// the `inout` values from bits; a writing coder emits them; a tracing coder wraps a reader and
/// records every element with its bit position. Generic specialisation removes the dispatch.
///
/// Range checks live here, in one place: a reader throws ``H264Error/Code/valueOutOfRange`` for
/// a value outside `range`, and a writer refuses to write one.
public protocol SyntaxCoder {
    /// True when the coder fills values from a bitstream; false when it writes them.
    var isReading: Bool { get }

    /// Current bit position in the RBSP (counted from the NAL unit header's first bit when the
    /// coder was made over a whole NAL unit).
    var bitPosition: Int { get }

    /// `u(n)` / `f(n)`: `bits` bits (0...32) as an unsigned integer.
    mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error)

    /// `u(n)` with a range check.
    mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error)

    /// `ue(v)` with a range check.
    mutating func ue<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error)

    /// `se(v)` with a range check.
    mutating func se<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error)

    /// `i(n)`: `bits` bits (1...32) as a two's-complement signed integer (SEI `time_offset`).
    /// A default implementation over ``u(_:_:_:)`` is provided; tracers override it to record
    /// the signed value.
    mutating func i<T: FixedWidthInteger & SignedInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error)

    /// A one-bit flag.
    mutating func flag(_ value: inout Bool, _ name: SyntaxName) throws(H264Error)

    /// `more_rbsp_data()` (7.2). When writing, returns `writerAnswer`, the structure's own
    /// knowledge of whether optional fields follow.
    mutating func moreRBSPData(writerAnswer: Bool) -> Bool

    /// `rbsp_trailing_bits()`.
    mutating func trailingBits() throws(H264Error)

    /// Bytes of an opaque payload (SEI payloads kept raw, user data): reads `count` bytes into
    /// `bytes`, or writes `bytes` (whose count must be `count`). Must be byte aligned.
    mutating func bytes(_ bytes: inout [UInt8], count: Int, _ name: SyntaxName) throws(H264Error)

    /// Bytes that are each a syntax element, named `name(i)` (`user_data_payload_byte[3]`):
    /// reads `count` bytes into `bytes`, or writes `bytes` (whose count must be `count`).
    /// The default codes one `u(8)` per byte, so a tracer sees every element; a reader may
    /// read them in one step.
    mutating func byteElements(_ bytes: inout [UInt8], count: Int, _ name: (Int) -> SyntaxName) throws(H264Error)

    /// One bits up to the next byte boundary (`cabac_alignment_one_bit`), each an element
    /// named `name`: reads and checks them, or writes them. The default codes them one by one
    /// with ``fixed(_:_:_:)``, so a tracer sees every bit; a reader may read them in one step.
    /// - Throws: ``H264Error/Code/invalidBitstream`` when a bit read is 0; the coder's errors.
    mutating func alignmentOnes(_ name: SyntaxName) throws(H264Error)

    /// True when the coder is reading and has no bits left.
    var isAtEnd: Bool { get }

    /// An element the syntax does not code here, whose value the specification infers
    /// (FFmpeg's `infer()`): a reader sets `value` to `inferred`; a writer checks that `value`
    /// equals it. A default implementation does exactly that.
    /// - Throws: ``H264Error/Code/valueOutOfRange`` when writing a value that contradicts the
    ///   inference.
    mutating func infer<T: Equatable>(_ value: inout T, _ inferred: T, _ name: SyntaxName) throws(H264Error)

    /// Makes `array` ready for coding `count` elements, one per index (reading: `count` copies
    /// of `fill`; writing: checks the count). A default implementation does that; see
    /// ``SyntaxCoder/prepare(_:count:limit:fill:_:)``.
    mutating func prepare<T>(_ array: inout [T], count: Int, limit: Int, fill: T, _ name: SyntaxName) throws(H264Error)

    /// Reads `count` bits (0...32) that follow the next `skip` bits, without consuming anything
    /// (and without a tracer recording them). Only meaningful when ``isReading``.
    ///
    /// Syntax tables that branch on bits not yet read (the 0xFF runs of SEI message headers,
    /// `show_bits` in FFmpeg) use this, so that the element is then read under its right name.
    /// The library's readers look at their bytes; the default implementation reads from a copy
    /// of the coder, in O(1 + skip / 32) elements.
    /// - Throws: ``H264Error/Code/truncated`` when the bits are not there.
    func peekBits(_ count: Int, skipping skip: Int) throws(H264Error) -> UInt32

    /// The error to throw for an element that cannot be coded: `make()`, unless the coder
    /// reports failures another way. The default returns `make()`; the library's reader of a
    /// slice header's escaped bytes, whose failures its caller does not report (it reads the
    /// header again from the RBSP), returns one shared error instead and builds no message.
    func failure(_ make: () -> H264Error) -> H264Error
}

extension SyntaxCoder {
    @inlinable
    public mutating func infer<T: Equatable>(_ value: inout T, _ inferred: T, _ name: SyntaxName) throws(H264Error) {
        if isReading {
            value = inferred
        } else if value != inferred {
            throw SyntaxInference.contradiction(name, value, inferred)
        }
    }
}

/// The error of a written value that contradicts its inferred value.
@usableFromInline enum SyntaxInference {
    /// ``H264Error/Code/valueOutOfRange``: `name` holds `value`, where the syntax infers `inferred`.
    @usableFromInline @inline(never)
    static func contradiction<T>(_ name: SyntaxName, _ value: T, _ inferred: T) -> H264Error {
        H264Error.invalid(.valueOutOfRange, "\(name) is \(value), which contradicts its inferred value \(inferred)")
    }
}

/// Reads syntax elements from an RBSP.
///
/// Every element is read by the library's one reading implementation, through ``BitReader``
/// (values, errors and positions as the parsers' own reader gives them).
public struct SyntaxReader: SyntaxCoder {
    /// The underlying bit reader.
    public var reader: BitReader

    /// Creates a reader over an RBSP.
    @inlinable public init(_ rbsp: ArraySlice<UInt8>) { reader = BitReader(rbsp) }
    /// Creates a reader from a positioned bit reader.
    @inlinable public init(_ reader: BitReader) { self.reader = reader }

    @inlinable public var isReading: Bool { true }
    @inlinable public var bitPosition: Int { reader.bitPosition }
    @inlinable public var isAtEnd: Bool { reader.bitsRemaining == 0 }

    @inlinable
    public mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error) {
        try reader.read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.u(bits, &value, name) }
    }

    @inlinable
    public mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        try reader.read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.u(bits, &value, name, range) }
    }

    @inlinable
    public mutating func ue<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        try reader.read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.ue(&value, name, range) }
    }

    @inlinable
    public mutating func se<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        try reader.read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.se(&value, name, range) }
    }

    @inlinable
    public mutating func flag(_ value: inout Bool, _ name: SyntaxName) throws(H264Error) {
        try reader.read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.flag(&value, name) }
    }

    @inlinable
    public mutating func moreRBSPData(writerAnswer: Bool) -> Bool { reader.moreRBSPData }

    @inlinable
    public mutating func trailingBits() throws(H264Error) { try reader.readTrailingBits() }

    public mutating func bytes(_ bytes: inout [UInt8], count: Int, _ name: SyntaxName) throws(H264Error) {
        try reader.read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.bytes(&bytes, count: count, name) }
    }

    /// Reads the bytes in one step: only a tracer needs one element per byte.
    public mutating func byteElements(_ bytes: inout [UInt8], count: Int, _ name: (Int) -> SyntaxName) throws(H264Error) {
        try self.bytes(&bytes, count: count, name(0))
    }

    /// Reads `count` bits (0...32) after the next `skip` bits from a copy of the position.
    public func peekBits(_ count: Int, skipping skip: Int) throws(H264Error) -> UInt32 {
        var copy = reader
        return try copy.read { (r: inout UnsafeSyntaxReader) throws(H264Error) in try r.peekBits(count, skipping: skip) }
    }
}

/// Writes syntax elements into an RBSP.
public struct SyntaxWriter: SyntaxCoder {
    /// The underlying bit writer.
    public var writer: BitWriter

    /// Creates an empty writer.
    public init() { writer = BitWriter() }

    public var isReading: Bool { false }
    public var bitPosition: Int { writer.bitCount }
    public var isAtEnd: Bool { false }

    public mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error) {
        guard value >= 0, bits >= 64 || UInt64(value) >> UInt64(bits) == 0 else {
            throw .outOfRange("\(name)", Int64(truncatingIfNeeded: value))
        }
        writer.writeBits(UInt64(truncatingIfNeeded: value), bits)
    }

    public mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        guard range.contains(value) else { throw .outOfRange("\(name)", Int64(truncatingIfNeeded: value)) }
        try u(bits, &value, name)
    }

    public mutating func ue<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        guard range.contains(value), value >= 0, let v = UInt32(exactly: value), v != UInt32.max else {
            throw .outOfRange("\(name)", Int64(truncatingIfNeeded: value))
        }
        writer.writeUE(v)
    }

    public mutating func se<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        guard range.contains(value), let v = Int32(exactly: value), v != Int32.min else {
            throw .outOfRange("\(name)", Int64(truncatingIfNeeded: value))
        }
        writer.writeSE(v)
    }

    public mutating func flag(_ value: inout Bool, _ name: SyntaxName) throws(H264Error) {
        writer.writeFlag(value)
    }

    public mutating func moreRBSPData(writerAnswer: Bool) -> Bool { writerAnswer }

    public mutating func trailingBits() throws(H264Error) { writer.writeTrailingBits() }

    public mutating func bytes(_ bytes: inout [UInt8], count: Int, _ name: SyntaxName) throws(H264Error) {
        guard bytes.count == count else { throw .outOfRange("\(name) byte count", Int64(bytes.count)) }
        for b in bytes { writer.writeBits(UInt64(b), 8) }
    }
}
