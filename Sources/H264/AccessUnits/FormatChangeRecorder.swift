/// Makes the assembler's ``FormatChange`` records, reusing the storage of those handed back
/// that nothing else holds: a long-lived parser read with ``AccessUnitParser/next(into:)``
/// allocates nothing per format change once a few records and tables exist, however often the
/// stream changes its SPS.
///
/// Each record holds the table the recorder made last (shared, counted, never copied) and the
/// slots changed since; a new table is made after ``FormatChange/maximumChainLength`` records
/// or when more than ``FormatChangeRecord/overrideLimit`` slots changed since the last one. A
/// new table is written over the storage of the table before the last when nothing holds that
/// any more (the records made on it all came back or were dropped), else over new storage.
///
/// Memory: the table in force and at most one former table (288 NAL-unit views each), and at
/// most ``spareLimit`` emptied records (each with room for at most 16 views).
struct FormatChangeRecorder: Sendable {
    /// The most emptied records kept for the next format changes.
    static let spareLimit = 4

    /// The table the next records share: the sets in force when it was made.
    private var table: [NALUnit?] = []
    private var hasTable = false
    /// Records made on `table`.
    private var recordsOnTable = 0
    /// The slots changed since `table` was made, in slot order, with their NAL units.
    private var overrides: [FormatChangeRecord.Override] = []
    /// Records handed back that nothing else held, emptied.
    private var spares: [FormatChangeRecord] = []
    /// The table made before `table`, until it is written over by the next one (emptied as soon
    /// as nothing else holds it).
    private var formerTable: [NALUnit?] = []

    /// The format change whose changed slots are `changedSlots` (in increasing order), with
    /// `sets` the sets in force now.
    mutating func record(changedSlots: [Int], in sets: ParameterSetSlots<NALUnit>) -> FormatChange {
        var changed = SlotSet()
        for slot in changedSlots {
            guard let unit = sets[slot] else { continue }
            changed.insert(slot)
            override(slot, with: unit)
        }
        if !hasTable || recordsOnTable >= FormatChange.maximumChainLength
            || overrides.count > FormatChangeRecord.overrideLimit {
            makeTable(from: sets)
        }
        recordsOnTable &+= 1  // < 64: reset by makeTable
        // A spare is held here alone (tested when it came back): written in place.
        let record = spares.popLast() ?? FormatChangeRecord()
        record.table = table
        record.overrides.append(contentsOf: overrides)  // emptied when it came back
        record.changed = changed
        return FormatChange(record: record)
    }

    /// Takes back the format change of an access unit the caller is done with: its record is
    /// kept for reuse when nothing else holds it (a copy the caller keeps stays intact).
    /// `change` is left nil.
    mutating func takeBack(_ change: inout FormatChange?) {
        guard var record = change.take()?.record else { return }
        guard isKnownUniquelyReferenced(&record) else { return }
        record.table = []
        record.overrides.removeAllKeepingCapacity()
        record.changed = SlotSet()
        if spares.count < Self.spareLimit { spares.append(record) }
        if !formerTable.isEmpty && HandedOutBuffers.isUnique(&formerTable) {
            formerTable.removeAllKeepingCapacity()  // its records are all gone: no view kept
        }
    }

    /// Records `unit` as the NAL unit in `slot`, over `table`.
    private mutating func override(_ slot: Int, with unit: NALUnit) {
        var i = 0
        while i < overrides.count && overrides[i].slot < slot { i &+= 1 }
        if i < overrides.count && overrides[i].slot == slot {
            overrides[i].unit = unit
        } else {
            overrides.insert(FormatChangeRecord.Override(slot: slot, unit: unit), at: i)  // at most 289
        }
    }

    /// Makes the table of the sets in force `sets`, in the storage of the table before the last
    /// when nothing else holds it.
    private mutating func makeTable(from sets: ParameterSetSlots<NALUnit>) {
        overrides.removeAllKeepingCapacity()
        recordsOnTable = 0
        hasTable = true
        if !HandedOutBuffers.isUnique(&table) { swap(&table, &formerTable) }
        table.removeAll(keepingCapacity: true)  // new storage only when `table` is still shared
        table.append(contentsOf: sets.slots)
    }
}
