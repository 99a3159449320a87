/// A push parser for Annex-B byte streams that arrive in chunks of any size.
///
/// Hand it each chunk with ``append(_:)``, then call ``next()`` until it returns nil; at the end
/// of the stream call ``finish()`` and drain ``next()`` once more. It yields exactly the NAL
/// units (same bytes, same errors, same order) that ``AnnexB/Splitter`` yields for the
/// concatenation of all chunks, whatever the chunk boundaries, one byte at a time included.
///
/// A NAL unit that lies wholly inside one chunk is a view of that chunk (nothing is copied).
/// Only a NAL unit that spans chunks is accumulated, in one buffer: the parser holds at most one
/// incomplete NAL unit, and never more than ``maximumNALUnitSize`` bytes of it.
///
/// ```swift
/// var parser = AnnexBStreamParser()
/// for chunk in chunks {
///     parser.append(chunk)
///     while let unit = try parser.next() { handle(unit) }
/// }
/// parser.finish()
/// while let unit = try parser.next() { handle(unit) }
/// ```
///
/// Errors: ``next()`` throws the errors of ``AnnexB/Splitter/next()`` (a missing start code
/// under ``AnnexB/LeadingDataPolicy/reject``, a bad NAL unit header), and
/// ``H264Error/Code/nalUnitTooLarge`` when a NAL unit grows past the limit; that NAL unit is then
/// dropped up to the next start code. After an error, ``next()`` may be called again.
public struct AnnexBStreamParser: Sendable {
    /// The default limit on one NAL unit: 64 MiB, generous for an 8K intra picture.
    public static let defaultMaximumNALUnitSize = 64 << 20

    /// The largest NAL unit accepted, in bytes (header included, start code excluded).
    public let maximumNALUnitSize: Int
    /// The policy for bytes before the first start code.
    public let leadingData: AnnexB.LeadingDataPolicy

    /// Where the byte stream is, relative to start codes.
    private enum Phase: Sendable {
        /// Before the first start code; `nonZero` records whether a nonzero byte was seen.
        case leading(nonZero: Bool)
        /// Inside a NAL unit (after a start code).
        case nal
        /// Inside a NAL unit that exceeded the limit: dropped up to the next start code.
        case discarding
    }

    private var phase: Phase = .leading(nonZero: false)
    /// The bytes of the current NAL unit carried over from earlier chunks, without its trailing
    /// zero bytes (those are counted in `pendingZeros`).
    private var pending: [UInt8] = []
    /// The number of zero bytes after the last byte of `pending` (or since the start code, when
    /// `pending` is empty). They are part of the NAL unit only if a byte other than the `01` of a
    /// start code follows them.
    private var pendingZeros = 0
    /// The chunk being parsed and the index of the next byte to look at.
    private var chunk: ArraySlice<UInt8> = []
    private var position = 0
    /// The index in `chunk` where the current NAL unit's bytes in this chunk begin.
    private var nalStart = 0
    /// True until the chunk's first bytes have been matched against zeros carried over.
    private var atChunkStart = false
    private var finished = false
    private var flushed = false

    /// Creates a parser.
    /// - Parameters:
    ///   - maximumNALUnitSize: the largest NAL unit accepted (default 64 MiB).
    ///   - leadingData: the policy for bytes before the first start code.
    public init(maximumNALUnitSize: Int = AnnexBStreamParser.defaultMaximumNALUnitSize,
                leadingData: AnnexB.LeadingDataPolicy = .reject) {
        self.maximumNALUnitSize = max(1, maximumNALUnitSize)
        self.leadingData = leadingData
    }

    /// True when the current chunk has been parsed completely, so that ``append(_:)`` may be
    /// called.
    public var needsInput: Bool { position >= chunk.endIndex && !atChunkStart }

    /// The number of bytes held for a NAL unit that spans chunks.
    public var bufferedByteCount: Int { pending.count }

    /// Hands over the next chunk of the stream. The parser keeps a reference to it (no copy)
    /// until ``next()`` returns nil.
    ///
    /// - Precondition: the previous chunk has been drained (``needsInput`` is true) and
    ///   ``finish()`` has not been called.
    public mutating func append(_ chunk: ArraySlice<UInt8>) {
        precondition(needsInput && !finished, "AnnexBStreamParser.append: drain next() first")
        guard !chunk.isEmpty else { return }
        self.chunk = chunk
        position = chunk.startIndex
        nalStart = chunk.startIndex
        atChunkStart = true
    }

    /// Hands over a chunk held in an array.
    public mutating func append(_ chunk: [UInt8]) { append(chunk[...]) }

    /// Marks the end of the stream: the next calls to ``next()`` yield the last NAL unit.
    public mutating func finish() { finished = true }

    /// The next complete NAL unit, or nil when more input (or ``finish()``) is needed, or when
    /// the stream has ended.
    /// - Throws: ``H264Error`` as ``AnnexB/Splitter/next()`` does, and
    ///   ``H264Error/Code/nalUnitTooLarge``; the parser has then moved past the problem.
    /// - Complexity: amortised O(n) over the whole stream: a SIMD scan, plus one copy of the
    ///   NAL units that span chunks.
    public mutating func next() throws(H264Error) -> NALUnit? {
        if atChunkStart {
            atChunkStart = false
            if let unit = try matchCarriedZeros() { return unit }
        }
        while position < chunk.endIndex {
            if let unit = try scanChunk() { return unit }
        }
        if finished && !flushed {
            flushed = true
            return try flush()
        }
        return nil
    }

    // MARK: - Chunk start: a start code may span the boundary

    /// Looks at the zero bytes that open the chunk: together with the zeros carried over they
    /// may form a start code that spans the boundary. Otherwise the carried zeros become part of
    /// the NAL unit (or of the leading data).
    private mutating func matchCarriedZeros() throws(H264Error) -> NALUnit? {
        guard pendingZeros > 0 else { return nil }  // nothing carried: the scan sees everything
        let start = chunk.startIndex
        let end = chunk.endIndex
        var i = start
        while i < end && chunk[i] == 0 { i &+= 1 }
        if i == end {
            // All zeros: carry them on (a counter, no storage). Saturating: a hostile stream of
            // zeros cannot overflow it.
            let n = end &- start
            pendingZeros = pendingZeros > Int.max &- n ? Int.max : pendingZeros &+ n
            position = end
            return nil
        }
        if chunk[i] == 1 && (pendingZeros >= 2 || i > start) {
            // At least two zeros (carried, then this chunk's) before this `01`: a start code
            // that spans the boundary (i < end, so i + 1 <= endIndex).
            position = i &+ 1
            nalStart = position
            return try endOfNALUnit(partStart: position, partEnd: position)
        }
        try materializeCarriedZeros()
        return nil
    }

    /// Appends the carried zero bytes to the NAL unit they turned out to belong to.
    private mutating func materializeCarriedZeros() throws(H264Error) {
        defer { pendingZeros = 0 }
        guard pendingZeros > 0, case .nal = phase else { return }
        try reserve(pendingZeros)
        pending.append(contentsOf: repeatElement(0, count: pendingZeros))
    }

    /// Checks that `extra` more bytes keep the current NAL unit within the limit; past it the
    /// NAL unit is dropped and the parser discards bytes up to the next start code.
    private mutating func reserve(_ extra: Int) throws(H264Error) {
        let total = pending.count.addingReportingOverflow(extra)
        if total.overflow || total.partialValue > maximumNALUnitSize {
            pending = []
            pendingZeros = 0
            phase = .discarding
            throw tooLarge()
        }
    }

    // MARK: - The scan inside one chunk

    /// Scans the chunk from `position` for the next start code.
    private mutating func scanChunk() throws(H264Error) -> NALUnit? {
        let base = chunk.startIndex
        let count = chunk.count
        let found: Int? = chunk.withUnsafeBufferPointer { buf in
            guard let p = buf.baseAddress else { return nil }
            return StartCodeScanner.find(p, from: position &- base, count: count)
        }
        if let sc = found {
            let scIndex = base &+ sc
            let nalEnd = scIndex
            let unitStart = nalStart
            position = scIndex &+ 3  // sc + 3 <= count: the scanner found all three bytes
            nalStart = position
            return try endOfNALUnit(partStart: unitStart, partEnd: nalEnd)
        }
        // No start code in the rest of the chunk: carry the tail over.
        let tailStart = nalStart
        let tailChunk = chunk
        let end = chunk.endIndex
        position = end
        var last = end
        while last > tailStart && chunk[last &- 1] == 0 { last &-= 1 }
        let trailingZeros = end &- last
        chunk = []
        position = 0
        nalStart = 0
        switch phase {
        case .leading(let nonZero):
            phase = .leading(nonZero: nonZero || last > tailStart)
            pendingZeros = trailingZeros
        case .discarding:
            pendingZeros = trailingZeros
        case .nal:
            if last > tailStart {
                // pendingZeros is 0 here: carried zeros were settled at the chunk start.
                defer { pendingZeros = trailingZeros }  // also after an error: they may open a start code
                try reserve(last &- tailStart)
                pending.append(contentsOf: tailChunk[tailStart..<last])
            } else {
                // Saturating: a hostile run of zeros cannot overflow the counter.
                pendingZeros = pendingZeros > Int.max &- trailingZeros ? Int.max : pendingZeros &+ trailingZeros
            }
        }
        return nil
    }

    /// Called at a start code that ends the current NAL unit: the NAL unit is `pending` plus
    /// `chunk[partStart..<partEnd]`, without trailing zero bytes. Yields it (or throws the
    /// leading-data error at the first start code).
    private mutating func endOfNALUnit(partStart: Int, partEnd: Int) throws(H264Error) -> NALUnit? {
        let previous = phase
        phase = .nal
        var partEnd = partEnd
        while partEnd > partStart && chunk[partEnd &- 1] == 0 { partEnd &-= 1 }  // trailing_zero_8bits
        let carried = pending
        pending = []
        pendingZeros = 0
        switch previous {
        case .leading(let nonZero):
            if leadingData == .reject && (nonZero || partEnd > partStart) {
                throw H264Error.invalid(.missingStartCode, "bytes before the first start code")
            }
            return nil
        case .discarding:
            return nil
        case .nal:
            break
        }
        if partEnd == partStart {
            // Only carried bytes (any zeros after them are trailing zeros).
            return carried.isEmpty ? nil : try NALUnit(carried[...])
        }
        let partCount = partEnd &- partStart
        if carried.isEmpty {
            // Wholly inside this chunk: a view, nothing copied.
            if partCount > maximumNALUnitSize { throw tooLarge() }
            return try NALUnit(chunk[partStart..<partEnd])
        }
        // Spans chunks: the carried bytes, then this chunk's part.
        if partCount > maximumNALUnitSize &- carried.count { throw tooLarge() }  // carried.count <= maximum
        var bytes = carried
        bytes.append(contentsOf: chunk[partStart..<partEnd])
        return try NALUnit(bytes[...])
    }

    @inline(never)
    private func tooLarge() -> H264Error {
        H264Error.invalid(.nalUnitTooLarge, "NAL unit larger than \(maximumNALUnitSize) bytes")
    }

    /// The end of the stream: the last NAL unit, or the leading-data error.
    private mutating func flush() throws(H264Error) -> NALUnit? {
        defer {
            pending = []
            pendingZeros = 0
        }
        switch phase {
        case .leading(let nonZero):
            if leadingData == .reject && nonZero {
                throw H264Error.invalid(.missingStartCode, "no start code in the stream")
            }
            return nil
        case .discarding:
            return nil
        case .nal:
            guard !pending.isEmpty else { return nil }
            let bytes = pending
            return try NALUnit(bytes[...])
        }
    }
}
