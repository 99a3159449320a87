/// Why a ``ByteReader`` read failed: the neutral failure every module maps to its own error at
/// its edge (``ByteReadErrorMapping``).
///
/// A plain value (no allocation): a parser that meets the end of what it has so far (an RTMP
/// chunk, an FLV tag cut by a chunk boundary) and waits for more pays nothing for it.
@usableFromInline
package struct ByteReadError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    @usableFromInline
    package enum Kind: Hashable, Sendable {
        /// The read needs more bytes than are left.
        case truncated
        /// A count or offset that no read can satisfy: negative, or beyond `Int`.
        case outOfRange
    }

    /// The kind of failure.
    package var kind: Kind
    /// What was being read: the format's name for the field (`FLV tag DataSize`), or the width.
    package var field: StaticString
    /// The bytes the read needed (``Kind/truncated``), or the count or offset asked for
    /// (``Kind/outOfRange``; a value beyond `Int` is given as `Int.max`).
    package var requested: Int
    /// The bytes left when it failed.
    package var available: Int

    /// Creates a failure.
    package init(_ kind: Kind, field: StaticString, requested: Int, available: Int) {
        self.kind = kind
        self.field = field
        self.requested = requested
        self.available = available
    }

    /// `field: needs N bytes, M left`, or `field: N is out of range (M bytes left)`.
    @usableFromInline
    package var description: String {
        switch kind {
        case .truncated: "\(field): needs \(requested) bytes, \(available) left"
        case .outOfRange: "\(field): \(requested) is out of range (\(available) bytes left)"
        }
    }
}

/// How a module turns a ``ByteReadError`` into its own error: the one small mapping function
/// per module, given to ``ByteReader`` as its generic parameter (`ByteReader<FLVByteReads>`),
/// so that a read throws the module's error directly.
///
/// A caseless enum per module rather than a conformance of the module's error type: the error
/// types may share one generic shell, whose specialisations cannot each conform.
@usableFromInline
package protocol ByteReadErrorMapping {
    /// The module's error.
    associatedtype Failure: Error
    /// The module's error for `error`.
    static func failure(_ error: ByteReadError) -> Failure
}

extension ByteReadError: ByteReadErrorMapping {
    /// The neutral error itself: `ByteReader<ByteReadError>` throws ``ByteReadError``.
    @inlinable
    package static func failure(_ error: ByteReadError) -> ByteReadError { error }
}

/// Big-endian reads from bytes in memory, the one reader of the modules above the core (FLV,
/// AMF0, RTMP, MP4 boxes, RTP and RTCP headers).
///
/// The vocabulary is swift-nio's `ByteBuffer`'s: `read*` consumes, `peek*` looks without
/// consuming, `skip` moves on. Every read checks the bytes left once (not per byte) and throws
/// `Mapping.Failure`, the module's error for a ``ByteReadError``, instead of trapping. Indices
/// are those of the slice given (``position`` counts from its `startIndex`, never from 0);
/// slices handed out are views of it, not copies.
///
/// Memory: two words and the slice (a view).
@usableFromInline
package struct ByteReader<Mapping: ByteReadErrorMapping> {
    /// Every byte the reader was given, read or not.
    @usableFromInline package let bytes: ArraySlice<UInt8>
    /// Index (in ``bytes``) of the next byte: from `bytes.startIndex` to `bytes.endIndex`.
    @usableFromInline var _position: Int

    /// Creates a reader at the start of `bytes`.
    @inlinable
    package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        _position = bytes.startIndex
    }

    /// Index (in ``bytes``) of the next byte: from `bytes.startIndex` to `bytes.endIndex`.
    @inlinable
    package var position: Int { _position }

    /// Number of bytes not yet consumed.
    @inlinable
    package var count: Int { bytes.endIndex &- position }  // position <= endIndex

    /// True when every byte has been consumed.
    @inlinable
    package var isAtEnd: Bool { position == bytes.endIndex }

    /// The bytes not yet consumed (a view).
    @inlinable
    package var remaining: ArraySlice<UInt8> { bytes[position...] }

    // MARK: Failures

    @inline(never) @usableFromInline
    static func truncated(_ field: StaticString, _ requested: Int, _ available: Int) -> Mapping.Failure {
        Mapping.failure(ByteReadError(.truncated, field: field, requested: requested, available: available))
    }

    @inline(never) @usableFromInline
    static func outOfRange(_ field: StaticString, _ requested: Int, _ available: Int) -> Mapping.Failure {
        Mapping.failure(ByteReadError(.outOfRange, field: field, requested: requested, available: available))
    }

    // MARK: Bytes

    /// Consumes `n` bytes and returns them as a view.
    /// - Throws: ``ByteReadError/Kind/truncated`` when fewer are left,
    ///   ``ByteReadError/Kind/outOfRange`` for a negative `n` (mapped by `Mapping`).
    @inlinable
    package mutating func readBytes(_ n: Int, _ field: StaticString = "bytes") throws(Mapping.Failure) -> ArraySlice<UInt8> {
        guard n >= 0 else { throw Self.outOfRange(field, n, count) }
        guard n <= count else { throw Self.truncated(field, n, count) }
        let start = position
        _position &+= n  // n <= count: at most endIndex
        return bytes[start..<position]
    }

    /// Consumes a count of bytes given as any integer (a 64-bit box size, a 32-bit length):
    /// `Int(exactly:)`, then `readBytes(_:_:)` with an `Int`.
    /// - Throws: ``ByteReadError/Kind/outOfRange`` when `n` is negative or beyond `Int`,
    ///   ``ByteReadError/Kind/truncated`` when fewer bytes are left.
    @inlinable
    package mutating func readBytes<T: BinaryInteger>(_ n: T, _ field: StaticString = "bytes") throws(Mapping.Failure) -> ArraySlice<UInt8> {
        guard let length = Int(exactly: n) else { throw Self.outOfRange(field, n < 0 ? Int.min : Int.max, count) }
        return try readBytes(length, field)
    }

    /// Skips `n` bytes.
    /// - Throws: as `readBytes(_:_:)` with an `Int`.
    @inlinable
    package mutating func skip(_ n: Int, _ field: StaticString = "bytes") throws(Mapping.Failure) {
        guard n >= 0 else { throw Self.outOfRange(field, n, count) }
        guard n <= count else { throw Self.truncated(field, n, count) }
        _position &+= n  // n <= count
    }

    /// Consumes the rest and returns it as a view.
    @inlinable
    package mutating func readRemaining() -> ArraySlice<UInt8> {
        let start = position
        _position = bytes.endIndex
        return bytes[start...]
    }

    // MARK: Integers

    /// The big-endian integer of `T`'s width at `offset` bytes past ``position``; the caller
    /// has checked that it lies in ``bytes``.
    @inlinable @inline(__always)
    func load<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T {
        // position - startIndex + offset + size <= count of the slice, checked by the caller.
        bytes.loadBigEndian(position &- bytes.startIndex &+ offset, as: T.self)
    }

    /// The big-endian 24-bit value at `offset` bytes past ``position`` (checked by the caller).
    @inlinable @inline(__always)
    func load24(_ offset: Int) -> UInt32 {
        bytes.withUnsafeBytes { raw in
            let o = position &- bytes.startIndex &+ offset  // o + 3 <= raw.count, checked by the caller
            return UInt32(raw[o]) &<< 16 | UInt32(raw[o &+ 1]) &<< 8 | UInt32(raw[o &+ 2])
        }
    }

    /// Reads a big-endian integer of `T`'s width (`UInt16`: two bytes).
    /// - Throws: ``ByteReadError/Kind/truncated`` when fewer bytes are left.
    @inlinable
    package mutating func readInteger<T: FixedWidthInteger>(as type: T.Type = T.self, _ field: StaticString = "integer") throws(Mapping.Failure) -> T {
        let size = MemoryLayout<T>.size
        guard size <= count else { throw Self.truncated(field, size, count) }
        let value = load(0, as: T.self)
        _position &+= size  // size <= count
        return value
    }

    /// Reads one byte.
    @inlinable
    package mutating func readUInt8(_ field: StaticString = "UInt8") throws(Mapping.Failure) -> UInt8 {
        try readInteger(as: UInt8.self, field)
    }

    /// Reads a big-endian `UInt16`.
    @inlinable
    package mutating func readUInt16(_ field: StaticString = "UInt16") throws(Mapping.Failure) -> UInt16 {
        try readInteger(as: UInt16.self, field)
    }

    /// Reads a big-endian 24-bit unsigned integer (FLV `UI24`, an MP4 full box's flags).
    @inlinable
    package mutating func readUInt24(_ field: StaticString = "UInt24") throws(Mapping.Failure) -> UInt32 {
        guard 3 <= count else { throw Self.truncated(field, 3, count) }
        let value = load24(0)
        _position &+= 3  // 3 <= count
        return value
    }

    /// Reads a big-endian `UInt32`.
    @inlinable
    package mutating func readUInt32(_ field: StaticString = "UInt32") throws(Mapping.Failure) -> UInt32 {
        try readInteger(as: UInt32.self, field)
    }

    /// Reads a big-endian `UInt64`.
    @inlinable
    package mutating func readUInt64(_ field: StaticString = "UInt64") throws(Mapping.Failure) -> UInt64 {
        try readInteger(as: UInt64.self, field)
    }

    /// Reads a two's-complement byte.
    @inlinable
    package mutating func readInt8(_ field: StaticString = "Int8") throws(Mapping.Failure) -> Int8 {
        try readInteger(as: Int8.self, field)
    }

    /// Reads a big-endian two's-complement `Int16`.
    @inlinable
    package mutating func readInt16(_ field: StaticString = "Int16") throws(Mapping.Failure) -> Int16 {
        try readInteger(as: Int16.self, field)
    }

    /// Reads a big-endian 24-bit two's-complement integer, sign-extended (FLV `SI24`).
    @inlinable
    package mutating func readInt24(_ field: StaticString = "Int24") throws(Mapping.Failure) -> Int32 {
        Int32(bitPattern: try readUInt24(field) &<< 8) &>> 8  // bit 23 to bit 31, then back
    }

    /// Reads a big-endian two's-complement `Int32`.
    @inlinable
    package mutating func readInt32(_ field: StaticString = "Int32") throws(Mapping.Failure) -> Int32 {
        try readInteger(as: Int32.self, field)
    }

    /// Reads a big-endian two's-complement `Int64`.
    @inlinable
    package mutating func readInt64(_ field: StaticString = "Int64") throws(Mapping.Failure) -> Int64 {
        try readInteger(as: Int64.self, field)
    }

    // MARK: Looking ahead

    /// The next byte, not consumed; nil at the end.
    @inlinable
    package func peekUInt8() -> UInt8? {
        position < bytes.endIndex ? bytes[position] : nil
    }

    /// The big-endian integer of `T`'s width `offset` bytes past ``position``, not consumed;
    /// nil when it does not lie wholly in the bytes left (or `offset` is negative).
    /// - Complexity: O(1): one check, one load (what a loop over a table whose size was
    ///   checked before uses per entry).
    @inlinable
    package func peekInteger<T: FixedWidthInteger>(at offset: Int = 0, as type: T.Type = T.self) -> T? {
        guard offset >= 0, offset <= count &- MemoryLayout<T>.size else { return nil }  // count >= 0, size <= 8
        return load(offset, as: T.self)
    }

    /// The big-endian unsigned integer of `byteCount` bytes (1...8: an AVCC length of 1, 2 or 4
    /// bytes) `offset` bytes past ``position``, not consumed; nil when it does not lie wholly in
    /// the bytes left, or `byteCount` is outside 1...8.
    @inlinable
    package func peekUInt(byteCount: Int, at offset: Int = 0) -> UInt64? {
        guard (1...8).contains(byteCount), offset >= 0, offset <= count &- byteCount else { return nil }
        return bytes.withUnsafeBytes { raw in
            let o = position &- bytes.startIndex &+ offset  // o + byteCount <= raw.count, checked above
            var value: UInt64 = 0
            for i in o..<(o &+ byteCount) { value = value &<< 8 | UInt64(raw[i]) }
            return value
        }
    }

    /// The big-endian 24-bit value `offset` bytes past ``position``, not consumed; nil when it
    /// does not lie wholly in the bytes left.
    @inlinable
    package func peekUInt24(at offset: Int = 0) -> UInt32? {
        guard offset >= 0, offset <= count &- 3 else { return nil }
        return load24(offset)
    }
}

extension ByteReader: Sendable {}

extension ArraySlice where Element == UInt8 {
    /// The big-endian integer of `T`'s width at `offset` bytes past `startIndex`; nil when it
    /// does not lie wholly in the slice (or `offset` is negative). ``ByteReader``'s load, for a
    /// fixed header read in place: a reader holds its own view of the bytes, which costs a
    /// retain and a release per use (5% of depacketising RTP, one header per datagram).
    /// - Complexity: O(1): one check, one load.
    @inlinable
    package func peekInteger<T: FixedWidthInteger>(at offset: Int, as type: T.Type = T.self) -> T? {
        guard offset >= 0, offset <= count &- MemoryLayout<T>.size else { return nil }
        return loadBigEndian(offset, as: T.self)
    }

    /// The big-endian integer of `T`'s width at `offset` bytes past `startIndex`, which the
    /// caller has checked lies in the slice.
    @inlinable @inline(__always)
    func loadBigEndian<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T {
        withUnsafeBytes { T(bigEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
}
