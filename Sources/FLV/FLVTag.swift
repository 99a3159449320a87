import H264
import MediaSupport

/// `TagType` of an FLV tag (the low five bits of the tag's first byte).
public struct FLVTagType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The five-bit value.
    public let rawValue: UInt8
    /// Creates a tag type; bits above the low five are dropped.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x1F }

    /// Audio data (8).
    public static let audio = FLVTagType(rawValue: 8)
    /// Video data (9).
    public static let video = FLVTagType(rawValue: 9)
    /// Script data, e.g. `onMetaData` (18).
    public static let script = FLVTagType(rawValue: 18)

    public var description: String {
        switch rawValue {
        case 8: return "audio"
        case 9: return "video"
        case 18: return "script"
        default: return "type\(rawValue)"
        }
    }
}

/// One FLV tag: the 11-byte tag header and its body (`Data`), followed in the file by
/// `PreviousTagSize` (11 + body size).
public struct FLVTag: Hashable, Sendable {
    /// Largest body the 24-bit `DataSize` field can describe.
    public static let maximumBodySize = 0xFF_FFFF

    /// The tag type.
    public var type: FLVTagType
    /// The `Filter` bit: the body is encrypted (not supported for video).
    public var isFiltered: Bool
    /// The timestamp in milliseconds (`Timestamp` with `TimestampExtended` as the high byte);
    /// for video, the decoding time.
    public var timestamp: UInt32
    /// `StreamID` (always 0 in files).
    public var streamID: UInt32
    /// The tag body (a view into the reader's buffer when read).
    public var body: ArraySlice<UInt8>

    /// Creates a tag.
    public init(type: FLVTagType, timestamp: UInt32, body: ArraySlice<UInt8>, isFiltered: Bool = false, streamID: UInt32 = 0) {
        self.type = type
        self.isFiltered = isFiltered
        self.timestamp = timestamp
        self.streamID = streamID
        self.body = body
    }

    /// Appends the tag header, the body and the `PreviousTagSize` that follows it.
    /// - Throws: ``FLVError/Code/limitExceeded`` when the body is larger than
    ///   ``maximumBodySize``.
    public func write(into out: inout [UInt8]) throws(FLVError) {
        guard body.count <= Self.maximumBodySize else {
            throw FLVError.invalid(.limitExceeded, "FLV tag body of \(body.count) bytes exceeds \(Self.maximumBodySize)")
        }
        out.append((isFiltered ? 0x20 : 0) | type.rawValue)
        out.writeUInt24(UInt32(body.count))
        out.writeUInt24(timestamp & 0xFF_FFFF)
        out.append(UInt8(truncatingIfNeeded: timestamp >> 24))
        out.writeUInt24(streamID)
        out.append(contentsOf: body)
        out.writeUInt32(UInt32(body.count) &+ 11)  // body.count <= 0xFFFFFF, no overflow
    }

    /// Reads one tag and the `PreviousTagSize` after it.
    /// - Parameters:
    ///   - maximumBodySize: the largest body accepted.
    ///   - checkPreviousTagSize: when true, a `PreviousTagSize` other than 11 + body size throws.
    static func read(_ c: inout ByteReader<FLVByteReads>, maximumBodySize: Int, checkPreviousTagSize: Bool) throws(FLVError) -> FLVTag {
        let first = try c.readUInt8("FLV tag type")
        guard first & 0xC0 == 0 else {
            throw FLVError.invalid(.invalidContainer, "FLV tag reserved bits set (first byte \(first))")
        }
        let size = Int(try c.readUInt24("FLV tag DataSize"))
        guard size <= maximumBodySize else {
            throw FLVError.invalid(.limitExceeded, "FLV tag body of \(size) bytes exceeds the limit \(maximumBodySize)")
        }
        let low = try c.readUInt24("FLV tag Timestamp")
        let high = UInt32(try c.readUInt8("FLV tag TimestampExtended"))
        let streamID = try c.readUInt24("FLV tag StreamID")
        let body = try c.readBytes(size, "FLV tag body")
        let previous = try c.readUInt32("PreviousTagSize")
        if checkPreviousTagSize, previous != UInt32(size) &+ 11 {  // size <= 0xFFFFFF
            throw FLVError.invalid(.invalidContainer, "PreviousTagSize \(previous) does not match the tag size \(size + 11)")
        }
        return FLVTag(type: FLVTagType(rawValue: first), timestamp: high << 24 | low, body: body,
                      isFiltered: first & 0x20 != 0, streamID: streamID)
    }
}
