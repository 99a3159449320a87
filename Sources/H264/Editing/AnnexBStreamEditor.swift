/// ``AnnexBHeaderEditor`` for a stream that arrives in chunks: every SPS, PPS, AUD, filler and
/// slice header is parsed and written again with the ``HeaderEdits``, everything else is copied,
/// and the output is handed back as it is made.
///
/// ```swift
/// var editor = AnnexBStreamEditor(edits: edits)
/// var out: [UInt8] = []
/// for chunk in chunks {
///     try editor.append(chunk, to: &out)
///     write(out); out.removeAll(keepingCapacity: true)
/// }
/// try editor.finish(to: &out)
/// write(out)
/// ```
///
/// Without edits the output is the input, byte for byte, whatever the chunking. A NAL unit that
/// cannot be parsed is copied unchanged and reported in ``unparsed``. A NAL unit longer than
/// ``maximumNALUnitSize`` (with the bytes up to the next start code) is copied unchanged too,
/// without being parsed: the editor never holds more of it.
///
/// Memory: the NAL unit being read (at most ``maximumNALUnitSize``); with access unit delimiter
/// insertion, also the access unit being assembled, twice (its NAL units for the access-unit
/// layer, and its output, held until its slice types are known), each at most
/// ``maximumHeldBytes`` (a larger access unit is written without a delimiter); and at most
/// ``maximumReports`` reports. Independent of the stream's length.
public struct AnnexBStreamEditor: Sendable {
    /// The most entries ``unparsed`` keeps; ``unparsedCount`` counts them all.
    public static let maximumReports = 64
    /// With AUD insertion, the most bytes of one access unit held (32 MiB: four times the
    /// largest access units of 2160p60 streams at 50 Mb/s).
    public static let maximumHeldBytes = 32 << 20

    /// The edits applied to every SPS (and the AUD and SEI edits).
    public let edits: HeaderEdits
    /// The largest NAL unit that is parsed; a longer one is copied unchanged.
    public let maximumNALUnitSize: Int
    /// The first NAL units that were copied unchanged because they could not be parsed (a slice
    /// naming a missing PPS, a malformed header, `forbidden_zero_bit` set, too long): each
    /// one's index among all the stream's NAL units, and the error. At most ``maximumReports``.
    public private(set) var unparsed: [(index: Int, error: H264Error)] = []
    /// How many NAL units were copied unchanged in all.
    public private(set) var unparsedCount = 0

    private enum Phase: Sendable {
        /// Copying bytes as they are up to the next start code: before the first one, and
        /// after a NAL unit too long to hold.
        case copying
        /// Inside a NAL unit whose start code (`00 00 01`) ends at `buffer[segmentStart]`.
        case unit
    }

    private var phase = Phase.copying
    /// Bytes not yet dealt with, from the start code of the current NAL unit (or, while
    /// copying, the last bytes that may begin a start code).
    private var buffer: [UInt8] = []
    /// Index in `buffer` of the first byte not yet dealt with (earlier ones are dropped once
    /// per chunk).
    private var base = 0
    /// Index in `buffer` of the current NAL unit's first byte (after its `00 00 01`).
    private var segmentStart = 0
    /// Index in `buffer` from which no start code has been looked for yet.
    private var scanFrom = 0
    /// Zero bytes that ended the previous NAL unit (`trailing_zero_8bits`, a `zero_byte`): they
    /// go out in front of the next one's start code.
    private var pendingZeros = 0
    /// Index of the next NAL unit among all the stream's NAL units.
    private var nalIndex = 0
    private var store = ParameterSetStore()

    // Access unit delimiter insertion: the output of the access unit being assembled is held
    // until the assembler says where it ends and what its slice types are.
    private var assembler = AccessUnitAssembler(limits: .init(maxAccessUnitBytes: AnnexBStreamEditor.maximumHeldBytes))
    private var held: [UInt8] = []
    /// For each valid NAL unit still in `held`: its index, and where its start code (with the
    /// zero bytes before it) begins in `held`.
    private var marks: [(index: Int, position: Int)] = []

    /// Creates an editor.
    /// - Parameters:
    ///   - edits: the edits.
    ///   - maximumNALUnitSize: the largest NAL unit parsed (default 64 MiB, as
    ///     ``AnnexBStreamParser``).
    public init(edits: HeaderEdits, maximumNALUnitSize: Int = AnnexBStreamParser.defaultMaximumNALUnitSize) {
        self.edits = edits
        self.maximumNALUnitSize = Swift.max(1, maximumNALUnitSize)
    }

    /// Edits the next chunk; appends to `out` what is ready.
    /// - Throws: ``H264Error/Code/invalidArgument`` for edits that cannot be applied (a crop
    ///   larger than the picture); nothing else (what cannot be parsed is copied).
    public mutating func append(_ chunk: ArraySlice<UInt8>, to out: inout [UInt8]) throws(H264Error) {
        buffer.append(contentsOf: chunk)
        try process(to: &out)
        compact()
    }

    /// Ends the stream: appends the rest of the output.
    /// - Throws: as ``append(_:to:)``.
    public mutating func finish(to out: inout [UInt8]) throws(H264Error) {
        try process(to: &out)
        if case .unit = phase {
            try endUnit(segmentEnd: buffer.count, nextStartCode: buffer.count, to: &out)
        }
        emit(buffer[scanFrom...], to: &out)  // while copying: the last bytes, which began no start code
        buffer.removeAll()
        base = 0
        scanFrom = 0
        emit(repeatElement(0, count: pendingZeros), to: &out)
        pendingZeros = 0
        if edits.accessUnitDelimiters == .insert, let au = assembler.finish() { try close(au) }
        out.append(contentsOf: held)
        held.removeAll()
        marks.removeAll()
    }

    // MARK: - Framing

    private mutating func process(to out: inout [UInt8]) throws(H264Error) {
        while true {
            let found: Int? = buffer.withUnsafeBufferPointer { p in
                guard let base = p.baseAddress else { return nil }
                return StartCodeScanner.find(base, from: scanFrom, count: p.count)
            }
            switch phase {
            case .copying:
                guard let sc = found else {
                    // Keep the last two bytes: they may begin a start code.
                    let keep = Swift.max(scanFrom, buffer.count &- 2)
                    emit(buffer[scanFrom..<keep], to: &out)
                    scanFrom = keep
                    base = keep
                    return
                }
                // The zero bytes right before the start code go with the NAL unit after it.
                var zerosStart = sc
                while zerosStart > scanFrom && buffer[zerosStart &- 1] == 0 { zerosStart &-= 1 }
                emit(buffer[scanFrom..<zerosStart], to: &out)
                pendingZeros = sc &- zerosStart
                startUnit(at: sc)
            case .unit:
                guard let sc = found else {
                    if buffer.count &- segmentStart > maximumNALUnitSize {
                        copyLongUnit(to: &out)
                        continue
                    }
                    scanFrom = Swift.max(segmentStart, buffer.count &- 2)
                    return
                }
                try endUnit(segmentEnd: sc, nextStartCode: sc, to: &out)
                startUnit(at: sc)
            }
        }
    }

    /// A start code at `buffer[sc]`: the bytes before it have been dealt with.
    private mutating func startUnit(at sc: Int) {
        phase = .unit
        base = sc
        segmentStart = sc &+ 3  // the scanner found all three bytes
        scanFrom = segmentStart
    }

    /// The NAL unit from `segmentStart` to `segmentEnd` is complete (without its trailing zero
    /// bytes): edits it and drops the bytes up to `nextStartCode` from the buffer.
    private mutating func endUnit(segmentEnd: Int, nextStartCode: Int, to out: inout [UInt8]) throws(H264Error) {
        var end = segmentEnd
        while end > segmentStart && buffer[end &- 1] == 0 { end &-= 1 }
        let zerosAfter = segmentEnd &- end
        if end > segmentStart {
            let bytes = Array(buffer[segmentStart..<end])
            try edit(bytes, to: &out)
        } else {
            // An empty NAL unit (two start codes in a row): the bytes stay as they were.
            emit(repeatElement(0, count: pendingZeros), to: &out)
            emit([0, 0, 1], to: &out)
        }
        pendingZeros = zerosAfter
        base = nextStartCode
        scanFrom = nextStartCode
    }

    /// The current NAL unit outgrew ``maximumNALUnitSize``: its bytes go out unchanged, and so
    /// will everything up to the next start code.
    private mutating func copyLongUnit(to out: inout [UInt8]) {
        report(H264Error.invalid(.nalUnitTooLarge, "NAL unit longer than \(maximumNALUnitSize) bytes copied unchanged"))
        nalIndex &+= 1  // one per NAL unit of the input
        emit(repeatElement(0, count: pendingZeros), to: &out)
        pendingZeros = 0
        let keep = buffer.count &- 2
        emit(buffer[(segmentStart &- 3)..<keep], to: &out)  // from the start code
        base = keep
        scanFrom = keep
        phase = .copying
    }

    /// Drops the bytes dealt with: once per chunk, so the cost is linear in the input.
    private mutating func compact() {
        guard base > 0 else { return }
        buffer.removeSubrange(0..<base)
        scanFrom &-= base
        segmentStart = Swift.max(0, segmentStart &- base)
        base = 0
    }

    // MARK: - Editing one NAL unit

    private mutating func edit(_ bytes: [UInt8], to out: inout [UInt8]) throws(H264Error) {
        let index = nalIndex
        nalIndex &+= 1  // one per NAL unit of the input
        let framing = pendingZeros
        var nal: NALUnit
        do throws(H264Error) {
            nal = try NALUnit(bytes)
        } catch {
            report(error, index: index)
            emit(repeatElement(0, count: framing), to: &out)
            emit([0, 0, 1], to: &out)
            emit(bytes, to: &out)
            return
        }
        let original = nal
        var dropped = nal.type == .accessUnitDelimiter && edits.accessUnitDelimiters == .remove
        if nal.type == .sei && !edits.removedSEIPayloadTypes.isEmpty {
            // Only the message framing is parsed: the other messages keep their bytes.
            do throws(H264Error) {
                let types = edits.removedSEIPayloadTypes
                if let kept = try SEI.removingMessages(from: nal, where: { types.contains($0.payload.payloadType) }) {
                    nal = try NALUnit(kept[...])
                } else {
                    dropped = true  // every message removed: the NAL unit goes
                }
            } catch {
                report(error, index: index)
            }
        }
        var piece: [UInt8] = []
        if !dropped {
            piece.reserveCapacity(framing &+ 3 &+ nal.count)
            piece.append(contentsOf: repeatElement(0, count: framing))
            piece.append(contentsOf: [0, 0, 1] as [UInt8])
            do throws(H264Error) {
                try AnnexBHeaderEditor.appendRewritten(nal, store: &store, edits: edits, to: &piece)
            } catch where error.code != .invalidArgument {
                report(error, index: index)
                piece.append(contentsOf: nal.bytes)
            }
        }
        guard edits.accessUnitDelimiters == .insert else {
            out.append(contentsOf: piece)
            return
        }
        marks.append((index, held.count))
        held.append(contentsOf: piece)
        do throws(H264Error) {
            if let au = try assembler.push(original, offset: index) { try close(au) }
        } catch {}  // an access unit past the limits is dropped: it gets no delimiter
        flushHeld(to: &out)
    }

    /// Puts an AUD in front of the access unit `au` if it has a picture and none, and writes out
    /// the held output up to its end.
    private mutating func close(_ au: AccessUnit) throws(H264Error) {
        guard let first = au.startOffset else { return }
        let end = first &+ au.nalUnits.count  // the access unit's NAL units are consecutive
        if !au.flags.hasNoPicture, au.nalUnits.first?.type != .accessUnitDelimiter,
           let mark = marks.firstIndex(where: { $0.index == first }) {
            // A slice whose header could not be parsed leaves the type open: 7 allows every one.
            let slices = au.nalUnits.reduce(0) { $0 &+ ($1.type == .slice || $1.type == .idrSlice ? 1 : 0) }
            let aud = au.sliceTypes.count >= slices ? AccessUnitDelimiter(sliceTypes: au.sliceTypes) : AccessUnitDelimiter()
            let bytes: [UInt8] = [0, 0, 0, 1] + (try aud.nalUnit().bytes)
            let position = marks[mark].position
            held.insert(contentsOf: bytes, at: position)
            for k in mark..<marks.count { marks[k].position &+= bytes.count }  // held stays below the limit
        }
        releasable = marks.firstIndex { $0.index >= end }.map { marks[$0].position } ?? held.count
    }

    /// Where the held output may be cut: everything before belongs to access units that are
    /// complete (or to NAL units the assembler dropped).
    private var releasable = 0

    /// Writes out the held output up to `releasable`, or all of it when it grew past the
    /// access-unit limit (that access unit gets no delimiter).
    private mutating func flushHeld(to out: inout [UInt8]) {
        var cut = releasable
        if held.count > Self.maximumHeldBytes { cut = held.count }
        guard cut > 0 else { return }
        out.append(contentsOf: held[0..<cut])
        held.removeSubrange(0..<cut)
        marks.removeAll { $0.position < cut }
        for k in marks.indices { marks[k].position &-= cut }
        releasable = 0
    }

    private mutating func report(_ error: H264Error, index: Int? = nil) {
        unparsedCount &+= 1  // one per NAL unit at most
        if unparsed.count < Self.maximumReports { unparsed.append((index ?? nalIndex &- 1, error)) }
    }

    /// Bytes copied as they are: behind the held output when there is some, to keep the order.
    private mutating func emit<C: Collection>(_ bytes: C, to out: inout [UInt8]) where C.Element == UInt8 {
        if held.isEmpty { out.append(contentsOf: bytes) } else { held.append(contentsOf: bytes) }
    }
}
