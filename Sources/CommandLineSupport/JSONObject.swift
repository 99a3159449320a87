// The one JSON writer of the command-line programs: every `--json` output of `h264` (JSON Lines:
// one object per line, members in the order they are added) and the benchmark executable's
// report. No unsafe code, no Foundation: text is appended to a byte array, a piece at a time
// through the standard library's `OutputSpan` (whose every write is checked against the room
// reserved for it).

/// A JSON object written as its members are added: the text grows in one byte array (no array
/// of parts, no join).
package struct JSONObject {
    /// The UTF-8 text so far, without the closing brace.
    package private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var hasMembers = false

    /// An empty object.
    package init() {}

    /// Starts a member: the separator and the quoted key (keys are plain ASCII names).
    private mutating func key(_ key: StaticString) {
        let separator = hasMembers
        hasMembers = true
        bytes.append(addingCapacity: key.utf8CodeUnitCount &+ 4) { out in
            if separator { out.append(UInt8(ascii: ",")) }
            JSON.appendKey(key, to: &out)
        }
    }

    /// Starts a member with a key known only at run time.
    private mutating func key(_ key: String) {
        if hasMembers { bytes.append(UInt8(ascii: ",")) }
        hasMembers = true
        JSON.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func decimal(_ value: Int64) {
        bytes.append(addingCapacity: JSON.maximumDecimalLength) { JSON.appendDecimal(value, to: &$0) }
    }

    package mutating func add(_ key: StaticString, _ value: Int) { self.key(key); decimal(Int64(value)) }
    package mutating func add(_ key: StaticString, _ value: Int64) { self.key(key); decimal(value) }
    package mutating func add(_ key: StaticString, _ value: Double) { self.key(key); JSON.appendNumber(value, to: &bytes) }
    package mutating func add(_ key: StaticString, _ value: Bool) {
        self.key(key)
        bytes.append(addingCapacity: 5) { JSON.appendBool(value, to: &$0) }
    }
    package mutating func add(_ key: StaticString, _ value: String) { self.key(key); JSON.appendString(value, to: &bytes) }
    package mutating func add(_ key: StaticString, _ values: [Int]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            decimal(Int64(v))
        }
        bytes.append(UInt8(ascii: "]"))
    }
    package mutating func add(_ key: StaticString, _ values: [String]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSON.appendString(v, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
    package mutating func add(_ key: StaticString, _ object: JSONObject) {
        self.key(key)
        bytes.append(contentsOf: object.bytes)
        bytes.append(UInt8(ascii: "}"))
    }
    package mutating func add(_ key: StaticString, _ objects: [JSONObject]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (i, o) in objects.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: o.renderedBytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
    /// A member whose key is computed (a map keyed by measurement or rule).
    package mutating func add(dynamicKey key: String, _ value: Int) { self.key(key); decimal(Int64(value)) }
    /// A member whose key is computed (a map keyed by measurement).
    package mutating func add(dynamicKey key: String, _ value: Double) { self.key(key); JSON.appendNumber(value, to: &bytes) }
    package mutating func addNull(_ key: StaticString) {
        self.key(key)
        bytes.append(addingCapacity: 4) { JSON.appendLiteral("null", to: &$0) }
    }

    package var rendered: String { String(decoding: renderedBytes, as: UTF8.self) }
    package var renderedBytes: [UInt8] { bytes + [UInt8(ascii: "}")] }
}

/// The pieces of JSON text: what ``JSONObject`` writes with, and what `h264 inspect` writes its
/// line per access unit with, into one reused buffer and room reserved once per line
/// (`Array.append(addingCapacity:initializingWith:)`), the line's start written last.
///
/// The hot pieces (literals, booleans, integers) write into an `OutputSpan`: a write past the
/// room reserved stops the program (the caller's bound is wrong), none writes out of bounds.
/// Inlinable, and one reservation per line rather than a growth check per piece: appended to
/// the array piece by piece, `inspect --json` took 16% more CPU than with the unchecked writer
/// this replaces (212 ms against 183 ms on 68,881 access units of the corpus, `perf stat -r 7`);
/// this way 4-8% more (171-178 ms against 160-165 ms), the table 2.5%.
package enum JSON {
    /// The most bytes ``appendDecimal(_:to:)`` writes: a sign and 19 digits (`Int64.min`).
    package static let maximumDecimalLength = 20

    /// Appends `"key":` (a plain ASCII name): its length plus 3 bytes.
    @inlinable package static func appendKey(_ key: StaticString, to out: inout OutputSpan<UInt8>) {
        out.append(UInt8(ascii: "\""))
        appendLiteral(key, to: &out)
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    /// Appends text known at compile time as it is (`null`, a fragment such as `,"pts":`).
    @inlinable package static func appendLiteral(_ text: StaticString, to out: inout OutputSpan<UInt8>) {
        text.withUTF8Buffer { bytes in
            for byte in bytes { out.append(byte) }
        }
    }

    /// Appends `true` or `false` (at most 5 bytes).
    @inlinable package static func appendBool(_ value: Bool, to out: inout OutputSpan<UInt8>) {
        appendLiteral(value ? "true" : "false", to: &out)
    }

    /// Appends `value` in decimal, as `String(value)` writes it (at most
    /// ``maximumDecimalLength`` bytes).
    @inlinable package static func appendDecimal(_ value: Int64, to out: inout OutputSpan<UInt8>) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var first = out.count
        repeat {  // least significant digit first, then turned around in place
            let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remainder))
            magnitude = quotient
        } while magnitude > 0
        var last = out.count &- 1
        while first < last {
            out.swapAt(first, last)
            first &+= 1
            last &-= 1
        }
    }

    /// Appends a number as `String(value)` writes it, or `null` when it is not finite.
    package static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
    }

    /// Appends `s` as a JSON string: quoted, with `"`, `\` and the control characters escaped.
    package static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {  // the bytes to escape are ASCII: no UTF-8 sequence contains them
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
