/// Groups NAL units into access units (7.4.1.2.3) as they arrive, in any chunking.
///
/// A new access unit begins at the first of these after the last VCL NAL unit of a primary
/// coded picture: an access unit delimiter, SPS, PPS, SEI, a NAL unit of type 14 to 18, or the
/// first VCL NAL unit of a new primary coded picture (7.4.1.2.4, see
/// ``SlicePictureFields/startsNewPicture(after:)``). AUD and SEI can never sit between the
/// slices of one picture, so they close the picture at once; SPS, PPS and types 14 to 18 may,
/// so they are held until the next VCL NAL unit says whether a new picture begins.
///
/// Parameter sets are followed through the stream in ``store``; a slice header is parsed with
/// the SPS and PPS in force, picture order counts are decoded (8.2.1) and the flags a muxer
/// needs are derived from the bitstream.
///
/// Memory is bounded by ``AccessUnitLimits``: an access unit larger than `maxAccessUnitBytes` (or, when
/// offsets are given, spanning more of the input, zero bytes between NAL units included) or with
/// more than `maxNALUnitsPerAccessUnit` NAL units fails with ``H264Error/Code/limitExceeded``
/// and is dropped, and assembly goes on with the next NAL unit. The SPS and PPS in force are
/// kept as copies (at most 64 KiB each).
public struct AccessUnitAssembler: Sendable {
    /// The bounds on one access unit (the parser's and the assembler's: ``AccessUnitLimits``).
    @available(*, deprecated, renamed: "AccessUnitLimits")
    public typealias Limits = AccessUnitLimits


    /// The parameter sets seen so far.
    public private(set) var store = ParameterSetStore()
    /// The limits in force.
    public let limits: AccessUnitLimits
    /// The NAL-unit count from which an access unit is large (its arrays may outgrow the small
    /// ones kept for reuse) or at its limit: each NAL unit added then takes the slower check.
    private let largeCount: Int

    private var current: [NALUnit] = []
    private var currentBytes = 0
    /// What the flags of the access unit being built depend on, gathered as its NAL units and
    /// slice types arrive.
    private var evidence = AccessUnitFlags.Evidence()
    /// The error of the last slice header that could not be parsed, until ``pushSlice(_:)``
    /// files it with its picture (kept out of ``ParsedSlice``, which stays trivially copyable).
    private var sliceError: H264Error?
    /// The access unit the last NAL unit completed, until ``takeCompleted(into:)`` moves it
    /// out; written field by field in place by ``close()`` (not an optional: building a new
    /// value and storing it copied the whole access unit and counted its arrays' references).
    private var completed = AccessUnit()
    private var currentHasVCL = false
    private var pending: [NALUnit] = []
    private var pendingBytes = 0
    /// The fields of the last primary slice, when `hasPreviousPrimary` (not an optional: compared
    /// and replaced in place once per slice).
    private var previousPrimary = SlicePictureFields(isIDR: false, nalRefIdc: 0, picParameterSetId: 0, frameNum: 0)
    private var hasPreviousPrimary = false
    private var picture = PictureInfo()
    private var pocCounter = PictureOrderCountDecoder()
    private var nextIndex = 0
    /// The SPS (slots 0...31) and PPS (32...287) NAL units in force; storage only up to the
    /// highest slot used (a new assembler allocates nothing).
    private var parameterSets = ParameterSetSlots<NALUnit>()
    /// Slots whose content changed since the last format change (each once).
    private var changedSlots: [Int] = []
    /// Makes the format changes (their storage shared, and reused once handed back).
    private var formatChanges = FormatChangeRecorder()
    private var formatChanged = false
    /// What pictures need of each SPS id seen, refreshed when an SPS arrives: no copy of the
    /// SPS per slice or per picture. Grown to the highest SPS id seen (a new assembler
    /// allocates nothing); a plain array, not ``ParameterSetSlots``, because it is read once per
    /// slice and an array's subscript reads `spsFacts[id]?.poc.picOrderCntType` in place, where
    /// a getter would copy the whole element (one retain and release per slice).
    private var spsFacts: [SPSFacts?] = []

    /// The values of one SPS that slices and pictures use.
    private struct SPSFacts: Sendable {
        var poc: POCParameters
        var maxNumRefFrames: Int

        init(_ sps: SequenceParameterSet) {
            poc = sps.pocParameters
            maxNumRefFrames = Int(sps.maxNumRefFrames)
        }

        /// This SPS id's new values, written in place (the offsets' storage reused).
        mutating func refresh(_ sps: SequenceParameterSet) {
            sps.writePOCParameters(into: &poc)
            maxNumRefFrames = Int(sps.maxNumRefFrames)
        }
    }
    /// Emptied arrays of access units handed back (``recycle(_:)``), reused by the next access
    /// units.
    private var spareNALUnits = SpareArrays<NALUnit>()
    private var spareSliceTypes = SpareArrays<SliceType.Kind>()
    private var incomingOffset: Int?
    private var currentOffset: Int?
    private var pendingOffset: Int?
    /// The header every slice is parsed into, its lists' storage reused: no allocation per
    /// slice (at most the lists' caps are kept: ~3 KB).
    private var sliceHeader = SliceHeader()

    /// What the first slice of the current primary picture said.
    private struct PictureInfo: Sendable {
        var sliceTypes: [SliceType.Kind] = []
        var frameNum = 0
        var structure = PictureStructure.frame
        var poc: Int64?
        var startsPOCPeriod = false
        var allSlicesParsed = true
        var recoveryFrameCount: Int?
        var maxNumRefFrames: Int?
        var diagnostics: [H264Error] = []
        var droppedDiagnostics = 0

        /// Back to a new picture's values, once the slice types have been moved out (the emptied
        /// array that took their place stays).
        mutating func reset() {
            frameNum = 0
            structure = .frame
            poc = nil
            startsPOCPeriod = false
            allSlicesParsed = true
            recoveryFrameCount = nil
            maxNumRefFrames = nil
            diagnostics = []
            droppedDiagnostics = 0
        }

        mutating func note(_ error: H264Error) {
            if diagnostics.count < AccessUnitAssembler.maximumDiagnostics {
                diagnostics.append(error)
            } else {
                droppedDiagnostics &+= 1  // at most one per NAL unit of the access unit
            }
        }
    }

    /// The most problems kept in one access unit's ``AccessUnit/diagnostics``; later ones are
    /// counted in ``AccessUnit/droppedDiagnosticCount``.
    public static let maximumDiagnostics = 16

    /// Creates an assembler.
    /// - Parameter limits: bounds on one access unit.
    public init(limits: AccessUnitLimits = AccessUnitLimits()) {
        self.limits = limits
        largeCount = Swift.min(limits.maxNALUnitsPerAccessUnit, SpareArrays<NALUnit>.smallCapacityLimit)
    }

    /// Creates an assembler whose parameter sets come from out of band (an avcC record).
    public init(parameterSets: [NALUnit], limits: AccessUnitLimits = AccessUnitLimits()) {
        self.limits = limits
        largeCount = Swift.min(limits.maxNALUnitsPerAccessUnit, SpareArrays<NALUnit>.smallCapacityLimit)
        for unit in parameterSets { noteParameterSet(unit) }
        formatChanged = false
    }

    /// Adds the next NAL unit in decoding order.
    /// - Parameters:
    ///   - unit: the NAL unit.
    ///   - offset: where its framing (start code or length) begins in the input, if known; the
    ///     access unit it begins gets it as ``AccessUnit/byteOffset``.
    /// - Returns: the access unit that `unit` completed, if any (it never contains `unit`).
    /// - Throws: ``H264Error/Code/limitExceeded`` when the access unit being built passes a
    ///   limit; it is dropped and assembly continues with the next NAL unit.
    public mutating func push(_ unit: NALUnit, offset: Int? = nil) throws(H264Error) -> AccessUnit? {
        guard try add(unit, offset: offset) else { return nil }
        return takeCompleted()
    }

    /// ``push(_:offset:)`` without an optional access unit passed back for every NAL unit.
    /// - Returns: true when `unit` completed an access unit: take it with ``takeCompleted()``
    ///   before the next call.
    mutating func add(_ unit: consuming NALUnit, offset: Int?) throws(H264Error) -> Bool {
        incomingOffset = offset
        var done = false  // `unit` completed the access unit in `completed`
        // An access unit completed by a NAL unit that then throws goes with the error: it stays
        // in `completed` untaken, and the next close writes over it.
        let type = unit.type
        switch type {
        case .sei, .accessUnitDelimiter:
            // SEI and AUD precede the first VCL NAL unit of their picture.
            if currentHasVCL {
                close()
                done = true
            }
            if !pending.isEmpty { try takePending() }
            try append(copy unit)  // used below (SEI and AUD only)
            if type == .sei, picture.recoveryFrameCount == nil {
                picture.recoveryFrameCount = RecoveryPointLookup.recoveryFrameCount(in: unit)
            }
        case .sps, .pps, .prefix, .subsetSPS, .depthParameterSet, .reserved17, .reserved18:
            noteParameterSet(unit)
            if currentHasVCL { try hold(consume unit) } else { try append(consume unit) }
        case _ where type.isVCL:
            done = try pushSlice(consume unit)  // moved along into the access unit: no reference counted
        default:
            if !pending.isEmpty { try hold(consume unit) } else { try append(consume unit) }
        }
        return done
    }

    /// The access unit the last ``add(_:offset:)`` completed, moved out.
    mutating func takeCompleted() -> AccessUnit {
        var au = AccessUnit()
        takeCompleted(into: &au)
        return au
    }

    /// Trades the access unit the last ``add(_:offset:)`` completed with `slot`'s (moved,
    /// not copied): the assembler keeps `slot`'s former value to write the next one over.
    mutating func takeCompleted(into slot: inout AccessUnit) {
        swap(&slot, &completed)
    }

    /// Ends the stream: returns the last access unit, if any.
    public mutating func finish() -> AccessUnit? {
        if current.isEmpty { currentOffset = pendingOffset }
        for unit in pending { evidence.add(unit) }
        current += pending
        currentBytes &+= pendingBytes  // both bounded by the limit checks
        pending.removeAll()
        pendingBytes = 0
        guard !current.isEmpty else { return nil }
        close()
        return takeCompleted()
    }

    // MARK: - Slices

    /// - Returns: true when `unit` completed an access unit (in ``completed``).
    private mutating func pushSlice(_ unit: consuming NALUnit) throws(H264Error) -> Bool {
        parseSlice(unit)
        let parsed = slice.parsed
        let newPicture: Bool
        if currentHasVCL {
            if hasPreviousPrimary && parsed {
                newPicture = slice.fields.startsNewPicture(after: previousPrimary)
            } else {
                // Unparseable header: fall back to first_mb_in_slice == 0, as FFmpeg does.
                newPicture = slice.firstMbInSlice == 0 && (parsed ? slice.fields.redundantPicCnt : 0) == 0
            }
        } else {
            newPicture = false
        }
        if newPicture {
            close()
        }
        if !pending.isEmpty { try takePending() }
        let firstSliceOfPicture = !currentHasVCL
        try append(consume unit)
        currentHasVCL = true
        if parsed && slice.fields.redundantPicCnt == 0 {
            previousPrimary = slice.fields
            hasPreviousPrimary = true
            picture.sliceTypes.append(slice.sliceType)
            evidence.add(slice.sliceType)
            if firstSliceOfPicture {
                startPicture(hasMMCO5: slice.hasMMCO5)
            }
        } else if !parsed {
            picture.allSlicesParsed = false
            if let error = sliceError.take() { picture.note(error) }
        }
        return newPicture
    }

    /// What the assembler keeps of a slice header (not the header: no copies of its arrays).
    /// Trivially copyable: the parse error, if any, waits in ``sliceError``.
    private struct ParsedSlice {
        /// The header was parsed: `fields`, `sliceType` and `hasMMCO5` are this slice's.
        var parsed = false
        var fields = SlicePictureFields(isIDR: false, nalRefIdc: 0, picParameterSetId: 0, frameNum: 0)
        /// `slice_type % 5`.
        var sliceType: SliceType.Kind = .p
        /// `memory_management_control_operation` 5 is among the slice's operations.
        var hasMMCO5 = false
        var firstMbInSlice: UInt32?
    }

    /// The last slice, written in place by ``parseSlice(_:)`` (a returned value was copied
    /// twice per slice).
    private var slice = ParsedSlice()

    /// Parses `unit`'s slice header into ``slice``.
    private mutating func parseSlice(_ unit: NALUnit) {
        slice.parsed = false
        do throws(H264Error) {
            try SliceHeader.parse(unit, context: store, into: &sliceHeader)
            try store.activate(sliceHeader)
            // The SPS's pic_order_cnt_type, without copying the SPS for every slice.
            guard let spsID = store.activeSPSID, spsID >= 0, spsID < spsFacts.count,
                  let pocType = spsFacts[spsID]?.poc.picOrderCntType else {
                throw H264Error.invalid(.missingParameterSet, "no active SPS")
            }
            slice.sliceType = sliceHeader.sliceKind
            slice.hasMMCO5 = sliceHeader.hasMMCO5
            slice.firstMbInSlice = sliceHeader.firstMbInSlice
            // Every field set (the initialiser sets the others to their defaults).
            slice.fields = SlicePictureFields(isIDR: unit.type == .idrSlice, nalRefIdc: unit.nalRefIdc,
                                              picParameterSetId: Int(sliceHeader.ppsID), frameNum: Int64(sliceHeader.frameNum))
            slice.fields.fieldPic = sliceHeader.fieldPicFlag
            slice.fields.bottomField = sliceHeader.bottomFieldFlag
            slice.fields.idrPicId = Int64(sliceHeader.idrPicID)
            slice.fields.picOrderCntType = pocType
            slice.fields.picOrderCntLsb = Int64(sliceHeader.picOrderCntLsb)
            slice.fields.deltaPicOrderCntBottom = Int64(sliceHeader.deltaPicOrderCntBottom)
            slice.fields.deltaPicOrderCnt0 = Int64(sliceHeader.deltaPicOrderCnt0)
            slice.fields.deltaPicOrderCnt1 = Int64(sliceHeader.deltaPicOrderCnt1)
            slice.fields.redundantPicCnt = Int(sliceHeader.redundantPicCnt)
            slice.fields.firstMbInSlice = Int(sliceHeader.firstMbInSlice)
            slice.parsed = true
        } catch {
            sliceError = error
            slice.firstMbInSlice = unit.sliceHeaderLeadingElements().firstMbInSlice
        }
    }

    /// The first primary slice of a picture: its frame_num, structure and POC (8.2.1) with the
    /// facts of the SPS in force.
    private mutating func startPicture(hasMMCO5 mmco5: Bool) {
        let fields = previousPrimary  // this slice's
        guard let spsID = store.activeSPSID, spsID >= 0, spsID < spsFacts.count, let facts = spsFacts[spsID] else { return }
        picture.frameNum = Int(fields.frameNum)
        picture.maxNumRefFrames = facts.maxNumRefFrames
        picture.structure = !fields.fieldPic ? .frame : (fields.bottomField ? .bottomField : .topField)
        let inputs = POCInputs(
            isIDR: fields.isIDR, isReference: fields.nalRefIdc != 0, frameNum: fields.frameNum,
            fieldPic: fields.fieldPic, bottomField: fields.bottomField,
            picOrderCntLsb: fields.picOrderCntLsb, deltaPicOrderCntBottom: fields.deltaPicOrderCntBottom,
            deltaPicOrderCnt0: fields.deltaPicOrderCnt0, deltaPicOrderCnt1: fields.deltaPicOrderCnt1,
            hasMMCO5: mmco5)
        let count = pocCounter.next(inputs, facts.poc)
        // After mmco 5 the picture's own count is taken relative to itself (8.2.1): it opens
        // a new POC period in which it is 0.
        picture.poc = mmco5 ? 0 : count.value
        picture.startsPOCPeriod = fields.isIDR || mmco5  // isIDR: nal_unit_type 5
    }

    // MARK: - Building

    private mutating func append(_ unit: consuming NALUnit, offset: Int? = nil) throws(H264Error) {
        try check(adding: unit, toCount: current.count, bytes: currentBytes)
        if current.isEmpty { currentOffset = offset ?? incomingOffset }
        evidence.add(unit)
        currentBytes &+= unit.count  // checked against the limit just above
        current.append(consume unit)
    }

    /// Moves the held NAL units (some: callers check) into the access unit being built.
    private mutating func takePending() throws(H264Error) {
        var held = pending.takeAll()  // moved out, not shared: its storage comes back below
        defer {
            held.removeAll(keepingCapacity: true)
            if pending.isEmpty { pending = held.takeAll() }
        }
        let heldOffset = pendingOffset
        pendingBytes = 0
        for (i, u) in held.enumerated() { try append(u, offset: i == 0 ? heldOffset : nil) }
    }

    private mutating func hold(_ unit: consuming NALUnit) throws(H264Error) {
        try check(adding: unit, toCount: current.count &+ pending.count, bytes: currentBytes &+ pendingBytes)
        if pending.isEmpty { pendingOffset = incomingOffset }
        pendingBytes &+= unit.count  // checked against the limit just above
        pending.append(consume unit)
    }

    /// Checks the limits before `unit` joins the access unit. With offsets, the access unit's
    /// span in the input counts (from its first start code to the end of `unit`, framing and
    /// zero bytes between its NAL units included): NAL units that are views of a streaming
    /// parser's chunks keep those chunks, so the span bounds what an access unit holds.
    private mutating func check(adding unit: NALUnit, toCount count: Int, bytes: Int) throws(H264Error) {
        var span = 0
        if let end = incomingOffset, let start = current.isEmpty ? (pending.isEmpty ? end : pendingOffset) : currentOffset {
            span = end &- start &+ unit.count  // offsets within the input, below Int.max / 2
        }
        if count >= largeCount || unit.count > limits.maxAccessUnitBytes &- bytes || span > limits.maxAccessUnitBytes {
            try checkLarge(adding: unit, toCount: count, bytes: bytes, span: span)
        }
    }

    /// ``check(adding:toCount:bytes:)`` for an access unit past ``largeCount`` NAL units or
    /// near a limit: the limits, then room for one more NAL unit and slice type taken from
    /// the larger arrays kept (the stream had access units this large) before an array grows.
    @inline(never)
    private mutating func checkLarge(adding unit: NALUnit, toCount count: Int, bytes: Int, span: Int) throws(H264Error) {
        if count >= limits.maxNALUnitsPerAccessUnit || unit.count > limits.maxAccessUnitBytes &- bytes
            || span > limits.maxAccessUnitBytes {
            throw dropForLimit(count: count)
        }
        if current.count == current.capacity { spareNALUnits.makeRoom(in: &current) }
        if picture.sliceTypes.count == picture.sliceTypes.capacity { spareSliceTypes.makeRoom(in: &picture.sliceTypes) }
    }

    /// Drops the access unit being built, which passed a limit: the error to throw.
    @inline(never)
    private mutating func dropForLimit(count: Int) -> H264Error {
        let reason = count >= limits.maxNALUnitsPerAccessUnit
            ? "access unit has more than \(limits.maxNALUnitsPerAccessUnit) NAL units"
            : "access unit spans more than \(limits.maxAccessUnitBytes) bytes"
        current.removeAll()
        currentBytes = 0
        currentHasVCL = false
        evidence = AccessUnitFlags.Evidence()
        pending.removeAll()
        pendingBytes = 0
        picture = PictureInfo()
        return H264Error.invalid(.limitExceeded, reason)
    }

    /// Completes the access unit being built into ``completed``.
    private mutating func close() {
        // The arrays move into the access unit; recycled ones (or new ones sized as these were)
        // take their place: no copy, and no allocation once access units are handed back.
        var units = spareNALUnits.take() ?? Self.emptyArray(capacity: current.count)
        swap(&units, &current)
        var types = spareSliceTypes.take() ?? Self.emptyArray(capacity: picture.sliceTypes.count)
        swap(&types, &picture.sliceTypes)
        let flags = AccessUnitFlags(evidence, allSlicesParsed: picture.allSlicesParsed,
                                    recoveryFrameCount: picture.recoveryFrameCount,
                                    maxNumRefFrames: picture.maxNumRefFrames)
        evidence = AccessUnitFlags.Evidence()
        var formatChange: FormatChange? = nil
        if formatChanged && units.contains(where: { $0.type == .sps }) {
            changedSlots.sort()
            formatChange = formatChanges.record(changedSlots: changedSlots, in: parameterSets)
            changedSlots.removeAll(keepingCapacity: true)
            formatChanged = false
        }
        let index = nextIndex
        nextIndex &+= 1  // one per access unit
        currentBytes = 0
        currentHasVCL = false
        // Written in place, every stored property, from values moved out of the picture, which
        // is reset field by field (its emptied slice-type array stays): no copy of the access
        // unit or of the picture.
        completed.fill(
            nalUnits: &units, index: index, byteOffset: index == 0 ? (currentOffset.map { _ in 0 }) : currentOffset,
            flags: flags, sliceTypes: &types, frameNum: picture.frameNum, structure: picture.structure, poc: picture.poc,
            formatChange: formatChange, startsPOCPeriod: picture.startsPOCPeriod,
            diagnostics: &picture.diagnostics, droppedDiagnosticCount: picture.droppedDiagnostics,
            startOffset: currentOffset)
        picture.reset()
    }

    /// An empty array that holds `capacity` elements (at least 4) without growing.
    private static func emptyArray<Element>(capacity: Int) -> [Element] {
        var a: [Element] = []
        a.reserveCapacity(Swift.max(4, capacity))
        return a
    }

    /// Takes back the storage of an access unit the caller is done with: its NAL-unit and
    /// slice-type arrays, emptied, hold the next access units' (when uniquely held, without
    /// allocating), and its format change's storage the next format change's. `au` is left
    /// without NAL units, slice types and format change.
    mutating func recycle(_ au: inout AccessUnit) {
        spareNALUnits.keep(&au.nalUnits)
        spareSliceTypes.keep(&au.sliceTypes)
        if au.formatChange != nil { formatChanges.takeBack(&au.formatChange) }
    }

    // MARK: - Parameter sets

    private mutating func noteParameterSet(_ unit: NALUnit) {
        let type = unit.type
        guard type == .sps || type == .pps else {
            _ = try? store.ingest(unit)
            return
        }
        do throws(H264Error) {
            // A repeat (the same bytes as the set in force) changes nothing: no parse, no copy.
            guard try store.ingestNoting(unit) != .repeated else { return }
        } catch {
            picture.note(error)
            return
        }
        // The bytes the store keeps for this version, when it keeps them: no id read, no copy.
        let kept = store.keptUnit(matching: unit)
        guard let id = kept?.id ?? unit.parameterSetID else { return }
        if type == .sps, id < ParameterSetStore.spsIDCount, let sps = store.sps(id: id) {
            if id >= spsFacts.count { spsFacts.append(contentsOf: repeatElement(nil, count: id &- spsFacts.count &+ 1)) }  // id < 32
            if spsFacts[id] == nil { spsFacts[id] = SPSFacts(sps) } else { spsFacts[id]!.refresh(sps) }
        }
        guard type == .pps || id < FormatChangeRecord.ppsBase else { return }
        let slot = type == .sps ? id : FormatChangeRecord.ppsBase &+ id  // id < 256: parameterSetID checks
        guard slot < FormatChangeRecord.slotCount else { return }
        let old = parameterSets[slot]
        guard old?.payload != unit.payload else { return }
        // A copy: a view would keep a streaming parser's whole chunk. A set too large for an
        // avcC record (64 KiB) is not followed for format changes.
        guard unit.count <= Int(UInt16.max) else { return }
        if type == .sps && old != nil { formatChanged = true }
        parameterSets[slot] = kept?.unit ?? NALUnit(unchecked: Array(unit.bytes)[...])
        if !changedSlots.contains(slot) { changedSlots.append(slot) }  // at most 288 slots
    }
}

/// Bounds on one access unit, for every parser and assembler of access units
/// (`AccessUnitParser`, `AccessUnitAssembler`, the async sequences, the conversions): an access
/// unit past them fails with ``H264Error/Code/limitExceeded`` and is dropped.
public struct AccessUnitLimits: Sendable, Hashable {
    /// Largest access unit in bytes (default 128 MiB: several 8K intra frames).
    public var maxAccessUnitBytes: Int
    /// Most NAL units in one access unit (default 16,384: one slice per macroblock row of
    /// an 8K picture, and per-macroblock slices of smaller ones).
    public var maxNALUnitsPerAccessUnit: Int

    /// Creates limits.
    public init(maxAccessUnitBytes: Int = 128 << 20, maxNALUnitsPerAccessUnit: Int = 16_384) {
        self.maxAccessUnitBytes = maxAccessUnitBytes
        self.maxNALUnitsPerAccessUnit = maxNALUnitsPerAccessUnit
    }
}
