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
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    /// Appends a big-endian `UInt16`.
    @inlinable
    package mutating func writeUInt16(_ value: UInt16) { writeInteger(value) }

    /// Appends the low 24 bits of `value`, big-endian (FLV `UI24`, an MP4 full box's flags).
    @inlinable
    package mutating func writeUInt24(_ value: UInt32) {
        // The low three bytes of the big-endian word: bytes 1...3 of its memory.
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[1...])) }
    }

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
