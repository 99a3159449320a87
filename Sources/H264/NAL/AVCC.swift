/// Length-prefixed NAL unit framing, as in MP4 samples (ISO/IEC 14496-15, "AVCC"): each NAL
/// unit is preceded by its size as a big-endian integer of 1, 2 or 4 bytes; there are no start
/// codes and no emulation of them to worry about.
public enum AVCC {
    /// The size of the length field before each NAL unit: 1, 2 or 4 bytes
    /// (`lengthSizeMinusOne + 1` of the avcC record).
    public struct LengthSize: Hashable, Sendable, CustomStringConvertible {
        /// The number of bytes: 1, 2 or 4.
        public let byteCount: Int

        /// One-byte lengths (NAL units up to 255 bytes).
        public static let one = LengthSize(uncheckedByteCount: 1)
        /// Two-byte lengths (NAL units up to 65,535 bytes).
        public static let two = LengthSize(uncheckedByteCount: 2)
        /// Four-byte lengths, the usual choice.
        public static let four = LengthSize(uncheckedByteCount: 4)

        /// Validates a length size.
        /// - Throws: ``H264Error/Code/invalidLengthSize`` unless `byteCount` is 1, 2 or 4.
        public init(byteCount: Int) throws(H264Error) {
            guard byteCount == 1 || byteCount == 2 || byteCount == 4 else {
                throw H264Error.invalid(.invalidLengthSize, "NAL length size \(byteCount) is not 1, 2 or 4")
            }
            self.byteCount = byteCount
        }

        @usableFromInline
        init(uncheckedByteCount: Int) { byteCount = uncheckedByteCount }

        /// The largest NAL unit the field can describe: 255, 65,535 or 4,294,967,295 bytes.
        @inlinable public var maximumNALUnitSize: Int { byteCount == 4 ? Int(UInt32.max) : (1 << (byteCount &* 8)) &- 1 }

        public var description: String { "\(byteCount)" }
    }

    /// Splits length-prefixed NAL units.
    /// - Parameters:
    ///   - bytes: the concatenated length-prefixed NAL units (e.g. one MP4 sample).
    ///   - lengthSize: the size of the length fields.
    /// - Returns: the NAL units, views into `bytes`.
    /// - Throws: the first error ``Reader/next()`` meets.
    /// - Complexity: O(number of NAL units); nothing is copied.
    public static func split(_ bytes: ArraySlice<UInt8>, lengthSize: LengthSize = .four) throws(H264Error) -> [NALUnit] {
        var reader = Reader(bytes, lengthSize: lengthSize)
        var units: [NALUnit] = []
        while let unit = try reader.next() { units.append(unit) }
        return units
    }

    /// Splits length-prefixed NAL units held in an array.
    public static func split(_ bytes: [UInt8], lengthSize: LengthSize = .four) throws(H264Error) -> [NALUnit] {
        try split(bytes[...], lengthSize: lengthSize)
    }

    /// An iterator over length-prefixed NAL units that can continue after an error.
    public struct Reader: Sendable {
        /// The buffer.
        public let bytes: ArraySlice<UInt8>
        /// The size of the length fields.
        public let lengthSize: LengthSize
        /// Index of the next length field.
        public private(set) var position: Int

        /// Creates a reader over `bytes`.
        public init(_ bytes: ArraySlice<UInt8>, lengthSize: LengthSize = .four) {
            self.bytes = bytes
            self.lengthSize = lengthSize
            position = bytes.startIndex
        }

        /// The next NAL unit (a view into ``bytes``), or nil at the end.
        /// - Throws: ``H264Error/Code/truncated`` for a length field cut by the end of the buffer,
        ///   ``H264Error/Code/lengthPastEnd`` for a length running past the end (the reader then
        ///   stands at the end; nothing is allocated whatever the length),
        ///   ``H264Error/Code/emptyNALUnit`` for a zero length, and the header errors of ``NALUnit``;
        ///   after an error `next()` may be called again.
        public mutating func next() throws(H264Error) -> NALUnit? {
            let end = bytes.endIndex
            guard position < end else { return nil }
            let n = lengthSize.byteCount
            let available = end &- position  // > 0
            guard available >= n else {
                position = end
                throw H264Error.truncated("\(available) byte(s) left for a \(n)-byte NAL length")
            }
            var length = 0
            var i = position
            let fieldEnd = position &+ n  // <= end
            while i < fieldEnd {
                length = length << 8 | Int(bytes[i])  // at most 32 bits: no overflow in Int
                i &+= 1
            }
            position = fieldEnd
            guard length > 0 else { throw H264Error.invalid(.emptyNALUnit, "NAL length 0") }
            guard length <= end &- fieldEnd else {
                let left = end &- fieldEnd
                position = end
                throw H264Error.invalid(.lengthPastEnd, "NAL length \(length) but \(left) byte(s) left")
            }
            position = fieldEnd &+ length  // <= end, checked above
            return try NALUnit(bytes[fieldEnd..<position])
        }
    }

    // MARK: - Writing

    /// Appends a length field of `lengthSize` bytes, then whatever `body` appends, and fills
    /// the length in afterwards (the `writeLengthPrefixed` pattern).
    /// - Returns: the number of bytes `body` wrote.
    /// - Throws: ``H264Error/Code/nalUnitTooLarge`` when `body` wrote more than the length
    ///   field can describe (`out` is then restored), or what `body` throws.
    @discardableResult
    @inlinable
    public static func writeLengthPrefixed(lengthSize: LengthSize = .four, to out: inout [UInt8],
                                           _ body: (inout [UInt8]) throws(H264Error) -> Void) throws(H264Error) -> Int {
        let fieldStart = out.count
        let n = lengthSize.byteCount
        for _ in 0..<n { out.append(0) }
        do { try body(&out) } catch {
            out.removeSubrange(fieldStart...)
            throw error
        }
        let length = out.count &- fieldStart &- n  // out only grew
        guard length <= lengthSize.maximumNALUnitSize else {
            out.removeSubrange(fieldStart...)
            throw H264Error.invalid(.nalUnitTooLarge, "NAL unit of \(length) bytes does not fit a \(n)-byte length")
        }
        var shift = (n &- 1) &* 8
        for k in 0..<n {
            out[fieldStart &+ k] = UInt8(truncatingIfNeeded: length >> shift)
            shift &-= 8
        }
        return length
    }

    /// Appends one NAL unit with its length prefix.
    /// - Throws: ``H264Error/Code/nalUnitTooLarge`` when it does not fit the length size.
    @inlinable
    public static func append(_ unit: NALUnit, lengthSize: LengthSize = .four, to out: inout [UInt8]) throws(H264Error) {
        let length = unit.count
        guard length <= lengthSize.maximumNALUnitSize else {
            throw H264Error.invalid(.nalUnitTooLarge, "NAL unit of \(length) bytes does not fit a \(lengthSize.byteCount)-byte length")
        }
        switch lengthSize.byteCount {
        case 1:
            out.append(UInt8(truncatingIfNeeded: length))
        case 2:
            out.append(UInt8(truncatingIfNeeded: length >> 8))
            out.append(UInt8(truncatingIfNeeded: length))
        default:
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: length).bigEndian) { out.append(contentsOf: $0) }
        }
        out.append(contentsOf: unit.bytes)
    }

    /// Writes NAL units as length-prefixed framing.
    /// - Throws: ``H264Error/Code/nalUnitTooLarge`` for a NAL unit the length size cannot hold.
    public static func write<S: Sequence>(_ units: S, lengthSize: LengthSize = .four) throws(H264Error) -> [UInt8]
    where S.Element == NALUnit {
        var out: [UInt8] = []
        for unit in units { try append(unit, lengthSize: lengthSize, to: &out) }
        return out
    }
}
