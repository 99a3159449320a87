/// Chooses the parameter sets to put in front of an access unit so that a decoder that starts
/// there has what it needs, and no more: the SPS and PPS the picture's slices refer to.
///
/// Writers that move parameter sets from out of band (an avcC record, an FLV sequence header)
/// into the stream, or that repeat them for late joiners, ask it once per access unit in
/// decoding order (``parameterSets(toInsertBefore:isRandomAccess:)``):
///
/// before a random access point (an IDR picture, a recovery point, an FLV keyframe) it returns
/// the SPS (with its SPS extension) and PPS each slice refers to, unless the access unit carries
/// them itself: new ones, ones that changed since the output last carried them, and repeats for
/// decoders that start there. Other access units get nothing (no decoder starts at them), or,
/// with ``insertsChangedSets``, only the sets they refer to whose content the output has not
/// carried yet (a decoder already running needs them: a change of MP4 sample description
/// between sync samples). The bytes
/// inserted are bounded twice: at most ``maximumBytesPerAccessUnit`` per access unit, and in
/// all at most the input's bytes (told with ``consume(byteCount:)``) plus
/// ``maximumBytesPerAccessUnit``: a writer that inserts through it never writes more than twice
/// its input plus that constant. A set that does not fit is left out (and counted in
/// ``skippedCount``); a new one is tried again before the next access unit.
///
/// The same bounds pay for the decoder configuration records of writers that carry parameter
/// sets out of band and send a new record when they change (FLV sequence headers, MP4 sample
/// descriptions): ``configurationChange(for:)``.
///
/// A reader that switches between decoder configuration records it holds (the sample
/// descriptions of an MP4 track) gives them as ``OutOfBandSets``, read once: a switch then costs
/// O(1), and a set is taken up only when a picture refers to it, compared by a number per
/// content instead of its bytes, so that the work follows the file, not the switches times the
/// records' size.
///
/// Memory: at most one parameter set per id (32 SPS, 256 PPS, 32 SPS extensions), each at most
/// ``maximumBytesPerAccessUnit``, copied out of the caller's buffers when it is new or changed,
/// so that no access unit or input chunk is kept alive by a parameter set it once held (the
/// sets of ``OutOfBandSets`` are kept as the views they are, with the table in force); the last
/// record's views of them; and two numbers per id.
public struct ParameterSetInserter: Sendable {
    /// The default bound on the bytes inserted before one access unit: 256 KiB, room for an
    /// SPS and a PPS of the largest size an avcC record can hold, many times what real streams
    /// use (tens of bytes).
    public static let defaultMaximumBytesPerAccessUnit = 256 << 10

    /// The bound on the bytes inserted before one access unit.
    public let maximumBytesPerAccessUnit: Int
    /// Insertions (or configuration records) made so far.
    public private(set) var insertedCount = 0
    /// Bytes of the parameter sets inserted (or put into records) so far.
    public private(set) var insertedByteCount = 0
    /// Parameter sets left out because they did not fit the bounds.
    public private(set) var skippedCount = 0
    /// Before access units that are not random access points, also insert the sets they refer
    /// to whose content the output has not carried (in band or inserted) since it changed:
    /// what a decoder that is already running needs when the sets change out of band between
    /// random access points. Off by default.
    public var insertsChangedSets = false

    /// Slots: SPS 0...31, PPS 32...287, SPS extensions 288...319.
    fileprivate static let ppsBase = 32, extensionBase = 288, slotCount = 320
    // The tables hold storage only up to the highest slot stored: a new inserter allocates nothing.
    /// The latest content of each parameter set id (in band or out of band).
    private var known = ParameterSetSlots<NALUnit>()
    /// True when the latest set of the slot was larger than ``maximumBytesPerAccessUnit``: it
    /// can never be inserted, so only its absence is kept (and counted when a picture needs it).
    private var oversized = ParameterSetSlots<Bool>()
    /// The SPS id each PPS refers to (-1 when unreadable), read once when the PPS is learnt.
    private var spsOfPPS = ParameterSetSlots<Int8>()
    /// What may still be inserted in all: input bytes plus one access unit's bound, less what
    /// was inserted. Saturating.
    private var credit: Int
    /// The sets of the last configuration record (``configurationChange(for:)``).
    private var record = ParameterSetSlots<NALUnit>()
    private var recordMade = false
    /// The SPS slot the last record was made for (its first set), -1 when not known.
    private var recordSPS = -1
    /// A number per slot that changes when the slot's content does.
    private var version = ParameterSetSlots<Int>()
    /// The ``version`` of each slot the output last carried (in band, or inserted).
    private var carried = ParameterSetSlots<Int>()
    /// The out-of-band table in force (``receiveOutOfBand(_:countsAsInput:)-(ParameterSetInserter.OutOfBandSets,_)``):
    /// its sets are taken up into ``known`` when a picture refers to them.
    private var table: OutOfBandSets?
    /// Counts the tables received; a slot learnt in band (or from sets given one by one) since
    /// the last table keeps that content, not the table's: `learntAt[slot] == tableCount`.
    private var tableCount = 0
    private var learntAt = ParameterSetSlots<Int>()
    /// The table content number of each slot taken up from a table (nil for other content).
    private var tableContent = ParameterSetSlots<Int>()

    /// Creates an inserter that knows `parameterSets` from out of band.
    /// - Parameters:
    ///   - parameterSets: SPS, PPS and SPS extensions known before the stream (an avcC
    ///     record's); their bytes count as input.
    ///   - maximumBytesPerAccessUnit: the bound on one access unit's insertions (at least 0).
    public init(parameterSets: [NALUnit] = [], maximumBytesPerAccessUnit: Int = ParameterSetInserter.defaultMaximumBytesPerAccessUnit) {
        self.maximumBytesPerAccessUnit = Swift.max(0, maximumBytesPerAccessUnit)
        credit = self.maximumBytesPerAccessUnit
        receiveOutOfBand(parameterSets)
    }

    /// Parameter sets that arrived out of band (a new avcC record or FLV sequence header): they
    /// are the ones in force from now on; a set whose content changed counts as not carried.
    /// - Parameters:
    ///   - parameterSets: the record's SPS, PPS and SPS extensions.
    ///   - countsAsInput: their bytes count as input (true for a record the input carries each
    ///     time, an FLV sequence header); false for one the input holds once and names again
    ///     (an MP4 sample description used again after another), which must not raise the
    ///     bound on what may be inserted each time.
    public mutating func receiveOutOfBand(_ parameterSets: [NALUnit], countsAsInput: Bool = true) {
        for unit in parameterSets {
            if countsAsInput { consume(byteCount: unit.count) }
            guard let slot = Self.slot(of: unit) else { continue }
            learn(unit, slot: slot)
        }
    }

    /// Makes `unit` the content of `slot`, a copy of its bytes (a view would keep a streaming
    /// parser's whole chunk alive), when it differs from what the slot holds. A set larger than
    /// ``maximumBytesPerAccessUnit`` can never be inserted: only its absence is kept.
    private mutating func learn(_ unit: NALUnit, slot: Int) {
        if table != nil { learntAt[slot] = tableCount }
        guard known[slot] != unit else { return }
        let tooLarge = unit.count > maximumBytesPerAccessUnit
        oversized[slot] = tooLarge
        known[slot] = tooLarge ? nil : NALUnit(unchecked: Array(unit.bytes)[...])
        if slot >= Self.ppsBase && slot < Self.extensionBase {
            spsOfPPS[slot &- Self.ppsBase] = unit.referencedParameterSetID.map { Int8($0) } ?? -1  // an SPS id is < 32
        }
        tableContent[slot] = nil
        version[slot] = (version[slot] ?? 0) &+ 1  // one per change
    }

    /// The parameter sets of one decoder configuration record, read once, for readers that switch
    /// between records they hold (``ParameterSetInserter/receiveOutOfBand(_:countsAsInput:)-(ParameterSetInserter.OutOfBandSets,_)``):
    /// each set by id (a view, nothing copied), the SPS each PPS names, and a number per content
    /// shared by every table ``make(records:)`` made together, so that equal sets of two records
    /// are known to be equal without comparing their bytes.
    ///
    /// Memory: a view and two numbers per parameter set.
    public struct OutOfBandSets: Sendable {
        /// The tables made together, whose content numbers compare.
        fileprivate final class Batch: Sendable {}
        fileprivate let batch: Batch
        fileprivate var units = ParameterSetSlots<NALUnit>()
        fileprivate var contents = ParameterSetSlots<Int>()
        fileprivate var spsOfPPS = ParameterSetSlots<Int8>()
        /// The bytes of its parameter sets.
        public private(set) var byteCount = 0

        /// Reads the parameter sets of several records (each in record order: SPS, PPS, SPS
        /// extensions; a later set of the same id replaces an earlier one), one table per record;
        /// sets of equal bytes get the same content number.
        /// - Complexity: O(n) in the records' bytes (each set hashed once).
        public static func make(records: [[NALUnit]]) -> [OutOfBandSets] {
            var numbers: [ArraySlice<UInt8>: Int] = [:]
            let batch = Batch()
            return records.map { sets in
                var table = OutOfBandSets(batch: batch)
                for unit in sets {
                    guard let slot = ParameterSetInserter.slot(of: unit) else { continue }
                    let number: Int
                    if let known = numbers[unit.bytes] { number = known } else {
                        number = numbers.count
                        numbers[unit.bytes] = number
                    }
                    table.units[slot] = unit
                    table.contents[slot] = number
                    table.byteCount &+= unit.count  // the records' bytes
                    if slot >= ParameterSetInserter.ppsBase && slot < ParameterSetInserter.extensionBase {
                        table.spsOfPPS[slot &- ParameterSetInserter.ppsBase] = unit.referencedParameterSetID.map { Int8($0) } ?? -1
                    }
                }
                return table
            }
        }
    }

    /// Makes `table`'s parameter sets the ones in force from now on (O(1)): each is taken up when
    /// a picture first refers to its id, unless a set of that id arrives in band (or through
    /// ``receiveOutOfBand(_:countsAsInput:)-([NALUnit],_)``) before the next table. A set whose
    /// content number is the one the slot holds changes nothing.
    /// - Parameters:
    ///   - table: the record's sets, from ``OutOfBandSets/make(records:)``.
    ///   - countsAsInput: its bytes count as input (true the first time a record is used; false
    ///     when a record the input holds once is used again).
    public mutating func receiveOutOfBand(_ table: OutOfBandSets, countsAsInput: Bool) {
        if countsAsInput { consume(byteCount: table.byteCount) }
        if let current = self.table, current.batch !== table.batch { tableContent = ParameterSetSlots() }  // numbers of other tables
        self.table = table
        tableCount &+= 1  // one per call
    }

    /// Takes up the table's set of `slot` when it is in force for the slot and differs from what
    /// the slot holds: O(1), no byte compared or copied.
    private mutating func takeUp(_ slot: Int) {
        guard let table, learntAt[slot] != tableCount, let number = table.contents[slot], tableContent[slot] != number,
              let unit = table.units[slot] else { return }
        let previous = tableContent[slot]
        tableContent[slot] = number
        // Content learnt in band is compared once (its bytes were input), then known by number;
        // another number of the same tables is other content.
        if previous == nil, let current = known[slot], current == unit { return }
        let tooLarge = unit.count > maximumBytesPerAccessUnit
        oversized[slot] = tooLarge
        known[slot] = tooLarge ? nil : unit
        if slot >= Self.ppsBase && slot < Self.extensionBase { spsOfPPS[slot &- Self.ppsBase] = table.spsOfPPS[slot &- Self.ppsBase] }
        version[slot] = (version[slot] ?? 0) &+ 1  // one per change
    }

    /// Takes up every slot of the table in force (for what looks at every set: records, and a
    /// picture whose references cannot be read).
    private mutating func takeUpAll() {
        guard table != nil else { return }
        for slot in 0..<Self.slotCount { takeUp(slot) }
    }

    /// Counts `byteCount` bytes of input toward what may be inserted.
    public mutating func consume(byteCount: Int) {
        credit = credit > Int.max &- Swift.max(0, byteCount) ? Int.max : credit &+ Swift.max(0, byteCount)
    }

    /// The parameter sets to put in front of `nalUnits` (one access unit, in decoding order):
    /// SPS first, then SPS extensions, then PPS. In-band parameter sets of the access unit are
    /// noted as carried (and as the ones in force), and its bytes count as input.
    /// - Parameters:
    ///   - nalUnits: the access unit.
    ///   - isRandomAccess: the access unit is a random access point (an IDR picture, a
    ///     recovery point, an FLV keyframe): the sets it refers to are repeated for decoders
    ///     that start there.
    /// - Complexity: O(n) in the number of NAL units, reading a few bytes of each slice.
    public mutating func parameterSets(toInsertBefore nalUnits: [NALUnit], isRandomAccess: Bool) -> [NALUnit] {
        var inBand: [Int] = []
        var wanted = referencedSlots(of: nalUnits) { inBand.append($0) }
        for slot in inBand { carried[slot] = version[slot] }
        if wanted.isEmpty && isRandomAccess && nalUnits.contains(where: { $0.type == .slice || $0.type == .idrSlice }) {
            // No slice says which PPS it uses (a header too short to read): every known set, as
            // a writer that does not look at the slices would insert.
            takeUpAll()
            wanted = Self.slotsInOrder.filter { known[$0] != nil }
        }
        guard isRandomAccess || insertsChangedSets else { return [] }
        var room = Swift.min(maximumBytesPerAccessUnit, credit)
        var insert: [NALUnit] = []
        for slot in wanted where !inBand.contains(slot) {
            // Not a random access point: only what the output has not carried since it changed.
            if !isRandomAccess && carried[slot] != nil && carried[slot] == version[slot] { continue }
            guard let unit = known[slot] else {
                if oversized[slot] == true { skippedCount &+= 1 }
                continue
            }
            guard unit.count <= room else {
                skippedCount &+= 1  // at most one per slot and access unit
                continue
            }
            room &-= unit.count
            spend(unit.count)
            insert.append(unit)
            carried[slot] = version[slot]
        }
        return insert
    }

    /// For writers that carry the parameter sets in a decoder configuration record sent again
    /// when it changes (FLV sequence headers, RTMP, MP4 sample descriptions): the parameter sets
    /// of a new record when `nalUnits` (one access unit) refers to a parameter set whose content
    /// the last record did not carry, or is an IDR picture on another SPS than the one the last
    /// record was made for (its first: the picture size, profile and level the container
    /// describes); nil while the last record holds.
    ///
    /// The record holds the SPS (with its extension) and PPS the picture refers to, first; then,
    /// as far as they fit (in bytes, below; in what an avcC record holds: 31 SPS, 255 PPS, 64 KiB
    /// each), the sets of the last record that have not changed, then the other sets known. So
    /// the parameter sets of an ordinary stream travel together in one record (a stream that
    /// switches between PPS ids it defined gets no record per switch), a new record is made only
    /// when a picture uses a set that is new or changed or an IDR picture activates another SPS,
    /// and a record's size is bounded whatever
    /// the stream defines. Before the first record, when the picture's references cannot be read,
    /// the record is every set known. In-band parameter sets of the access unit become the ones
    /// in force (the writer moves them out of band). Records are paid from the same bounds as
    /// insertions (``maximumBytesPerAccessUnit``, and the input's bytes): when the picture's own
    /// sets do not fit, no record is made, and they are counted in ``skippedCount``.
    /// - Complexity: O(n) in the number of NAL units, reading a few bytes of each slice, plus
    ///   O(320) when a record is made.
    public mutating func configurationChange(for nalUnits: [NALUnit]) -> [NALUnit]? {
        takeUpAll()  // a record may hold every set known (nothing without a table)
        let slots = referencedSlots(of: nalUnits) { _ in }
        let firstRecordOfUnknownReferences = slots.isEmpty && !recordMade
        let activeSPS = slots.first { $0 < Self.ppsBase }
        // Another SPS becomes active only at an IDR picture (7.4.1.2.1).
        let otherSPS = recordMade && activeSPS != nil && activeSPS != recordSPS && nalUnits.contains { $0.type == .idrSlice }
        guard firstRecordOfUnknownReferences || otherSPS
                || slots.contains(where: { oversized[$0] == true || (known[$0] != nil && record[$0] != known[$0]) }) else {
            return nil
        }
        if slots.contains(where: { oversized[$0] == true }) {  // a record without the picture's own set is no use
            skippedCount &+= slots.count
            return nil
        }
        guard !known.isEmpty else { return nil }
        let room = Swift.min(maximumBytesPerAccessUnit, credit)
        var chosen = [Bool](repeating: false, count: Self.slotCount)
        var units: [NALUnit] = []
        var bytes = 0  // at most 320 sets of at most the input's size each: cannot overflow
        var spsCount = 0, ppsCount = 0
        func take(_ slot: Int, _ unit: NALUnit) {
            chosen[slot] = true
            units.append(unit)
            bytes &+= unit.count
            if slot < Self.ppsBase { spsCount &+= 1 } else if slot < Self.extensionBase { ppsCount &+= 1 }
        }
        for slot in slots where !chosen[slot] {
            if let unit = known[slot] { take(slot, unit) }
        }
        guard bytes <= room else {
            skippedCount &+= units.count
            return nil
        }
        // The rest, as far as it fits: first what the last record carried and still holds.
        func offer(_ slot: Int, _ unit: NALUnit) {
            guard !chosen[slot], unit.count <= 0xFFFF, unit.count <= room &- bytes else { return }
            if slot < Self.ppsBase ? spsCount >= 31 : (slot < Self.extensionBase && ppsCount >= 255) { return }
            take(slot, unit)
        }
        for slot in Self.slotsInOrder {
            if let unit = record[slot], unit == known[slot] { offer(slot, unit) }
        }
        for slot in Self.slotsInOrder {
            if let unit = known[slot] { offer(slot, unit) }
        }
        spend(bytes)
        record = ParameterSetSlots()
        for (slot, isChosen) in chosen.enumerated() where isChosen { record[slot] = known[slot] }
        recordMade = true
        if let activeSPS { recordSPS = activeSPS }
        return units
    }

    /// The slots `nalUnits` refers to, SPS (and extension) before PPS; in-band parameter sets
    /// become known (and are passed to `inBand`), and the access unit's bytes count as input.
    private mutating func referencedSlots(of nalUnits: [NALUnit], inBand: (Int) -> Void) -> [Int] {
        var ppsIDs: [Int] = []
        for unit in nalUnits {
            consume(byteCount: unit.count)
            switch unit.type {
            case .sps, .pps, .spsExtension:
                guard let slot = Self.slot(of: unit) else { continue }
                learn(unit, slot: slot)
                inBand(slot)
            case .slice, .idrSlice:
                if let id = unit.referencedParameterSetID, !ppsIDs.contains(id) { ppsIDs.append(id) }
            default:
                break
            }
        }
        var wanted: [Int] = []
        var ppsSlots: [Int] = []
        for id in ppsIDs {
            let ppsSlot = Self.ppsBase &+ id  // id < 256
            takeUp(ppsSlot)
            guard known[ppsSlot] != nil || oversized[ppsSlot] == true else { continue }
            ppsSlots.append(ppsSlot)
            let spsID = Int(spsOfPPS[id] ?? -1)
            guard spsID >= 0 else { continue }
            for slot in [spsID, Self.extensionBase &+ spsID] {
                takeUp(slot)  // spsID < 32
                if (known[slot] != nil || oversized[slot] == true) && !wanted.contains(slot) { wanted.append(slot) }
            }
        }
        return wanted + ppsSlots
    }

    private mutating func spend(_ bytes: Int) {
        credit &-= bytes  // bytes <= credit, checked by the callers
        insertedCount &+= 1
        insertedByteCount &+= bytes  // bounded by the input's bytes
    }

    /// `nalUnits` with ``parameterSets(toInsertBefore:isRandomAccess:)`` inserted where they
    /// belong: after the access unit delimiter and the parameter sets that open the access unit,
    /// before anything else (an SEI, whose buffering_period may name the SPS, and the slices).
    public mutating func inserting(into nalUnits: [NALUnit], isRandomAccess: Bool) -> [NALUnit] {
        let sets = parameterSets(toInsertBefore: nalUnits, isRandomAccess: isRandomAccess)
        guard !sets.isEmpty else { return nalUnits }
        var out = nalUnits
        out.insert(contentsOf: sets, at: Self.insertionIndex(in: nalUnits))
        return out
    }

    /// Where inserted parameter sets go in an access unit: after a leading access unit
    /// delimiter and parameter sets, before the first other NAL unit.
    public static func insertionIndex(in nalUnits: [NALUnit]) -> Int {
        nalUnits.firstIndex { !($0.type == .accessUnitDelimiter || $0.type.isParameterSet || $0.type == .spsExtension) } ?? nalUnits.count
    }

    /// Every slot in insertion order: SPS, then SPS extensions, then PPS.
    private static let slotsInOrder = Array(0..<ppsBase) + Array(extensionBase..<slotCount) + Array(ppsBase..<extensionBase)

    /// The slot of an SPS, PPS or SPS extension, nil for other NAL units or an unreadable id.
    fileprivate static func slot(of unit: NALUnit) -> Int? {
        switch unit.type {
        case .sps:
            guard let id = unit.parameterSetID, id < 32 else { return nil }
            return id
        case .pps:
            guard let id = unit.parameterSetID, id < 256 else { return nil }
            return ppsBase &+ id
        case .spsExtension:
            // seq_parameter_set_id is the extension's first element.
            var reader = BitReader(EmulationPrevention.rbsp(from: unit.payload.prefix(8)))
            guard let id = try? reader.readUE(), id < 32 else { return nil }
            return extensionBase &+ Int(id)
        default:
            return nil
        }
    }
}
