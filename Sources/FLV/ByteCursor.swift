import H264

/// Big-endian reads from a byte slice, for the FLV, AMF0 and RTMP parsers.
///
/// `read*` consumes, `peek*` looks; every read checks the remaining length first and throws
/// ``FLVError/Code/truncated`` instead of trapping. Indices are relative to the slice's
/// `startIndex`, never 0.
package struct ByteCursor: Sendable {
    /// The bytes not yet consumed.
    package private(set) var remaining: ArraySlice<UInt8>

    /// Creates a cursor over `bytes`.
    package init(_ bytes: ArraySlice<UInt8>) { remaining = bytes }

    /// Number of bytes not yet consumed.
    package var count: Int { remaining.count }

    /// True when every byte has been consumed.
    package var isAtEnd: Bool { remaining.isEmpty }

    /// Index (in the original buffer) of the next byte.
    package var position: Int { remaining.startIndex }

    /// Consumes `n` bytes and returns them as a view.
    package mutating func readBytes(_ n: Int, _ what: @autoclosure () -> String = "bytes") throws(FLVError) -> ArraySlice<UInt8> {
        guard n >= 0, n <= remaining.count else {
            throw FLVError.truncated("\(what()): needs \(n) bytes, \(remaining.count) left")
        }
        let start = remaining.startIndex
        let end = start &+ n  // n <= count, so start + n <= endIndex
        defer { remaining = remaining[end...] }
        return remaining[start..<end]
    }

    /// Skips `n` bytes.
    package mutating func skip(_ n: Int, _ what: @autoclosure () -> String = "bytes") throws(FLVError) {
        _ = try readBytes(n, what())
    }

    /// Reads an unsigned big-endian integer of `size` bytes (1...8).
    package mutating func readUInt(_ size: Int, _ what: @autoclosure () -> String = "integer") throws(FLVError) -> UInt64 {
        let bytes = try readBytes(size, what())
        var v: UInt64 = 0
        for b in bytes { v = v << 8 | UInt64(b) }
        return v
    }

    /// Reads one byte.
    package mutating func readUInt8(_ what: @autoclosure () -> String = "byte") throws(FLVError) -> UInt8 {
        guard let b = remaining.first else { throw FLVError.truncated("\(what()): no bytes left") }
        remaining = remaining.dropFirst()
        return b
    }

    /// Reads a big-endian `UInt16`.
    package mutating func readUInt16(_ what: @autoclosure () -> String = "UInt16") throws(FLVError) -> UInt16 {
        UInt16(truncatingIfNeeded: try readUInt(2, what()))
    }

    /// Reads a big-endian 24-bit unsigned integer.
    package mutating func readUInt24(_ what: @autoclosure () -> String = "UInt24") throws(FLVError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readUInt(3, what()))
    }

    /// Reads a big-endian 24-bit two's-complement integer (FLV `SI24`).
    package mutating func readInt24(_ what: @autoclosure () -> String = "SI24") throws(FLVError) -> Int32 {
        let u = try readUInt24(what())
        return Int32(bitPattern: u << 8) >> 8  // sign-extend bit 23
    }

    /// Reads a big-endian `UInt32`.
    package mutating func readUInt32(_ what: @autoclosure () -> String = "UInt32") throws(FLVError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readUInt(4, what()))
    }

    /// Looks at the next byte without consuming it.
    package func peekUInt8() -> UInt8? { remaining.first }
}

/// Big-endian appends, the writing half of ``ByteCursor``.
extension Array where Element == UInt8 {
    /// Appends the low `size` bytes of `value`, most significant first.
    package mutating func writeBigEndian(_ value: UInt64, size: Int) {
        var shift = (size &- 1) &* 8  // size is 1...8 at every call site
        while shift >= 0 {
            append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift &-= 8  // stops at -8: shift starts at most at 56
        }
    }

    /// Appends a big-endian `UInt16`.
    package mutating func writeUInt16(_ v: UInt16) { writeBigEndian(UInt64(v), size: 2) }
    /// Appends a big-endian 24-bit value (the low 24 bits of `v`).
    package mutating func writeUInt24(_ v: UInt32) { writeBigEndian(UInt64(v), size: 3) }
    /// Appends a big-endian `UInt32`.
    package mutating func writeUInt32(_ v: UInt32) { writeBigEndian(UInt64(v), size: 4) }
}
