/// Big-endian writes into a byte array, the writing half of ``ByteReader``: `write*` appends,
/// `set*` overwrites bytes already written (a size filled in once the body is written, the
/// `writeLengthPrefixed` pattern of swift-nio). The one writer of the modules above the core
/// (FLV tags and AMF0, RTMP chunks, MP4 boxes through `BoxWriter`, RTP and RTCP headers).
///
/// Each width has its own method, so that a literal is never written at `Int`'s 8 bytes by
/// mistake. A value wider than its field (`writeUInt24`) keeps its low bits: callers that must
/// not lose bits check the range first.
extension Array where Element == UInt8 {
    /// Appends `value` as big-endian bytes, all of `T`'s width.
    /// - Complexity: amortised O(1).
    @inlinable
    package mutating func writeInteger<T: FixedWidthInteger>(_ value: T, as type: T.Type = T.self) {
        appendBigEndian(value, byteCount: MemoryLayout<T>.size)
    }

    /// Appends the low `byteCount` bytes of `value` (at most its width), most significant first.
    ///
    /// A byte at a time: `append(_:)` is small enough to be inlined in every module, where
    /// `append(addingCapacity:)` and `append(contentsOf:)` of the value's bytes are called out
    /// of line. An RTP header (a `UInt64` and a `UInt32`) written from another module takes
    /// 23 ns so, 24 ns as one `append(contentsOf:)` of its 12 bytes, 31 ns with
    /// `append(addingCapacity:)` per field, 33 ns with `append(contentsOf:)` per field (release
    /// build, the 2-core machine of Docs/Benchmarks.md).
    @inlinable @inline(__always)
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T, byteCount: Int) {
        var shift = byteCount &* 8  // byteCount <= 8
        while shift > 0 {
            shift &-= 8  // from (byteCount - 1) * 8 down to 0
            append(UInt8(truncatingIfNeeded: value &>> shift))
        }
    }

    /// Appends two big-endian integers with one copy (swift-nio's `writeMultipleIntegers`): a
    /// fixed header written per packet. The fields are stored into a small stack buffer and
    /// appended at once: an RTP header (a `UInt64` and a `UInt32`) costs one `append` instead of
    /// twelve.
    /// - Complexity: amortised O(1).
    @inlinable
    package mutating func writeMultipleIntegers<T1: FixedWidthInteger, T2: FixedWidthInteger>(_ value1: T1, _ value2: T2) {
        let size1 = MemoryLayout<T1>.size
        withUnsafeTemporaryAllocation(byteCount: size1 &+ MemoryLayout<T2>.size, alignment: 1) { raw in
            raw.storeBytes(of: value1.bigEndian, as: T1.self)
            raw.storeBytes(of: value2.bigEndian, toByteOffset: size1, as: T2.self)
            append(contentsOf: UnsafeRawBufferPointer(raw))
        }
    }

    /// Appends a big-endian `UInt16`.
    @inlinable
    package mutating func writeUInt16(_ value: UInt16) { writeInteger(value) }

    /// Appends the low 24 bits of `value`, big-endian (FLV `UI24`, an MP4 full box's flags).
    @inlinable
    package mutating func writeUInt24(_ value: UInt32) { appendBigEndian(value, byteCount: 3) }

    /// Appends the low 24 bits of `value`, two's complement, big-endian (FLV `SI24`).
    @inlinable
    package mutating func writeInt24(_ value: Int32) { writeUInt24(UInt32(bitPattern: value)) }

    /// Appends a big-endian `UInt32`.
    @inlinable
    package mutating func writeUInt32(_ value: UInt32) { writeInteger(value) }

    /// Appends a big-endian `UInt64`.
    @inlinable
    package mutating func writeUInt64(_ value: UInt64) { writeInteger(value) }

    /// Appends a big-endian two's-complement `Int16`.
    @inlinable
    package mutating func writeInt16(_ value: Int16) { writeInteger(value) }

    /// Appends a big-endian two's-complement `Int32`.
    @inlinable
    package mutating func writeInt32(_ value: Int32) { writeInteger(value) }

    /// Appends a big-endian two's-complement `Int64`.
    @inlinable
    package mutating func writeInt64(_ value: Int64) { writeInteger(value) }

    /// Appends `count` zero bytes (reserved fields).
    @inlinable
    package mutating func writeZeros(_ count: Int) {
        append(contentsOf: repeatElement(0, count: count))
    }

    /// Overwrites the bytes at `index ..< index + 4` with `value`, big-endian.
    /// - Precondition: the four bytes lie in the array (checked once, then one store).
    @inlinable
    package mutating func setUInt32(_ value: UInt32, at index: Int) {
        precondition(index >= 0 && index <= count &- 4, "setUInt32 outside the array")
        withUnsafeMutableBytes { $0.storeBytes(of: value.bigEndian, toByteOffset: index, as: UInt32.self) }
    }
}
