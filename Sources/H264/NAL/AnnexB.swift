/// Annex-B byte-stream framing (ITU-T H.264 Annex B): NAL units separated by start codes.
///
/// A start code is `00 00 01`, optionally preceded by more zero bytes (`zero_byte`, and
/// `leading_zero_8bits` at the start of the stream). Zero bytes before a start code belong to the
/// framing (`trailing_zero_8bits`), never to the NAL unit before it: a NAL unit never ends in `00`.
public enum AnnexB {
    /// What to do with bytes before the first start code.
    public enum LeadingDataPolicy: Sendable, Hashable {
        /// Throw ``H264Error/Code/missingStartCode`` (then continue at the first start code).
        case reject
        /// Skip them silently, as FFmpeg does.
        case skip
    }

    /// Splits a whole Annex-B stream into NAL units (views into `bytes`).
    ///
    /// - Parameters:
    ///   - bytes: the stream.
    ///   - leadingData: policy for bytes before the first start code.
    /// - Returns: the NAL units in order.
    /// - Throws: the first error met (a missing start code under `.reject`, or a NAL unit with
    ///   `forbidden_zero_bit` set). Use ``Splitter`` to go on after an error.
    /// - Complexity: O(n), a SIMD scan.
    public static func split(_ bytes: ArraySlice<UInt8>, leadingData: LeadingDataPolicy = .reject) throws(H264Error) -> [NALUnit] {
        var splitter = Splitter(bytes, leadingData: leadingData)
        var units: [NALUnit] = []
        while let unit = try splitter.next() { units.append(unit) }
        return units
    }

    /// Splits a whole Annex-B stream held in an array.
    public static func split(_ bytes: [UInt8], leadingData: LeadingDataPolicy = .reject) throws(H264Error) -> [NALUnit] {
        try split(bytes[...], leadingData: leadingData)
    }

    /// Writes NAL units as an Annex-B stream with 4-byte start codes (`00 00 00 01`).
    public static func write<S: Sequence>(_ units: S) -> [UInt8] where S.Element == NALUnit {
        var out: [UInt8] = []
        for unit in units { append(unit, to: &out) }
        return out
    }

    /// Appends one NAL unit with a 4-byte start code.
    @inlinable
    public static func append(_ unit: NALUnit, to out: inout [UInt8]) {
        out.append(contentsOf: [0, 0, 0, 1] as [UInt8])
        out.append(contentsOf: unit.bytes)
    }

    /// An iterator over the NAL units of an Annex-B stream that can continue after an error.
    ///
    /// Memory: a view of the stream, plus 16 KiB for a stream of 256 KiB or more (the start
    /// codes found ahead of the position, by a scan that reads four regions at once).
    public struct Splitter: Sendable {
        /// The stream.
        public let bytes: ArraySlice<UInt8>
        /// The policy for bytes before the first start code.
        public let leadingData: LeadingDataPolicy
        /// Index of the next byte to look at.
        public private(set) var position: Int
        private var started = false
        /// Start codes found ahead, for a stream large enough that the scan waits on memory.
        private var lookahead: StartCodeLookahead?
        /// Streams of at least this many bytes are scanned ahead (16 KiB of positions, once).
        static let lookaheadThreshold = 256 << 10

        /// Creates a splitter over `bytes`.
        public init(_ bytes: ArraySlice<UInt8>, leadingData: LeadingDataPolicy = .reject) {
            self.bytes = bytes
            self.leadingData = leadingData
            self.position = bytes.startIndex
            if bytes.count >= Self.lookaheadThreshold { lookahead = StartCodeLookahead() }
        }

        /// The next NAL unit, or nil at the end of the stream.
        /// - Throws: ``H264Error`` for a missing start code (`.reject`) or a bad NAL unit header;
        ///   the splitter has then moved past the problem and `next()` may be called again.
        @inlinable
        public mutating func next() throws(H264Error) -> NALUnit? {
            // Inlined into the caller with the view made here, so that the retain the view
            // takes and the release when the caller drops it can cancel out (a loop that only
            // looks at each NAL unit's bytes pays neither); the scan stays out of line.
            guard let range = try nextRange() else { return nil }
            try NALUnit.checkHeader(bytes[range.lowerBound], count: range.count)  // range is not empty
            return NALUnit(unchecked: bytes[range])
        }

        /// The indices in ``bytes`` of the next NAL unit (not empty), or nil at the end.
        @usableFromInline
        mutating func nextRange() throws(H264Error) -> Range<Int>? {
            // The state is moved into locals for the scan: the closure then touches no stored
            // property (no exclusivity checks at run time, no copy of `bytes` to retain), and the
            // lookahead's buffer stays uniquely held.
            let base = bytes.startIndex
            let count = bytes.count
            let leadingData = self.leadingData
            var pos = position &- base
            var started = self.started
            var lookahead = self.lookahead.take()
            var error: H264Error?
            let range: Range<Int>? = bytes.withUnsafeBufferPointer { (buf: UnsafeBufferPointer<UInt8>) -> Range<Int>? in
                guard let p = buf.baseAddress else { return nil }
                if !started {
                    started = true
                    let first = lookahead != nil ? lookahead!.next(p, from: pos, count: count)
                        : StartCodeScanner.find(p, from: pos, count: count)
                    guard let sc = first else {
                        if leadingData == .reject && !Self.isAllZero(p, pos, count) {
                            error = H264Error.invalid(.missingStartCode, "no start code in the stream")
                        }
                        pos = count
                        return nil
                    }
                    if leadingData == .reject && !Self.isAllZero(p, pos, sc) {
                        error = H264Error.invalid(.missingStartCode, "\(sc) bytes before the first start code")
                        pos = sc &+ 3
                        return nil
                    }
                    pos = sc &+ 3
                }
                while pos < count {
                    let next = lookahead != nil ? lookahead!.next(p, from: pos, count: count)
                        : StartCodeScanner.find(p, from: pos, count: count)
                    var end = next ?? count
                    while end > pos && p[end &- 1] == 0 { end &-= 1 }  // trailing_zero_8bits
                    let start = pos
                    pos = next.map { $0 &+ 3 } ?? count
                    if end > start { return start..<end }
                }
                return nil
            }
            self.position = base &+ pos
            self.started = started
            self.lookahead = lookahead
            if let error { throw error }
            guard let range else { return nil }
            return (base &+ range.lowerBound)..<(base &+ range.upperBound)
        }

        private static func isAllZero(_ p: UnsafePointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
            var i = from
            while i < to { if p[i] != 0 { return false }; i &+= 1 }
            return true
        }
    }
}
