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

    /// The most bytes ``writeDecimal(_:)`` writes: a sign and 19 digits.
    static let maximumDecimalLength = 20

    /// Writes `value` in decimal, as `String(value)` does.
    mutating func writeDecimal(_ value: Int64) {
        if value < 0 { write(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            write(UInt8(ascii: "0") &+ UInt8(magnitude))
            return
        }
        var digits = 0
        var rest = magnitude
        while rest > 0 { digits &+= 1; rest /= 10 }
        let end = count + digits
        precondition(end <= buffer.count, "ByteWriter: more than the bound")
        var i = end
        while magnitude > 0 {
            i &-= 1
            buffer[i] = UInt8(ascii: "0") &+ UInt8(magnitude % 10)
            magnitude /= 10
        }
        count = end
    }

    /// Writes `value` right-aligned in `width` columns, or followed by a space when it fills
    /// them (the columns of `inspect`'s table).
    mutating func writePadded(_ value: Int64, width: Int) {
        var length = value < 0 ? 2 : 1
        var rest = value.magnitude / 10
        while rest > 0 { length &+= 1; rest /= 10 }
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
