/// The sequence and picture parameter sets seen so far, by id, and which SPS is active: the
/// ``SyntaxContext`` of a stream.
///
/// Holds up to 32 SPS (and 32 subset SPS) and 256 PPS, as the specification allows. A later
/// parameter set with the same id replaces the earlier one. Coding a structure with the store as
/// its context never changes it. The active SPS is tracked as FFmpeg's coded-bitstream layer
/// does, by the stream-level readers (the access-unit assembler, ``NALUnitTrace``): a slice
/// activates its PPS and that PPS's SPS (``activate(_:)``), and a buffering_period SEI the SPS
/// it names (``activateSPS(id:)``).
///
/// A parameter set received again with the same bytes (streams that repeat their SPS and PPS
/// before every picture) is recognised by comparing bytes and is not parsed again:
/// ``ingest(_:)`` costs a comparison, and no allocation, in the steady state of such a stream.
/// An SPS or PPS whose bytes switch back to ones parsed earlier under its id (streams that
/// alternate between a few versions, or splice the same sources in turn) is restored from the
/// versions the store keeps, without a parse and without an allocation. Versions are kept from
/// a stream's first change of a set on: a stream that never changes its sets keeps none.
///
/// Memory: at most 32 + 32 SPS and 256 PPS, each bounded by the caps of its syntax; the
/// payload bytes of each SPS, PPS and subset SPS that ``ingest(_:)`` stored (to recognise a repeat; per id,
/// room for the largest stored there since ``parseMode`` last changed); and at most 288 earlier
/// SPS and PPS versions holding at most 64 KiB of NAL unit bytes (none over 4 KiB), with their
/// parsed sets, the least recently used dropped first. A new store allocates nothing, and its
/// tables grow only up to the highest id stored.
public struct ParameterSetStore: Sendable, SyntaxContext {
    /// The number of SPS ids (0...31).
    public static let spsIDCount = 32
    /// The number of PPS ids (0...255).
    public static let ppsIDCount = 256

    // The tables hold storage only up to the highest id stored: a new store allocates nothing.
    private var spsTable = ParameterSetSlots<SequenceParameterSet>()
    private var subsetSPSTable = ParameterSetSlots<SubsetSequenceParameterSet>()
    private var ppsTable = ParameterSetSlots<PictureParameterSet>()
    // Plain-value summaries for slice headers, kept in step with the tables above.
    private var spsContexts = ParameterSetSlots<SliceHeaderContext>()
    private var subsetSPSContexts = ParameterSetSlots<SliceHeaderContext>()
    private var ppsContexts = ParameterSetSlots<SliceHeaderContext>()
    // The two merged for each PPS whose SPS is known: one look-up per slice header.
    private var sliceContexts = ParameterSetSlots<SliceHeaderContext>()
    // For activation (read by the inlinable activate(ppsID:subset:), so that a reader in another
    // module activates without a call): the SPS id each PPS names (nil: no such PPS), and which
    // SPS ids are known.
    @usableFromInline var ppsSPSIDs = ParameterSetSlots<Int8>()
    // The payload bytes (as carried) of each SPS and PPS that ingest(_:) stored without
    // warnings. A PPS's is forgotten when the SPS it names changes (its parse depends on that
    // SPS), every one when parseMode changes.
    var receivedPayloads = ParameterSetPayloads()
    // The payload bytes of each subset SPS that ingest(_:) stored (slots 0...31, by id): its
    // parse depends on nothing else. Forgotten when another subset SPS is stored under the id.
    var receivedSubsetPayloads = ParameterSetPayloads()
    // Earlier versions of the SPS and PPS that ingest(_:) parsed without warnings, by their
    // bytes (all forgotten when parseMode changes).
    var versions = ParameterSetVersions()
    // The generation of the SPS stored under each id (nil: none): a new one for each SPS
    // stored, the one it had for an SPS restored from `versions`. A PPS version is valid only
    // with the generation of the SPS it was parsed against.
    var spsGenerations = ParameterSetSlots<UInt64>()
    // The last generation given (< 2^64: one per SPS stored).
    var lastSPSGeneration: UInt64 = 0
    @usableFromInline var knownSPS: UInt32 = 0
    @usableFromInline var knownSubsetSPS: UInt32 = 0
    @usableFromInline var activeSPSIDValue: Int?
    @usableFromInline var activePPSIDValue: Int?
    /// The SPS id that the last slice header or buffering period activated.
    public var activeSPSID: Int? { activeSPSIDValue }
    /// The PPS id that the last slice header activated.
    public var activePPSID: Int? { activePPSIDValue }

    /// How ``ingest(_:)`` treats SPS and PPS that depart from the specification (trailing data,
    /// a truncated VUI, missing trailing bits); ``ParseMode/default`` keeps trailing data only.
    public var parseMode: ParseMode = .default {
        didSet {
            receivedPayloads.forgetAll()
            receivedSubsetPayloads.forgetAll()
            versions.forgetAll()
        }
    }
    /// What ``ingest(_:)`` recovered from under ``parseMode``, oldest first: at most
    /// ``maxWarnings`` (later ones are counted in ``droppedWarningCount``).
    public private(set) var warnings: [ParseWarning] = []
    /// Warnings not kept because ``warnings`` was full.
    public private(set) var droppedWarningCount = 0
    /// The cap on ``warnings``: a hostile stream cannot grow the store without bound.
    public static let maxWarnings = 64

    /// Creates an empty store.
    public init() {}

    /// Creates an empty store that parses with `parseMode`.
    public init(parseMode: ParseMode) { self.parseMode = parseMode }

    /// Creates a store holding `sps` and, when given, `pps`: the context for reading or writing
    /// the structures that refer to them.
    public init(sps: SequenceParameterSet, pps: PictureParameterSet? = nil) {
        insert(sps)
        if let pps { insert(pps) }
    }

    /// Empties ``warnings``.
    public mutating func removeWarnings() {
        warnings.removeAll()
        droppedWarningCount = 0
    }

    /// Keeps `found` within ``maxWarnings``.
    mutating func record(_ found: [ParseWarning]) {
        for w in found {
            if warnings.count < Self.maxWarnings { warnings.append(w) } else { droppedWarningCount &+= 1 }  // < Int.max ingests
        }
    }

    /// The SPS with `seq_parameter_set_id` `id`, if seen.
    @inlinable public func sps(id: Int) -> SequenceParameterSet? {
        guard id >= 0, id < Self.spsIDCount else { return nil }
        return spsStorage(id)
    }

    @usableFromInline func spsStorage(_ id: Int) -> SequenceParameterSet? { spsTable[id] }

    /// The SPS seen so far and nothing else: the context a PPS is parsed with.
    var spsLookup: SPSLookup { SPSLookup(table: spsTable) }

    /// A context that knows the SPS of a store (by value: a copy of one table).
    struct SPSLookup: SyntaxContext {
        let table: ParameterSetSlots<SequenceParameterSet>

        func sps(id: Int) -> SequenceParameterSet? {
            guard id >= 0, id < ParameterSetStore.spsIDCount else { return nil }
            return table[id]
        }
    }

    /// The subset SPS with `seq_parameter_set_id` `id`, if seen.
    public func subsetSPS(id: Int) -> SubsetSequenceParameterSet? {
        guard id >= 0, id < Self.spsIDCount else { return nil }
        return subsetSPSTable[id]
    }

    /// The PPS with `pic_parameter_set_id` `id`, if seen.
    public func pps(id: Int) -> PictureParameterSet? {
        guard id >= 0, id < Self.ppsIDCount else { return nil }
        return ppsTable[id]
    }

    /// The active SPS, if any.
    public var activeSPS: SequenceParameterSet? { activeSPSID.flatMap { sps(id: $0) } }

    // The insert functions consume their argument: it moves into its table (a parsed set is
    // not copied, with a retain and a release of each of its arrays).

    /// Stores an SPS under its id (replacing any earlier one).
    public mutating func insert(_ sps: consuming SequenceParameterSet) {
        insert(sps, generation: nextSPSGeneration())
    }

    /// A generation no SPS had.
    mutating func nextSPSGeneration() -> UInt64 {
        lastSPSGeneration &+= 1  // one per SPS stored: cannot reach 2^64
        return lastSPSGeneration
    }

    /// The generation of the SPS stored under `id`, 0 when none is.
    func spsGeneration(_ id: Int) -> UInt64 { spsGenerations[id] ?? 0 }

    /// Stores an SPS under its id with `generation` (a new one, or the one it had when it was
    /// kept as a version).
    mutating func insert(_ sps: consuming SequenceParameterSet, generation: UInt64) {
        let spsID = Int(sps.id & 31)
        spsGenerations[spsID] = generation
        var c = SliceHeaderContext()
        c.setSPS(sps)
        spsTable[spsID] = consume sps
        spsContexts[spsID] = c
        knownSPS |= 1 << UInt32(spsID)
        receivedPayloads.forget(slot: spsID)
        for id in 0..<ppsSPSIDs.count where ppsSPSIDs[id] == Int8(spsID) {
            mergeSliceContext(ppsID: id)
            receivedPayloads.forget(slot: ParameterSetPayloads.ppsBase &+ id)  // parsed against the SPS it replaces
        }
    }
    /// Stores a subset SPS under its id.
    public mutating func insert(_ subset: consuming SubsetSequenceParameterSet) {
        let spsID = Int(subset.sps.id & 31)
        var c = SliceHeaderContext()
        c.setSPS(subset.sps)
        subsetSPSTable[spsID] = consume subset
        subsetSPSContexts[spsID] = c
        knownSubsetSPS |= 1 << UInt32(spsID)
        receivedSubsetPayloads.forget(slot: spsID)
    }
    /// Stores a PPS under its id.
    public mutating func insert(_ pps: consuming PictureParameterSet) {
        let ppsID = Int(pps.id)
        var c = SliceHeaderContext()
        c.setPPS(pps)
        ppsSPSIDs[ppsID] = Int8(pps.spsID & 31)
        ppsTable[ppsID] = consume pps
        receivedPayloads.forget(slot: ParameterSetPayloads.ppsBase &+ ppsID)
        ppsContexts[ppsID] = c
        mergeSliceContext(ppsID: ppsID)
    }

    /// Keeps `sliceContexts[ppsID]` the merge of the PPS's context and its SPS's (nil while
    /// either is unknown).
    private mutating func mergeSliceContext(ppsID: Int) {
        guard var c = ppsContexts[ppsID], let s = spsContexts[Int(c.spsID & 31)], c.spsID < 32 else {
            sliceContexts[ppsID] = nil
            return
        }
        c.setSPS(from: s)
        sliceContexts[ppsID] = c
    }

    /// What a slice header's syntax needs from PPS `ppsID` and its SPS (from the subset SPS table
    /// when `subset`), kept as a plain value per parameter set when it is stored: no arrays are
    /// copied.
    /// - Complexity: O(1): one table entry (merged when the parameter sets were stored).
    public func sliceHeaderContext(ppsID: Int, subset: Bool) -> SliceHeaderContext? {
        guard ppsID >= 0, ppsID < Self.ppsIDCount else { return nil }
        if !subset { return sliceContexts[ppsID] }
        guard var c = ppsContexts[ppsID], let s = spsContext(Int(c.spsID), subset: true) else { return nil }
        c.setSPS(from: s)
        return c
    }

    func spsContext(_ id: Int, subset: Bool) -> SliceHeaderContext? {
        guard id >= 0, id < Self.spsIDCount else { return nil }
        return subset ? subsetSPSContexts[id] : spsContexts[id]
    }

    /// Makes the SPS `id` the active one (what a buffering_period SEI does).
    /// - Throws: ``H264Error/Code/missingParameterSet`` when no such SPS was seen.
    public mutating func activateSPS(id: Int) throws(H264Error) {
        guard sps(id: id) != nil else { throw H264Error.invalid(.missingParameterSet, "SPS \(id) not available") }
        activeSPSIDValue = id
    }

    /// Makes the PPS `header` names and that PPS's SPS the active ones, what decoding the slice
    /// does (for a type 20 slice, the PPS only: its SPS is a subset SPS).
    /// - Throws: ``H264Error/Code/missingParameterSet`` when either is missing (nothing changes).
    /// - Complexity: O(1): no parameter set is copied; inlinable (an out-of-line call would copy
    ///   the header).
    @inlinable
    public mutating func activate(_ header: SliceHeader) throws(H264Error) {
        try activate(ppsID: Int(header.ppsID), subset: header.nalUnitHeader.nalUnitType == .sliceExtension)
    }

    /// Makes the PPS `id` and its SPS the active ones (what a slice header naming it does).
    /// - Parameters:
    ///   - id: the PPS id.
    ///   - subset: the SPS is taken from the subset SPS table (MVC slices, type 20) and
    ///   only the PPS becomes active.
    /// - Throws: ``H264Error/Code/missingParameterSet`` when either is missing (nothing changes).
    /// - Complexity: O(1): no parameter set is copied.
    @inlinable
    public mutating func activate(ppsID id: Int, subset: Bool = false) throws(H264Error) {
        let spsID = ppsSPSIDs[id] ?? -1
        guard spsID >= 0, (subset ? knownSubsetSPS : knownSPS) >> UInt32(spsID) & 1 != 0 else {
            throw missingParameterSet(ppsID: id, subset: subset)
        }
        activePPSIDValue = id
        if !subset { activeSPSIDValue = Int(spsID) }
    }

    /// The error of ``activate(ppsID:subset:)`` when PPS `ppsID` or its SPS is missing.
    @usableFromInline func missingParameterSet(ppsID: Int, subset: Bool) -> H264Error {
        SliceHeader.missingParameterSet(ppsID: ppsID, subset: subset, context: self)
    }

    /// The timing info of SPS `id`, if seen.
    public func seiTimingInfo(forSPS id: Int) -> SEITimingInfo? { sps(id: id)?.seiTimingInfo }

    /// The timing info of the active SPS; when none is active yet and exactly one SPS is known,
    /// that one (FFmpeg's rule for a pic_timing before the first slice).
    public var activeSEITimingInfo: SEITimingInfo? {
        if let s = activeSPS { return s.seiTimingInfo }
        var only: SequenceParameterSet?
        for id in 0..<spsTable.count {
            guard let s = spsTable[id] else { continue }
            if only != nil { return nil }
            only = s
        }
        return only?.seiTimingInfo
    }
}
