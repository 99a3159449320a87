import MediaSupport

/// How a command's input is divided into units (NAL units, FLV tags), so that ``ChunkedInput``
/// hands over chunks that end where a unit ends, and an interrupted command stops its input
/// between two units: what it finishes its output with is whole.
enum InputFraming: Equatable {
    /// Annex-B: a unit ends where a start code (`00 00 01`, with the zero bytes before it)
    /// begins.
    case annexB
    /// Length-prefixed NAL units (AVCC) with lengths of this many bytes (1, 2 or 4).
    case lengthPrefixed(Int)
    /// FLV: the file header with the first previous-tag size, then tags (an 11-byte header,
    /// the body, a 4-byte previous-tag size).
    case flv
}

/// Follows the unit boundaries of a stream through the chunks read, in stream offsets. Only
/// where units end is computed; the bytes are never changed, so any input (damaged too) goes
/// through unchanged, possibly in other chunks.
struct UnitBoundaries {
    let framing: InputFraming
    /// The stream offset where the unit being followed starts (length-prefixed and FLV).
    private var unitStart = 0
    /// Its end, once its header has been read.
    private var unitEnd: Int?
    /// True until the FLV file header is passed.
    private var inFileHeader = true

    init(_ framing: InputFraming) { self.framing = framing }

    /// The stream offset of the last unit boundary inside `data` (after its first byte, at or
    /// before its end), which starts at stream offset `start`; nil when no unit ends there.
    /// The bytes after that boundary must be presented again, at its offset, with what follows.
    /// - Complexity: O(units in `data`) (length-prefixed, FLV); O(bytes after the last start
    ///   code) (Annex-B).
    mutating func lastBoundary(in data: ArraySlice<UInt8>, at start: Int) -> Int? {
        switch framing {
        case .annexB: return Self.lastStartCode(in: data).map { start &+ ($0 &- data.startIndex) }
        case .lengthPrefixed(let size): return walk(data, at: start) { bytes, _ in
            guard let length = ByteReader<ByteReadError>(bytes).peekUInt(byteCount: size) else { return nil }
            return size &+ Int(length)  // at most 4 bytes
        }
        case .flv: return walk(data, at: start) { bytes, isFileHeader in
            if isFileHeader {
                guard let offset = ByteReader<ByteReadError>(bytes).peekInteger(at: 5, as: UInt32.self) else { return nil }
                return Swift.max(9, Int(offset)) &+ 4  // DataOffset, then PreviousTagSize0
            }
            guard let size = ByteReader<ByteReadError>(bytes).peekUInt24(at: 1) else { return nil }  // DataSize
            return 11 &+ Int(size) &+ 4
        }
        }
    }

    /// Walks the units whose headers `unitLength` reads (from the unit's first byte, and
    /// whether it is the stream's first unit; nil: more bytes needed) through `data`; the
    /// state keeps the unit that does not end inside it.
    private mutating func walk(_ data: ArraySlice<UInt8>, at start: Int,
                               unitLength: (ArraySlice<UInt8>, Bool) -> Int?) -> Int? {
        let end = start &+ data.count
        var last: Int?
        while true {
            if unitEnd == nil {
                // The header lies in `data`: a unit starts at or after the bytes handed over.
                guard unitStart >= start, unitStart < end else { break }
                let from = data.startIndex &+ (unitStart &- start)
                guard let length = unitLength(data[from...], inFileHeader) else { break }
                unitEnd = unitStart &+ length  // lengths below 2^32 + 15: no overflow
            }
            guard let unitEnd, unitEnd <= end else { break }
            if unitEnd > start { last = unitEnd }
            unitStart = unitEnd
            self.unitEnd = nil
            inFileHeader = false
        }
        return last
    }

    /// The index of the last start code in `data` after its first byte, moved back over the
    /// zero bytes before it (`zero_byte`, trailing zeros), but never to the first byte.
    /// - Complexity: O(bytes after the last start code), about a third of them read: a byte
    ///   above 1 is in none of the three start codes that could hold it.
    private static func lastStartCode(in data: ArraySlice<UInt8>) -> Int? {
        guard data.count >= 4 else { return nil }
        return data.withUnsafeBufferPointer { bytes -> Int? in
            var i = bytes.count &- 3  // where a start code would begin
            while i > 0 {
                let b = bytes[i]
                if b > 1 {
                    i &-= 3
                    continue
                }
                if b == 0, bytes[i &+ 1] == 0, bytes[i &+ 2] == 1 {
                    while i > 1, bytes[i &- 1] == 0 { i &-= 1 }
                    return data.startIndex &+ i
                }
                i &-= 1
            }
            return nil
        }
    }
}
