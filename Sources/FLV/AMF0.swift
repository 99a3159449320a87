import H264
import MediaSupport

/// One value of Action Message Format version 0 (AMF0), the encoding of FLV script data
/// (`onMetaData`) and of RTMP commands (`connect`, `publish`, `_result`, `onStatus`).
///
/// Objects and ECMA arrays keep their properties in order, as a list, because servers and
/// players read some of them positionally and names may repeat.
public enum AMF0Value: Hashable, Sendable {
    /// An IEEE-754 double (marker 0x00).
    case number(Double)
    /// A boolean (marker 0x01).
    case boolean(Bool)
    /// A UTF-8 string (marker 0x02, or 0x0C "long string" when longer than 65535 bytes).
    case string(String)
    /// An anonymous object: named properties (marker 0x03).
    case object([AMF0Property])
    /// `null` (marker 0x05).
    case null
    /// `undefined` (marker 0x06).
    case undefined
    /// An associative ("ECMA") array: named properties with a count hint (marker 0x08).
    case ecmaArray([AMF0Property])
    /// A dense array of values (marker 0x0A).
    case strictArray([AMF0Value])
    /// A date: milliseconds since 1970 UTC and a time-zone offset in minutes (marker 0x0B);
    /// decoded so that files carrying one can be read, written back the same way.
    case date(milliseconds: Double, timeZone: Int16)

    /// The value of a property of an object or ECMA array, or nil.
    public subscript(name: String) -> AMF0Value? {
        switch self {
        case .object(let props), .ecmaArray(let props): return props.first { $0.name == name }?.value
        default: return nil
        }
    }

    /// The number, or nil for any other kind of value.
    public var number: Double? { if case .number(let n) = self { return n } else { return nil } }
    /// The string, or nil for any other kind of value.
    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    /// The boolean, or nil for any other kind of value.
    public var boolean: Bool? { if case .boolean(let b) = self { return b } else { return nil } }
}

/// A named property of an AMF0 object or ECMA array.
public struct AMF0Property: Hashable, Sendable {
    /// The property name (UTF-8, at most 65535 bytes when encoded).
    public var name: String
    /// The value.
    public var value: AMF0Value

    /// Creates a property.
    public init(_ name: String, _ value: AMF0Value) {
        self.name = name
        self.value = value
    }
}

/// AMF0 encoding and decoding.
public enum AMF0 {
    /// Deepest nesting of objects and arrays the decoder accepts.
    public static let maximumNesting = 32

    enum Marker: UInt8 {
        case number = 0x00, boolean = 0x01, string = 0x02, object = 0x03, movieClip = 0x04
        case null = 0x05, undefined = 0x06, reference = 0x07, ecmaArray = 0x08, objectEnd = 0x09
        case strictArray = 0x0A, date = 0x0B, longString = 0x0C
    }

    // MARK: Encoding

    /// Appends the encoding of `value` to `out`.
    /// - Complexity: O(size of the encoding).
    public static func encode(_ value: AMF0Value, into out: inout [UInt8]) {
        switch value {
        case .number(let n):
            out.append(Marker.number.rawValue)
            out.writeUInt64(n.bitPattern)
        case .boolean(let b):
            out.append(Marker.boolean.rawValue)
            out.append(b ? 1 : 0)
        case .string(let s):
            let utf8 = Array(s.utf8)
            if utf8.count <= Int(UInt16.max) {
                out.append(Marker.string.rawValue)
                out.writeUInt16(UInt16(utf8.count))
            } else {
                out.append(Marker.longString.rawValue)
                out.writeUInt32(UInt32(clamping: utf8.count))
            }
            out.append(contentsOf: utf8.prefix(Int(UInt32.max)))
        case .object(let props):
            out.append(Marker.object.rawValue)
            encodeProperties(props, into: &out)
        case .null:
            out.append(Marker.null.rawValue)
        case .undefined:
            out.append(Marker.undefined.rawValue)
        case .ecmaArray(let props):
            out.append(Marker.ecmaArray.rawValue)
            out.writeUInt32(UInt32(clamping: props.count))
            encodeProperties(props, into: &out)
        case .strictArray(let values):
            out.append(Marker.strictArray.rawValue)
            out.writeUInt32(UInt32(clamping: values.count))
            for v in values { encode(v, into: &out) }
        case .date(let ms, let tz):
            out.append(Marker.date.rawValue)
            out.writeUInt64(ms.bitPattern)
            out.writeUInt16(UInt16(bitPattern: tz))
        }
    }

    /// The encoding of a sequence of values, one after another (an RTMP command, a script tag).
    public static func encode(_ values: [AMF0Value]) -> [UInt8] {
        var out: [UInt8] = []
        for v in values { encode(v, into: &out) }
        return out
    }

    private static func encodeProperties(_ props: [AMF0Property], into out: inout [UInt8]) {
        for p in props {
            encodeName(p.name, into: &out)
            encode(p.value, into: &out)
        }
        out += [0, 0, Marker.objectEnd.rawValue]
    }

    private static func encodeName(_ name: String, into out: inout [UInt8]) {
        let utf8 = Array(name.utf8.prefix(Int(UInt16.max)))
        out.writeUInt16(UInt16(utf8.count))
        out.append(contentsOf: utf8)
    }

    // MARK: Decoding

    /// Decodes one value from the front of `bytes`, consuming it.
    /// - Throws: ``FLVError/Code/truncated`` when the value is cut,
    ///   ``FLVError/Code/invalidContainer`` for an unknown or unsupported marker (movie clip,
    ///   reference), ``FLVError/Code/limitExceeded`` beyond ``maximumNesting``.
    /// - Complexity: O(n) in the bytes consumed; counts read from the input never size an
    ///   allocation (each element takes at least one byte, so they are bounded by the input).
    public static func decode(from bytes: inout ArraySlice<UInt8>) throws(FLVError) -> AMF0Value {
        var cursor = ByteReader<FLVByteReads>(bytes)
        let v = try decode(&cursor, depth: 0)
        bytes = cursor.remaining
        return v
    }

    /// Decodes every value in `bytes`.
    /// - Throws: as ``decode(from:)``, for the first value that fails.
    public static func decodeAll(_ bytes: ArraySlice<UInt8>) throws(FLVError) -> [AMF0Value] {
        var cursor = ByteReader<FLVByteReads>(bytes)
        var values: [AMF0Value] = []
        while !cursor.isAtEnd { values.append(try decode(&cursor, depth: 0)) }
        return values
    }

    static func decode(_ c: inout ByteReader<FLVByteReads>, depth: Int) throws(FLVError) -> AMF0Value {
        guard depth < maximumNesting else {
            throw FLVError.invalid(.limitExceeded, "AMF0 nesting deeper than \(maximumNesting)")
        }
        let raw = try c.readUInt8("AMF0 marker")
        guard let marker = Marker(rawValue: raw) else {
            throw FLVError.invalid(.invalidContainer, "unknown AMF0 marker \(raw)")
        }
        switch marker {
        case .number:
            return .number(Double(bitPattern: try c.readUInt64("AMF0 number")))
        case .boolean:
            return .boolean(try c.readUInt8("AMF0 boolean") != 0)
        case .string:
            let n = Int(try c.readUInt16("AMF0 string length"))
            return .string(String(decoding: try c.readBytes(n, "AMF0 string"), as: UTF8.self))
        case .longString:
            let n = Int(try c.readUInt32("AMF0 long string length"))
            return .string(String(decoding: try c.readBytes(n, "AMF0 long string"), as: UTF8.self))
        case .object:
            return .object(try decodeProperties(&c, depth: depth))
        case .null:
            return .null
        case .undefined:
            return .undefined
        case .ecmaArray:
            _ = try c.readUInt32("AMF0 ECMA array count")  // a hint only; the end marker ends it
            return .ecmaArray(try decodeProperties(&c, depth: depth))
        case .strictArray:
            let n = Int(try c.readUInt32("AMF0 strict array count"))
            guard n <= c.count else { throw FLVError.truncated("AMF0 strict array of \(n) values in \(c.count) bytes") }
            var values: [AMF0Value] = []
            values.reserveCapacity(min(n, 1024))  // n values need n bytes, but not n * 24 bytes up front
            for _ in 0..<n { values.append(try decode(&c, depth: depth &+ 1)) }  // depth < 32
            return .strictArray(values)
        case .date:
            let ms = Double(bitPattern: try c.readUInt64("AMF0 date"))
            let tz = Int16(bitPattern: try c.readUInt16("AMF0 date time zone"))
            return .date(milliseconds: ms, timeZone: tz)
        case .objectEnd:
            throw FLVError.invalid(.invalidContainer, "AMF0 object end marker outside an object")
        case .movieClip, .reference:
            throw FLVError.invalid(.invalidContainer, "AMF0 marker \(raw) is not supported")
        }
    }

    private static func decodeProperties(_ c: inout ByteReader<FLVByteReads>, depth: Int) throws(FLVError) -> [AMF0Property] {
        var props: [AMF0Property] = []
        while true {
            let n = Int(try c.readUInt16("AMF0 property name length"))
            if n == 0, c.peekUInt8() == Marker.objectEnd.rawValue {
                try c.skip(1)
                return props
            }
            let name = String(decoding: try c.readBytes(n, "AMF0 property name"), as: UTF8.self)
            props.append(AMF0Property(name, try decode(&c, depth: depth &+ 1)))  // depth < 32
        }
    }
}
