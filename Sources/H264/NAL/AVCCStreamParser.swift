/// A push parser for length-prefixed NAL units that arrive in chunks of any size (an AVCC
/// file read piece by piece).
///
/// It yields the NAL units (and errors) ``AVCC/Reader`` yields for the concatenation of the
/// chunks. A NAL unit wholly inside one chunk is a view of it; one that spans chunks is
/// gathered in one buffer. A length above ``maximumNALUnitSize`` throws
/// ``H264Error/Code/nalUnitTooLarge`` and its bytes are skipped without being kept.
///
/// ```swift
/// var parser = AVCCStreamParser(lengthSize: .four)
/// for chunk in chunks {
///     parser.append(chunk)
///     while let unit = try parser.next() { handle(unit) }
/// }
/// parser.finish()
/// while let unit = try parser.next() { handle(unit) }
/// ```
///
/// After an error, ``next()`` goes on with the next NAL unit; ``append(_:)`` may be called
/// at any time (bytes appended after ``finish()`` are ignored).
///
/// Memory: at most ``maximumNALUnitSize`` bytes of one NAL unit that spans chunks, plus the
/// chunks handed over and not yet read.
public struct AVCCStreamParser: Sendable {
    /// The size of the length fields.
    public let lengthSize: AVCC.LengthSize
    /// The largest NAL unit accepted.
    public let maximumNALUnitSize: Int

    private var queued: [ArraySlice<UInt8>] = []
    private var queuedHead = 0
    private var chunk: ArraySlice<UInt8> = []
    /// The bytes of a length field cut by a chunk boundary.
    private var field: [UInt8] = []
    /// The bytes of a NAL unit that spans chunks, and how many more it needs.
    private var pending: [UInt8] = []
    private var needed = 0
    /// True when `pending` holds the NAL unit last returned (emptied at the next call).
    private var pendingYielded = false
    /// Bytes of a NAL unit above the limit still to skip.
    private var discarding = 0
    private var finished = false
    private var flushed = false

    /// Creates a parser.
    /// - Parameters:
    ///   - lengthSize: the size of the length fields.
    ///   - maximumNALUnitSize: the largest NAL unit accepted (default 64 MiB, as
    ///     ``AnnexBStreamParser``).
    public init(lengthSize: AVCC.LengthSize = .four, maximumNALUnitSize: Int = AnnexBStreamParser.defaultMaximumNALUnitSize) {
        self.lengthSize = lengthSize
        self.maximumNALUnitSize = Swift.max(1, maximumNALUnitSize)
    }

    /// Hands over the next chunk (kept by reference until read).
    public mutating func append(_ chunk: ArraySlice<UInt8>) {
        guard !finished, !chunk.isEmpty else { return }
        queued.append(chunk)
    }

    /// Marks the end of the input.
    public mutating func finish() { finished = true }

    /// The next NAL unit, or nil when more input (or ``finish()``) is needed, or at the end.
    /// - Throws: as ``AVCC/Reader/next()`` (``H264Error/Code/truncated`` for a length field cut by
    ///   the end of the input, ``H264Error/Code/lengthPastEnd`` for a NAL unit cut by it,
    ///   ``H264Error/Code/emptyNALUnit``, header errors), and
    ///   ``H264Error/Code/nalUnitTooLarge``.
    public mutating func next() throws(H264Error) -> NALUnit? {
        if pendingYielded {
            pendingYielded = false
            pending.removeAll(keepingCapacity: true)
        }
        let n = lengthSize.byteCount
        while true {
            if chunk.isEmpty {
                guard queuedHead < queued.count else { break }
                chunk = queued[queuedHead]
                queuedHead &+= 1
                if queuedHead == queued.count { queued.removeAll(keepingCapacity: true); queuedHead = 0 }
            }
            if discarding > 0 {
                let skip = Swift.min(discarding, chunk.count)
                chunk = chunk.dropFirst(skip)
                discarding &-= skip
                continue
            }
            if needed == 0 {
                while field.count < n, let b = chunk.first {
                    field.append(b)
                    chunk = chunk.dropFirst()
                }
                guard field.count == n else { continue }
                var length = 0
                for b in field { length = length << 8 | Int(b) }  // at most 32 bits
                field.removeAll(keepingCapacity: true)
                guard length > 0 else { throw H264Error.invalid(.emptyNALUnit, "NAL length 0") }
                guard length <= maximumNALUnitSize else {
                    discarding = length
                    throw H264Error.invalid(.nalUnitTooLarge, "NAL length \(length) above the limit \(maximumNALUnitSize)")
                }
                if chunk.count >= length {
                    // Wholly inside this chunk: a view.
                    let bytes = chunk.prefix(length)
                    chunk = chunk.dropFirst(length)
                    return try NALUnit(bytes)
                }
                needed = length
            }
            let take = Swift.min(needed, chunk.count)
            pending.append(contentsOf: chunk.prefix(take))
            chunk = chunk.dropFirst(take)
            needed &-= take
            if needed == 0 {
                pendingYielded = true
                return try NALUnit(pending[...])
            }
        }
        if finished && !flushed {
            flushed = true
            if !field.isEmpty {
                let left = field.count
                field.removeAll()
                throw H264Error.truncated("\(left) byte(s) left for a \(n)-byte NAL length")
            }
            if needed > 0 {
                let missing = needed
                needed = 0
                pending.removeAll()
                throw H264Error.invalid(.lengthPastEnd, "the input ends \(missing) byte(s) before the end of a NAL unit")
            }
        }
        return nil
    }
}

extension AVCC {
    /// The push parser for length-prefixed NAL units, now ``AVCCStreamParser``.
    @available(*, deprecated, renamed: "AVCCStreamParser")
    public typealias StreamReader = AVCCStreamParser
}
