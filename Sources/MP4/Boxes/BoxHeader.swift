import MediaSupport

/// A box header (ISO/IEC 14496-12 4.2): a 32-bit size and a type, a 64-bit `largesize` when
/// the size is 1, and a 16-byte extended type after `uuid`.
///
/// Sizes are checked against the room the box has (the rest of its parent, or of the file):
/// a size below the header, past the parent, or a `largesize` below 16 is
/// ``MP4Error/Code/invalidBox``; size 0 ("to the end of the file") is accepted only at the top
/// level, where the caller passes `allowsToEnd`.
public struct MP4BoxHeader: Hashable, Sendable {
    /// The box type.
    public var type: MP4FourCC
    /// The whole box's size, header included.
    public var size: UInt64
    /// The header's size: 8, 16 with a `largesize`, 24 or 32 with a `uuid` extended type.
    public var headerSize: Int
    /// The size field was 0: the box runs to the end of the file.
    public var extendsToEnd: Bool

    /// The payload's size.
    public var payloadSize: UInt64 { size &- UInt64(headerSize) }  // size >= headerSize, checked when parsed

    /// Parses a header from the first bytes of `bytes`.
    /// - Parameters:
    ///   - bytes: at least the header (16 bytes are enough unless the type is `uuid`: 32).
    ///   - room: the bytes from the box's start to the end of its parent or of the file.
    ///   - allowsToEnd: a size of 0 is allowed (top level only).
    /// - Throws: ``MP4Error/Code/truncated`` when `bytes` or `room` cannot hold the header,
    ///   ``MP4Error/Code/invalidBox`` for an impossible size.
    public init(parsing bytes: ArraySlice<UInt8>, room: UInt64, allowsToEnd: Bool = false) throws(MP4Error) {
        var r = ByteReader<MP4ByteReads>(bytes)
        guard room >= 8 else { throw MP4Error.truncated("\(room) byte(s) left for a box header") }
        let size32 = try r.readUInt32("box header")
        type = try r.readFourCC("box header")
        var header = 8
        extendsToEnd = false
        switch size32 {
        case 0:
            guard allowsToEnd else {
                throw MP4Error.invalid(.invalidBox, "\(type): size 0 (to the end of the file) below the top level")
            }
            size = room
            extendsToEnd = true
        case 1:
            guard room >= 16 else { throw MP4Error.truncated("\(type): \(room) byte(s) left for a 64-bit box header") }
            size = try r.readUInt64("box header")
            header = 16
            guard size >= 16 else { throw MP4Error.invalid(.invalidBox, "\(type): largesize \(size) is below its 16-byte header") }
        default:
            size = UInt64(size32)
            guard size >= 8 else { throw MP4Error.invalid(.invalidBox, "\(type): size \(size) is below its 8-byte header") }
        }
        if type == "uuid" {
            header &+= 16
            guard size >= UInt64(header) else { throw MP4Error.invalid(.invalidBox, "uuid: size \(size) is below its header") }
            guard bytes.count >= header else { throw MP4Error.truncated("uuid: extended type cut off") }
        }
        guard size <= room else {
            throw MP4Error.invalid(.invalidBox, "\(type): size \(size) runs past its parent (\(room) bytes left)")
        }
        headerSize = header
    }
}

/// Iterates over the boxes in a payload held in memory.
struct BoxIterator: Sendable {
    private var remaining: ArraySlice<UInt8>

    init(_ payload: ArraySlice<UInt8>) { remaining = payload }

    /// The next box: its header and its payload (a view), or nil at the end.
    /// - Throws: the errors of ``MP4BoxHeader/init(parsing:room:allowsToEnd:)``; bytes after
    ///   the last box too few for a header are ``MP4Error/Code/truncated``.
    mutating func next() throws(MP4Error) -> (header: MP4BoxHeader, payload: ArraySlice<UInt8>)? {
        guard !remaining.isEmpty else { return nil }
        let header = try MP4BoxHeader(parsing: remaining.prefix(32), room: UInt64(remaining.count))
        let start = remaining.startIndex
        let end = start &+ Int(header.size)  // size <= remaining.count, checked by the header
        let payload = remaining[(start &+ header.headerSize)..<end]
        remaining = remaining[end...]
        return (header, payload)
    }

    /// The payload of the first box of `type`, or nil.
    static func first(_ type: MP4FourCC, in payload: ArraySlice<UInt8>) throws(MP4Error) -> ArraySlice<UInt8>? {
        var it = BoxIterator(payload)
        while let (h, p) = try it.next() {
            if h.type == type { return p }
        }
        return nil
    }
}
