/// A change of parameter sets mid-stream (a new resolution or profile): the parameter sets that
/// changed, and the ones in force after the change.
///
/// Format changes share their storage: each holds the parameter sets that changed since the one
/// before, over a chain that ends in a full table at most ``FormatChange/maximumChainLength``
/// changes back. A stream that changes its SPS before every picture costs a few NAL unit views
/// per access unit, never a copy of all its parameter sets.
public struct FormatChange: Sendable {
    /// How many format changes a chain holds before the next one starts a new full table.
    public static let maximumChainLength = 64

    let node: ParameterSetHistory

    init(node: ParameterSetHistory) { self.node = node }

    /// The SPS and PPS NAL units that are new or whose content changed since the previous format
    /// change (or the start of the stream), in id order, SPS first.
    public var changedParameterSets: [NALUnit] { node.changed.map(\.unit) }

    /// The SPS NAL units in force after the change (one per id, in id order).
    /// - Complexity: O(``maximumChainLength`` + 288): the chain is read back to its table.
    public var sequenceParameterSets: [NALUnit] { node.table()[0..<ParameterSetHistory.ppsBase].compactMap { $0 } }

    /// The PPS NAL units in force after the change (one per id, in id order).
    /// - Complexity: as ``sequenceParameterSets``.
    public var pictureParameterSets: [NALUnit] { node.table()[ParameterSetHistory.ppsBase...].compactMap { $0 } }

    /// The new decoder configuration record (avcC) with 4-byte NAL lengths, or nil when the
    /// parameter sets cannot make one.
    public var decoderConfiguration: AVCDecoderConfigurationRecord? {
        let table = node.table()
        return try? AVCDecoderConfigurationRecord(parameterSets: table.compactMap { $0 })
    }
}

/// One link of the chain behind ``FormatChange``: the parameter sets that changed, over the
/// link before, or a full table (slots: SPS 0...31, then PPS 0...255).
final class ParameterSetHistory: Sendable {
    static let ppsBase = 32
    static let slotCount = 288

    /// The slots that changed, in slot order, with their new NAL units.
    let changed: [(slot: Int, unit: NALUnit)]
    /// The link before (nil for a full table).
    let previous: ParameterSetHistory?
    /// The full table, for a link that starts a chain.
    let full: [NALUnit?]?
    /// Links back to the full table (0 for a full table).
    let depth: Int

    private init(changed: [(slot: Int, unit: NALUnit)], previous: ParameterSetHistory?, full: [NALUnit?]?, depth: Int) {
        self.changed = changed
        self.previous = previous
        self.full = full
        self.depth = depth
    }

    /// The link after `previous` for the changes in `changed` (slot order); `current` makes
    /// the whole table now in force (``slotCount`` slots), called only when the chain is long
    /// enough to start again.
    static func next(after previous: ParameterSetHistory?, changed: [(slot: Int, unit: NALUnit)],
                     current: () -> [NALUnit?]) -> ParameterSetHistory {
        if let previous, previous.depth < FormatChange.maximumChainLength {
            return ParameterSetHistory(changed: changed, previous: previous, full: nil, depth: previous.depth &+ 1)  // < 64
        }
        return ParameterSetHistory(changed: changed, previous: nil, full: current(), depth: 0)
    }

    /// The whole table in force at this link.
    func table() -> [NALUnit?] {
        var links: [ParameterSetHistory] = []
        var node: ParameterSetHistory? = self
        while let n = node {
            links.append(n)
            if n.full != nil { break }
            node = n.previous
        }
        var table = links.last?.full ?? Array(repeating: nil, count: Self.slotCount)
        for link in links.reversed() where link.full == nil {
            for (slot, unit) in link.changed { table[slot] = unit }
        }
        return table
    }
}
