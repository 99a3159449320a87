/// The box structure of a file, for inspection tools: every box's offset, nesting depth and
/// header, children listed under the container boxes this module knows (`moov`, `trak`,
/// `mdia`, `minf`, `stbl`, `stsd` and its sample entries, `edts`, `dinf`, `mvex`, `moof`,
/// `traf`, `mfra`, `udta`, `sinf`, `schi`, `meta`).
///
/// Containers are read into memory one top-level box at a time; `mdat` is never read.
/// Nesting deeper than the limit (16 by default; FFmpeg stops at 10) is
/// ``MP4Error/Code/limitExceeded``; a malformed header is the error of
/// ``MP4BoxHeader/init(parsing:room:allowsToEnd:)``.
public enum MP4BoxTree {
    /// One box.
    public struct Node: Hashable, Sendable {
        /// File offset of the box's first byte.
        public var offset: UInt64
        /// 0 for a top-level box.
        public var depth: Int
        /// The box's header.
        public var header: MP4BoxHeader
    }

    /// The default nesting limit.
    public static let defaultMaximumDepth = 16

    /// Every box of `source`, in file order (a parent before its children).
    /// - Complexity: O(file's metadata size); at most one node per 8 bytes of metadata.
    public static func nodes(in source: any MP4ByteSource, maximumDepth: Int = defaultMaximumDepth) throws(MP4Error) -> [Node] {
        var out: [Node] = []
        let size = source.byteCount
        var offset: UInt64 = 0
        while offset < size {
            let left = size &- offset
            guard left >= 8 else { throw MP4Error.truncated("\(left) byte(s) after the last box") }
            let head = try source.read(at: offset, count: Int(min(left, 32)))
            let header = try MP4BoxHeader(parsing: head, room: left, allowsToEnd: true)
            out.append(Node(offset: offset, depth: 0, header: header))
            if let skip = childOffset(header.type), header.payloadSize >= UInt64(skip), let n = Int(exactly: header.payloadSize) {
                let payload = try source.read(at: offset &+ UInt64(header.headerSize), count: n)
                try children(of: payload.dropFirst(skip), at: offset &+ UInt64(header.headerSize &+ skip), depth: 1,
                             maximumDepth: maximumDepth, into: &out)
            }
            offset &+= header.size  // size <= left
        }
        return out
    }

    /// Bytes before a known container's first child: 0 for plain containers, 4 for full
    /// boxes (`meta`), 8 for `stsd`, 78 for a visual sample entry; nil for leaf boxes.
    static func childOffset(_ type: MP4FourCC) -> Int? {
        switch type {
        case .moov, .trak, .mdia, .minf, .stbl, .edts, .dinf, .mvex, .moof, .traf, .mfra, .udta, .sinf, "schi": return 0
        case .meta, .dref: return type == .dref ? 8 : 4
        case .stsd: return 8
        case .avc1, .avc3, .encv, "avc2", "avc4", "hvc1", "hev1": return 78
        default: return nil
        }
    }

    private static func children(of payload: ArraySlice<UInt8>, at base: UInt64, depth: Int, maximumDepth: Int,
                                 into out: inout [Node]) throws(MP4Error) {
        guard depth <= maximumDepth else {
            throw MP4Error.invalid(.limitExceeded, "boxes nested deeper than \(maximumDepth)")
        }
        var it = BoxIterator(payload)
        var position = payload.startIndex
        while payload.endIndex &- position >= 8 {
            guard let (header, body) = try it.next() else { break }
            let offset = base &+ UInt64(position &- payload.startIndex)
            out.append(Node(offset: offset, depth: depth, header: header))
            if let skip = childOffset(header.type), body.count >= skip {
                try children(of: body.dropFirst(skip), at: offset &+ UInt64(header.headerSize &+ skip), depth: depth &+ 1,
                             maximumDepth: maximumDepth, into: &out)
            }
            position = body.endIndex
            if payload.endIndex &- position < 8 { break }  // trailing bytes shorter than a header (sample entries)
        }
    }
}
