/// A push parser for Annex-B byte streams that arrive in chunks of any size.
///
/// Hand it each chunk with ``append(_:)-(ArraySlice<UInt8>)``, then call ``next()`` until it returns nil; at the end
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
/// dropped up to the next start code. After an error the parser is in a valid state for any
/// documented call: ``next()`` goes on after the problem, and ``append(_:)-(ArraySlice<UInt8>)`` may be called at
/// any time (a chunk handed over before the previous one was drained waits its turn).
///
/// A NAL unit that spans chunks is handed out in the buffer it was accumulated in, without a
/// copy. The parser keeps that buffer: when the caller has let go of the NAL unit by the time
/// the next one spans chunks, the buffer is reused, and when the caller keeps NAL units for a
/// while (an access unit being assembled or waiting for its timestamps), up to 8 such buffers
/// are kept and one the caller has let go of is reused. A caller that drops NAL units (or
/// keeps at most 7 that spanned chunks at a time) makes no allocation per NAL unit once the
/// buffers have grown to the stream's NAL unit sizes.
///
/// Memory: at most ``maximumNALUnitSize`` bytes of one NAL unit that spans chunks, plus up to 8
/// buffers of NAL units handed out (each of at most ``maximumNALUnitSize`` bytes; a new one is
/// made only when none is free, so never more than the caller once held at the same time,
/// plus one), plus references to the chunks handed over and not
/// yet parsed, plus 16 KiB once a chunk of 256 KiB or more arrives (start codes found ahead);
/// independent of the stream's length.
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
    /// zero bytes (those are counted in `pendingZeros`): `pending[..<pendingCount]`. The rest of
    /// `pending` (zeros, or bytes of an earlier NAL unit) is room to grow into: bytes are copied
    /// in place, without `Array`'s general append, and emptying is setting the count to 0.
    @usableFromInline var pending: [UInt8] = []
    /// The number of bytes of `pending` that belong to the current NAL unit.
    @usableFromInline var pendingCount = 0
    /// True when `pending` holds the NAL unit last yielded (its bytes are shared with the
    /// caller's ``NALUnit``): it is emptied at the next call. If the caller has let go of the
    /// unit by then, the buffer is reused in place; otherwise it joins `handedOut` and the next
    /// NAL unit that spans chunks starts in a buffer the caller has let go of since, if any.
    private var pendingYielded = false
    /// Buffers of NAL units handed out, kept for reuse (see ``HandedOutBuffers``).
    private var handedOut = HandedOutBuffers()
    /// The number of zero bytes after the last byte of `pending` (or since the start code, when
    /// `pending` is empty). They are part of the NAL unit only if a byte other than the `01` of a
    /// start code follows them.
    private var pendingZeros = 0
    /// Chunks handed over while an earlier one was still being parsed, oldest first (from
    /// `queuedHead`): they wait their turn, by reference.
    private var queued: [ArraySlice<UInt8>] = []
    private var queuedHead = 0
    /// The chunk being parsed and the index of the next byte to look at.
    @usableFromInline var chunk: ArraySlice<UInt8> = []
    private var position = 0
    /// The index in `chunk` where the current NAL unit's bytes in this chunk begin.
    private var nalStart = 0
    /// True until the chunk's first bytes have been matched against zeros carried over.
    private var atChunkStart = false
    private var finished = false
    private var flushed = false
    /// Stream offsets: bytes handed over before the current chunk, and where the NAL unit being
    /// read began (its header byte) with the length of the start code before it.
    private var chunkStreamOffset = 0
    private var appendedByteCount = 0
    private var currentNALOffset = 0
    private var currentStartCodeLength = 3

    /// Stream offset (from the first byte ever appended) of the header byte of the NAL unit
    /// that ``next()`` returned last.
    public private(set) var lastNALUnitOffset = 0
    /// Length of the start code before that NAL unit: 4 when a `zero_byte` precedes `00 00 01`,
    /// else 3. `lastNALUnitOffset - lastStartCodeLength` is where its start code begins.
    public private(set) var lastStartCodeLength = 3
    /// The number of bytes before the first start code, up to the last one that is not zero
    /// (zero bytes right before a start code are framing): what ``AnnexB/LeadingDataPolicy/skip``
    /// skipped, 0 for a stream that starts with a start code. Known once the first start code
    /// (or the end of the stream) has been seen.
    public private(set) var leadingByteCount = 0
    /// Stream offset just past the last nonzero byte seen before the first start code.
    private var leadingNonZeroEnd = 0
    /// The size of the last NAL unit that spanned chunks: the capacity reserved for the next
    /// one, so that accumulating rarely reallocates.
    private var capacityHint = 0
    /// Start codes found ahead in the current chunk, when it is large (16 KiB, allocated at the
    /// first chunk of 256 KiB or more and reused).
    private var lookahead: StartCodeLookahead?
    private var lookaheadActive = false

    /// Creates a parser.
    /// - Parameters:
    ///   - maximumNALUnitSize: the largest NAL unit accepted (default 64 MiB).
    ///   - leadingData: the policy for bytes before the first start code.
    public init(maximumNALUnitSize: Int = AnnexBStreamParser.defaultMaximumNALUnitSize,
                leadingData: AnnexB.LeadingDataPolicy = .reject) {
        self.maximumNALUnitSize = max(1, maximumNALUnitSize)
        self.leadingData = leadingData
    }

    /// True when every chunk handed over has been parsed completely: ``next()`` returns nil
    /// until more input (or ``finish()``) comes.
    public var needsInput: Bool { position >= chunk.endIndex && !atChunkStart && queuedHead >= queued.count }

    /// The number of bytes held for a NAL unit that spans chunks.
    public var bufferedByteCount: Int { pendingYielded ? 0 : pendingCount }

    /// Hands over the next chunk of the stream. The parser keeps a reference to it (no copy)
    /// until ``next()`` has parsed it.
    ///
    /// Call it whenever input arrives: usually after ``next()`` returned nil, but also after
    /// ``next()`` threw, or before the previous chunk was drained, in which case the chunk
    /// waits its turn. Bytes appended after ``finish()`` are ignored: the stream has ended.
    public mutating func append(_ chunk: consuming ArraySlice<UInt8>) {
        // Consuming: the caller's reference is moved in, not retained again.
        guard !finished, !chunk.isEmpty else { return }
        if position >= self.chunk.endIndex && !atChunkStart && queuedHead >= queued.count {
            start(chunk)
        } else {
            queued.append(chunk)
        }
    }

    /// Makes `chunk` the one being parsed.
    private mutating func start(_ chunk: consuming ArraySlice<UInt8>) {
        chunkStreamOffset = appendedByteCount
        appendedByteCount &+= chunk.count  // total input size: bounded by memory handed over
        position = chunk.startIndex
        nalStart = chunk.startIndex
        atChunkStart = true
        // A large chunk is scanned ahead, four regions at once (see StartCodeLookahead).
        lookaheadActive = chunk.count >= AnnexB.Splitter.lookaheadThreshold
        self.chunk = chunk
        if lookaheadActive {
            if lookahead == nil { lookahead = StartCodeLookahead() }
            lookahead!.reset()
        }
    }

    /// Starts the next waiting chunk, if any.
    private mutating func startQueued() -> Bool {
        guard queuedHead < queued.count else { return false }
        let next = queued[queuedHead]
        queued[queuedHead] = []  // the queue lets go of it
        queuedHead &+= 1
        if queuedHead == queued.count {
            queued.removeAll(keepingCapacity: true)
            queuedHead = 0
        }
        start(next)
        return true
    }

    /// Hands over a chunk held in an array.
    public mutating func append(_ chunk: [UInt8]) { append(chunk[...]) }

    /// Marks the end of the stream: the next calls to ``next()`` yield the last NAL unit.
    public mutating func finish() { finished = true }

    /// Where a NAL unit (or a problem) is in the stream, as ``run(read:problem:body:)`` reports it.
    public struct Position: Sendable, Hashable {
        /// ``lastNALUnitOffset``: the stream offset of the NAL unit's header byte.
        public var offset: Int
        /// ``lastStartCodeLength``.
        public var startCodeLength: Int
        /// ``leadingByteCount``: the bytes skipped before the first start code.
        public var leadingByteCount: Int
    }

    private var currentPosition: Position {
        Position(offset: lastNALUnitOffset, startCodeLength: lastStartCodeLength, leadingByteCount: leadingByteCount)
    }

    /// Feeds the parser the chunks `read` returns until it returns nil, then finishes, handing
    /// each NAL unit to `body` as soon as it is complete and each error to `problem` (which
    /// may rethrow it to stop; otherwise the parser goes on after it), each with where it is.
    ///
    /// Memory: the parser's, plus the chunk being read.
    public mutating func run(read: () throws -> ArraySlice<UInt8>?, problem: (H264Error, Position) throws -> Void,
                             body: (NALUnit, Position) throws -> Void) rethrows {
        var ended = false
        while true {
            if needsInput && !ended {
                if let chunk = try read() { append(chunk) } else { finish(); ended = true }
            }
            let unit: NALUnit?
            do throws(H264Error) {
                unit = try next()
            } catch {
                try problem(error, currentPosition)
                continue
            }
            if let unit {
                try body(unit, currentPosition)
            } else if ended {
                return
            }
        }
    }

    /// The next complete NAL unit, or nil when more input (or ``finish()``) is needed, or when
    /// the stream has ended.
    /// - Throws: ``H264Error`` as ``AnnexB/Splitter/next()`` does, and
    ///   ``H264Error/Code/nalUnitTooLarge``; the parser has then moved past the problem.
    /// - Complexity: amortised O(n) over the whole stream: a SIMD scan, plus one copy of the
    ///   NAL units that span chunks.
    @inlinable
    public mutating func next() throws(H264Error) -> NALUnit? {
        // Inlined into the caller with the view made here, so that the retain the view takes
        // and the release when the caller drops it can cancel out; the parsing stays out of line.
        switch try nextFound() {
        case nil:
            return nil
        case .view(let range)?:
            try NALUnit.checkHeader(chunk[range.lowerBound], count: range.count)  // range is not empty
            return NALUnit(unchecked: chunk[range])
        case .carried?:
            return try NALUnit(pending[..<pendingCount])
        }
    }

    /// Where the NAL unit that ``next()`` returns is.
    @usableFromInline
    enum Found {
        /// `chunk[range]`, not empty: it lies wholly inside the chunk.
        case view(Range<Int>)
        /// `pending[..<pendingCount]`: it spans chunks.
        case carried
    }

    /// The parse behind ``next()``: where the next NAL unit is, or nil when more input (or the
    /// end of the stream) is needed.
    @usableFromInline
    mutating func nextFound() throws(H264Error) -> Found? {
        if pendingYielded {
            pendingYielded = false
            pendingCount = 0
            if !HandedOutBuffers.isUnique(&pending) {
                handedOut.keep(&pending)  // still held: kept, `pending` left without storage
            }  // else the caller let go: reused in place
        }
        repeat {
            if atChunkStart {
                atChunkStart = false
                // Nothing carried (most chunks): the scan sees everything.
                if pendingZeros > 0, let unit = try matchCarriedZeros() { return unit }
            }
            while position < chunk.endIndex {
                if let unit = try scanChunk() { return unit }
            }
        } while queuedHead < queued.count && startQueued()
        if finished && !flushed {
            flushed = true
            return try flush()
        }
        return nil
    }

    // MARK: - Chunk start: a start code may span the boundary

    /// Looks at the zero bytes that open the chunk: together with the zeros carried over (at
    /// least one) they may form a start code that spans the boundary. Otherwise the carried
    /// zeros become part of the NAL unit (or of the leading data).
    private mutating func matchCarriedZeros() throws(H264Error) -> Found? {
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
            let zeros = pendingZeros.addingReportingOverflow(i &- start)
            beginNAL(at: position, startCodeLength: zeros.overflow || zeros.partialValue >= 3 ? 4 : 3)
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
        let start = pendingCount
        pendingCount &+= pendingZeros  // <= pending.count: reserved
        let end = pendingCount
        pending.withUnsafeMutableBufferPointer { buffer in buffer[start..<end].update(repeating: 0) }
    }

    /// Checks that `extra` more bytes keep the current NAL unit within the limit; past it the
    /// NAL unit is dropped and the parser discards bytes up to the next start code.
    private mutating func reserve(_ extra: Int) throws(H264Error) {
        let total = pendingCount.addingReportingOverflow(extra)
        if total.overflow || total.partialValue > maximumNALUnitSize { try dropTooLarge() }
        if pending.count < total.partialValue { makeRoom(for: total.partialValue) }
    }

    /// The NAL unit grew past the limit: dropped, the parser discards bytes up to the next
    /// start code.
    @inline(never)
    private mutating func dropTooLarge() throws(H264Error) {
        pendingCount = 0
        pendingZeros = 0
        phase = .discarding
        lastNALUnitOffset = currentNALOffset  // the error is about this NAL unit
        lastStartCodeLength = currentStartCodeLength
        throw tooLarge()
    }

    /// Makes `pending` at least `size` (<= ``maximumNALUnitSize``) bytes long, its first
    /// `pendingCount` bytes kept.
    @inline(never)
    private mutating func makeRoom(for size: Int) {
        // First bytes of a NAL unit after one the caller still holds: a buffer the caller has
        // let go of since, if any.
        if pending.isEmpty, let free = handedOut.takeFree() { pending = free }
        if pending.count < size {
            // First bytes of a NAL unit, or it outgrew the hint: grow geometrically (capped).
            let wanted = Swift.max(size, capacityHint, pending.count &* 2)  // count <= maximum
            grow(to: Swift.min(wanted, maximumNALUnitSize))
        }
    }

    /// Replaces `pending` with a buffer of `size` bytes that starts with its first
    /// `pendingCount` bytes (the rest zero).
    private mutating func grow(to size: Int) {
        let old = pending
        let count = pendingCount
        pending = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            let kept = old.withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0[..<count]) }
            buffer[kept...].initialize(repeating: 0)
            initialized = size
        }
    }

    // MARK: - The scan inside one chunk

    /// Scans the chunk from `position` for the next start code.
    private mutating func scanChunk() throws(H264Error) -> Found? {
        let base = chunk.startIndex
        let count = chunk.count
        let from = position &- base
        // Moved out for the scan: the closure touches no stored property.
        var ahead = lookaheadActive ? lookahead.take() : nil
        let found: Int? = chunk.withUnsafeBufferPointer { buf in
            guard let p = buf.baseAddress else { return nil }
            if ahead != nil { return ahead!.next(p, from: from, count: count) }
            return StartCodeScanner.find(p, from: from, count: count)
        }
        if ahead != nil { lookahead = ahead }
        if let sc = found {
            let scIndex = base &+ sc
            let nalEnd = scIndex
            let unitStart = nalStart
            position = scIndex &+ 3  // sc + 3 <= count: the scanner found all three bytes
            nalStart = position
            beginNAL(at: position, startCodeLength: scIndex > chunk.startIndex && chunk[scIndex &- 1] == 0 ? 4 : 3)
            return try endOfNALUnit(partStart: unitStart, partEnd: nalEnd)
        }
        // No start code in the rest of the chunk: carry the tail over, then let go of the chunk.
        let tailStart = nalStart
        let end = chunk.endIndex
        let chunkStart = chunk.startIndex
        var last = end
        while last > tailStart && chunk[last &- 1] == 0 { last &-= 1 }
        let trailingZeros = end &- last
        defer {
            chunk = []
            position = 0
            nalStart = 0
        }
        switch phase {
        case .leading(let nonZero):
            phase = .leading(nonZero: nonZero || last > tailStart)
            if last > tailStart { leadingNonZeroEnd = chunkStreamOffset &+ (last &- chunkStart) }
            pendingZeros = trailingZeros
        case .discarding:
            pendingZeros = trailingZeros
        case .nal:
            if last > tailStart {
                // pendingZeros is 0 here: carried zeros were settled at the chunk start.
                defer { pendingZeros = trailingZeros }  // also after an error: they may open a start code
                try reserve(last &- tailStart)
                appendToPending(tailStart..<last)
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
    /// Notes that a NAL unit begins at chunk index `index`, after a start code; the one that
    /// ended there is the one about to be returned.
    private mutating func beginNAL(at index: Int, startCodeLength: Int) {
        lastNALUnitOffset = currentNALOffset
        lastStartCodeLength = currentStartCodeLength
        currentNALOffset = chunkStreamOffset &+ (index &- chunk.startIndex)  // within the input size
        currentStartCodeLength = startCodeLength
    }

    private mutating func endOfNALUnit(partStart: Int, partEnd: Int) throws(H264Error) -> Found? {
        let previous = phase
        phase = .nal
        var partEnd = partEnd
        while partEnd > partStart && chunk[partEnd &- 1] == 0 { partEnd &-= 1 }  // trailing_zero_8bits
        let carriedCount = pendingCount
        pendingZeros = 0
        switch previous {
        case .leading(let nonZero):
            pendingCount = 0
            if partEnd > partStart { leadingNonZeroEnd = chunkStreamOffset &+ (partEnd &- chunk.startIndex) }
            leadingByteCount = leadingNonZeroEnd
            if leadingData == .reject && (nonZero || partEnd > partStart) {
                throw H264Error.invalid(.missingStartCode, "bytes before the first start code")
            }
            return nil
        case .discarding:
            pendingCount = 0
            return nil
        case .nal:
            break
        }
        let partCount = partEnd &- partStart
        if carriedCount == 0 {
            // Wholly inside this chunk: a view, nothing copied.
            guard partCount > 0 else { return nil }
            if partCount > maximumNALUnitSize { throw tooLarge() }
            return .view(partStart..<partEnd)
        }
        // Spans chunks: the carried bytes, then this chunk's part (any zeros after the carried
        // bytes were settled at the chunk start, or are trailing zeros when the part is empty).
        pendingYielded = true
        if partCount > 0 {
            if partCount > maximumNALUnitSize &- carriedCount { throw tooLarge() }  // carriedCount <= maximum
            if pending.count &- carriedCount < partCount { makeRoom(for: carriedCount &+ partCount) }  // <= maximum
            appendToPending(partStart..<partEnd)
        }
        capacityHint = pendingCount &+ pendingCount / 8  // <= maximum * 9 / 8: no overflow
        return .carried
    }

    /// Copies `chunk[range]` after the bytes of `pending`, which has room for them (see
    /// `reserve`), through the chunk's buffer (a slice of the chunk would retain and release it).
    private mutating func appendToPending(_ range: Range<Int>) {
        let start = pendingCount
        pendingCount &+= range.count  // <= pending.count: reserved
        let end = pendingCount
        let offset = range.lowerBound &- chunk.startIndex
        chunk.withUnsafeBufferPointer { source in
            pending.withUnsafeMutableBufferPointer { buffer in
                _ = buffer[start..<end].update(fromContentsOf: source[offset..<(offset &+ range.count)])
            }
        }
    }

    @inline(never)
    private func tooLarge() -> H264Error {
        H264Error.invalid(.nalUnitTooLarge, "NAL unit larger than \(maximumNALUnitSize) bytes")
    }

    /// The end of the stream: the last NAL unit, or the leading-data error.
    private mutating func flush() throws(H264Error) -> Found? {
        pendingZeros = 0
        lastNALUnitOffset = currentNALOffset
        lastStartCodeLength = currentStartCodeLength
        switch phase {
        case .leading(let nonZero):
            leadingByteCount = leadingNonZeroEnd
            if leadingData == .reject && nonZero {
                throw H264Error.invalid(.missingStartCode, "no start code in the stream")
            }
            return nil
        case .discarding:
            return nil
        case .nal:
            guard pendingCount > 0 else { return nil }
            pendingYielded = true
            return .carried
        }
    }
}
