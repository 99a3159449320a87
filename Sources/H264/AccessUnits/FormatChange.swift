/// A change of parameter sets mid-stream (a new resolution or profile): the parameter sets that
/// changed, and the ones in force after the change.
///
/// Format changes share their storage: each holds a table of the parameter sets in force that
/// it shares with the other format changes made on it (at most ``maximumChainLength``), and the
/// few sets changed since that table was made. A stream that changes its SPS before every
/// picture costs a few NAL unit views per access unit, never a copy of all its parameter sets;
/// an ``AccessUnitParser`` read with ``AccessUnitParser/next(into:)`` reuses the storage of the
/// format changes handed back to it that nothing else holds any more.
///
/// Memory: one table of at most 288 NAL-unit views shared with other format changes, plus at
/// most 16 views of its own (the parameter sets are the stream's, copied once each).
public struct FormatChange: Sendable {
    /// How many format changes share one table of the parameter sets in force, at most, before
    /// the next one makes a new table.
    public static let maximumChainLength = 64

    var record: FormatChangeRecord

    init(record: FormatChangeRecord) { self.record = record }

    /// The SPS and PPS NAL units that are new or whose content changed since the previous format
    /// change (or the start of the stream), in id order, SPS first.
    /// - Complexity: O(288 + 16).
    public var changedParameterSets: [NALUnit] {
        var units: [NALUnit] = []
        record.changed.forEach { slot in
            if let unit = record.unit(at: slot) { units.append(unit) }
        }
        return units
    }

    /// The SPS NAL units in force after the change (one per id, in id order).
    /// - Complexity: O(288 + 16).
    public var sequenceParameterSets: [NALUnit] {
        record.inForce()[0..<FormatChangeRecord.ppsBase].compactMap { $0 }
    }

    /// The PPS NAL units in force after the change (one per id, in id order).
    /// - Complexity: as ``sequenceParameterSets``.
    public var pictureParameterSets: [NALUnit] {
        record.inForce()[FormatChangeRecord.ppsBase...].compactMap { $0 }
    }

    /// The new decoder configuration record (avcC) with 4-byte NAL lengths, or nil when the
    /// parameter sets cannot make one.
    public var decoderConfiguration: AVCDecoderConfigurationRecord? {
        try? AVCDecoderConfigurationRecord(parameterSets: record.inForce().compactMap { $0 })
    }
}

/// The storage behind one ``FormatChange`` (slots: SPS 0...31, then PPS 0...255): a table of the
/// sets in force shared with other records, the sets changed since that table was made, and the
/// slots this change changed.
///
/// Its properties change only while ``FormatChangeRecorder`` holds the one reference to it
/// (tested with `isKnownUniquelyReferenced`, so no other thread can see it): a record handed
/// out is never written while anything else holds it.
final class FormatChangeRecord: @unchecked Sendable {
    static let ppsBase = 32
    static let slotCount = 288
    /// The most sets a record holds besides its table: one more starts a new table.
    static let overrideLimit = 16

    /// One slot changed since the table was made, with its NAL unit in force.
    struct Override: Sendable {
        var slot: Int
        var unit: NALUnit
    }

    /// The sets in force when the table was made, by slot (up to the highest slot then used).
    var table: [NALUnit?] = []
    /// The slots changed since, in slot order (at most ``overrideLimit``).
    var overrides: [Override] = []
    /// The slots this format change changed.
    var changed = SlotSet()

    /// The NAL unit in force in `slot`, if any.
    func unit(at slot: Int) -> NALUnit? {
        for o in overrides where o.slot == slot { return o.unit }
        return slot < table.count ? table[slot] : nil
    }

    /// The whole table in force (``slotCount`` slots).
    func inForce() -> [NALUnit?] {
        var all = table
        if all.count < Self.slotCount {
            all.append(contentsOf: repeatElement(nil, count: Self.slotCount &- all.count))  // table.count <= 288
        }
        for o in overrides { all[o.slot] = o.unit }  // slot < 288: the recorder's
        return all
    }
}

/// A set of the 288 parameter-set slots, held inline (no storage of its own).
struct SlotSet: Sendable {
    private var w0: UInt64 = 0
    private var w1: UInt64 = 0
    private var w2: UInt64 = 0
    private var w3: UInt64 = 0
    private var w4: UInt64 = 0

    /// Adds `slot` (0..<320; others are ignored).
    mutating func insert(_ slot: Int) {
        let bit = UInt64(1) << UInt64(slot & 63)
        switch slot >> 6 {
        case 0: w0 |= bit
        case 1: w1 |= bit
        case 2: w2 |= bit
        case 3: w3 |= bit
        case 4: w4 |= bit
        default: break
        }
    }

    /// Calls `body` with each slot in the set, in increasing order.
    func forEach(_ body: (Int) -> Void) {
        for i in 0..<5 {
            var w = word(i)
            while w != 0 {
                body(i &<< 6 | w.trailingZeroBitCount)
                w &= w &- 1
            }
        }
    }

    private func word(_ i: Int) -> UInt64 {
        switch i {
        case 0: w0
        case 1: w1
        case 2: w2
        case 3: w3
        default: w4
        }
    }
}
