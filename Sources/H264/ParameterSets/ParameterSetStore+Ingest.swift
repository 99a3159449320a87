extension ParameterSetStore {
    /// Parses `nal` if it is an SPS (7), PPS (8) or subset SPS (15) and stores it; other
    /// NAL unit types are ignored. SPS and PPS are parsed with ``parseMode``; what a lenient
    /// mode recovered from is added to ``warnings``.
    ///
    /// An SPS or PPS with the same payload bytes as the one stored under its id (when nothing
    /// it depends on changed since) is not parsed again: the stored value is the one parsing
    /// would give.
    /// - Returns: true when a parameter set was stored.
    /// - Throws: the parsing error of a malformed parameter set (the store is unchanged).
    /// - Complexity: O(n) in the NAL unit's size; no allocation for a repeated SPS or PPS.
    @discardableResult
    public mutating func ingest(_ nal: NALUnit) throws(H264Error) -> Bool {
        try ingestNoting(nal) != .ignored
    }

    /// What ``ingestNoting(_:)`` did with a NAL unit.
    enum Ingested: Equatable {
        /// Not a parameter set.
        case ignored
        /// Parsed and stored.
        case stored
        /// The same bytes as the SPS or PPS already stored under its id: nothing changed.
        case repeated
    }

    /// ``ingest(_:)``, telling a repeated SPS or PPS apart from one that was parsed.
    mutating func ingestNoting(_ nal: NALUnit) throws(H264Error) -> Ingested {
        let type = nal.type
        switch type {
        case .sps, .pps:
            let slots = type == .sps ? 0..<ParameterSetPayloads.ppsBase : ParameterSetPayloads.ppsBase..<ParameterSetPayloads.slotCount
            if receivedPayloads.contains(nal.payload, in: slots) { return .repeated }
            var found: [ParseWarning] = []
            let slot: Int
            if type == .sps {
                let sps = try SequenceParameterSet(rbsp: nal.rbsp, mode: parseMode, warnings: &found)
                slot = Int(sps.id & 31)
                insert(sps)
            } else {
                // The SPS table alone as the context (a PPS reads only the SPS it names): one
                // retain, where the whole store would be copied into the parse's closures.
                let pps = try PictureParameterSet(rbsp: nal.rbsp, context: spsLookup, mode: parseMode, warnings: &found)
                slot = ParameterSetPayloads.ppsBase &+ Int(pps.id)  // id <= 255
                insert(pps)
            }
            if found.isEmpty {
                receivedPayloads.remember(nal.payload, slot: slot)
            } else {
                record(found)  // not kept: a repeat is parsed again and warns again
            }
        case .subsetSPS:
            insert(try SubsetSequenceParameterSet(rbsp: nal.rbsp))
        default:
            return .ignored
        }
        return .stored
    }
}
