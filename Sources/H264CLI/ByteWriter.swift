/// Writes text as UTF-8 bytes into memory reserved for it in advance, with no check of
/// capacity or uniqueness per byte: how `inspect` writes a line per access unit.
///
/// ```swift
/// ByteWriter.append(to: &bytes, atMost: 64) { w in
///     w.write("\"index\":")
///     w.writeDecimal(index)
/// }
/// ```
/// The bound is the caller's promise: a write past it stops the program (each write checks it).
struct ByteWriter: ~Copyable {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// The number of bytes written.
    private(set) var count = 0

    private init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    /// Appends to `bytes` what `body` writes, at most `bound` bytes.
    static func append(to bytes: inout [UInt8], atMost bound: Int, _ body: (inout ByteWriter) -> Void) {
        bytes.append(addingCapacity: bound) { (span: inout OutputSpan<UInt8>) in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                var writer = ByteWriter(buffer)
                body(&writer)
                initialized = writer.count
            }
        }
    }

    /// Writes one byte.
    mutating func write(_ byte: UInt8) {
        precondition(count < buffer.count, "ByteWriter: more than the bound")
        buffer[count] = byte
        count &+= 1
    }

    /// Writes ASCII or UTF-8 text known at compile time.
    mutating func write(_ text: StaticString) {
        text.withUTF8Buffer { source in
            let end = count + source.count
            precondition(end <= buffer.count, "ByteWriter: more than the bound")
            UnsafeMutableRawPointer(buffer.baseAddress! + count).copyMemory(from: source.baseAddress!, byteCount: source.count)
            count = end
        }
    }

    /// Writes bytes.
    mutating func write(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { source in
            let end = count + source.count
            precondition(end <= buffer.count, "ByteWriter: more than the bound")
            if let base = source.baseAddress { (buffer.baseAddress! + count).update(from: base, count: source.count) }
            count = end
        }
    }

    /// Writes `true` or `false`.
    mutating func write(_ value: Bool) { write(value ? "true" : "false") }

    /// The most bytes ``writeDecimal(_:)`` writes: a sign and 19 digits (`Int64.min`).
    static let maximumDecimalLength = 20

    /// Writes `value` in decimal, as `String(value)` does.
    mutating func writeDecimal(_ value: Int64) {
        if value < 0 { write(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let digits = Self.decimalLength(magnitude)
        let end = count + digits
        precondition(end <= buffer.count, "ByteWriter: more than the bound")
        var i = end
        while magnitude >= 10 {
            let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
            i &-= 1
            buffer[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remainder)
            magnitude = quotient
        }
        buffer[i &- 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
        count = end
    }

    /// The number of decimal digits of `value` (1 for 0).
    private static func decimalLength(_ value: UInt64) -> Int {
        var length = 1
        var limit: UInt64 = 10
        while value >= limit {
            length &+= 1
            if length == 20 { break }  // 10^19 <= value: UInt64 has at most 20 digits
            limit &*= 10
        }
        return length
    }

    /// Writes `value` right-aligned in `width` columns, or followed by a space when it fills
    /// them (the columns of `inspect`'s table).
    mutating func writePadded(_ value: Int64, width: Int) {
        let length = (value < 0 ? 1 : 0) &+ Self.decimalLength(value.magnitude)
        writeSpaces(width &- length)
        writeDecimal(value)
        if length >= width { write(UInt8(ascii: " ")) }
    }

    /// Writes ASCII `text` right-aligned in `width` columns, or followed by a space when it
    /// fills them.
    mutating func writePadded(_ text: StaticString, width: Int) {
        writeSpaces(width &- text.utf8CodeUnitCount)
        write(text)
        if text.utf8CodeUnitCount >= width { write(UInt8(ascii: " ")) }
    }

    private mutating func writeSpaces(_ n: Int) {
        var n = n
        while n > 0 { write(UInt8(ascii: " ")); n &-= 1 }
    }
}
