extension ParameterSetStore {
    /// Parses `nal` if it is an SPS (7), PPS (8) or subset SPS (15) and stores it; other
    /// NAL unit types are ignored. SPS and PPS are parsed with ``parseMode``; what a lenient
    /// mode recovered from is added to ``warnings``.
    ///
    /// An SPS, PPS or subset SPS with the same payload bytes as the one stored under its id
    /// (when nothing it depends on changed since) is not parsed again: the stored value is the
    /// one parsing would give. Nor is one with the bytes of an earlier version the store kept (for a PPS,
    /// parsed against the SPS now stored under the id it names): that version is stored again.
    /// - Returns: true when a parameter set was stored.
    /// - Throws: the parsing error of a malformed parameter set (the store is unchanged).
    /// - Complexity: O(n) in the NAL unit's size; no allocation for a repeated SPS, PPS or subset SPS, nor
    ///   for one restored from an earlier version (O(288) hash comparisons to find it).
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
        /// Stored from an earlier version with the same bytes (not parsed).
        case restored
        /// The same bytes as the SPS or PPS already stored under its id: nothing changed.
        case repeated
    }

    /// The SPS or PPS that ``ingestNoting(_:)`` just stored from `nal`, when the store keeps it
    /// as a version: its id and a NAL unit with `nal`'s bytes over storage the store keeps (a
    /// reader that holds on to the unit needs no copy).
    func keptUnit(matching nal: NALUnit) -> (id: Int, unit: NALUnit)? {
        versions.unit(matching: nal)
    }

    /// ``ingest(_:)``, telling a repeated or restored SPS or PPS apart from one that was parsed.
    mutating func ingestNoting(_ nal: NALUnit) throws(H264Error) -> Ingested {
        let type = nal.type
        switch type {
        case .sps, .pps:
            let slots = type == .sps ? 0..<ParameterSetPayloads.ppsBase : ParameterSetPayloads.ppsBase..<ParameterSetPayloads.slotCount
            if receivedPayloads.contains(nal.payload, in: slots) { return .repeated }
            let isSPS = type == .sps
            if let kept = versions.find(payload: nal.payload, isSPS: isSPS, generations: spsGenerations) {
                // Parsed without warnings before, from these bytes (a PPS: against this SPS).
                switch kept.parsed {
                case .sps(let sps):
                    let slot = Int(sps.id & 31)
                    insert(sps, generation: kept.spsGeneration)
                    receivedPayloads.remember(nal.payload, slot: slot)
                case .pps(let pps):
                    let slot = ParameterSetPayloads.ppsBase &+ Int(pps.id)  // id <= 255
                    insert(pps)
                    receivedPayloads.remember(nal.payload, slot: slot)
                }
                return .restored
            }
            var found: [ParseWarning] = []
            if isSPS {
                let sps = try SequenceParameterSet(rbsp: nal.rbsp, mode: parseMode, warnings: &found)
                let slot = Int(sps.id & 31)
                let generation = nextSPSGeneration()
                if found.isEmpty, keepsVersions(replacing: spsStorage(slot) != nil) {
                    versions.add(header: nal.headerByte, payload: nal.payload, parsed: .sps(sps), spsGeneration: generation)
                }
                insert(sps, generation: generation)
                if found.isEmpty { receivedPayloads.remember(nal.payload, slot: slot) }
            } else {
                // The SPS table alone as the context (a PPS reads only the SPS it names): one
                // retain, where the whole store would be copied into the parse's closures.
                let pps = try PictureParameterSet(rbsp: nal.rbsp, context: spsLookup, mode: parseMode, warnings: &found)
                let slot = ParameterSetPayloads.ppsBase &+ Int(pps.id)  // id <= 255
                if found.isEmpty, keepsVersions(replacing: self.pps(id: Int(pps.id)) != nil) {
                    versions.add(header: nal.headerByte, payload: nal.payload, parsed: .pps(pps),
                                 spsGeneration: spsGeneration(Int(pps.spsID)))
                }
                insert(pps)
                if found.isEmpty { receivedPayloads.remember(nal.payload, slot: slot) }
            }
            record(found)  // a set that warned is not kept: it is parsed, and warns, every time
        case .subsetSPS:
            // A subset SPS repeats as SPS do (an MVC stream sends it before every IDR picture).
            if receivedSubsetPayloads.contains(nal.payload, in: 0..<ParameterSetPayloads.ppsBase) { return .repeated }
            let subset = try SubsetSequenceParameterSet(rbsp: nal.rbsp)
            let slot = Int(subset.sps.id & 31)
            insert(subset)
            receivedSubsetPayloads.remember(nal.payload, slot: slot)
        default:
            return .ignored
        }
        return .stored
    }

    /// Whether a set just parsed (without warnings) is kept as a version: always once the store
    /// keeps versions; otherwise only when it `replaces` a set stored under its id (the
    /// stream's first change), after keeping a version of each set whose bytes the store
    /// remembers (the sets in force, which a later change may switch back to). A stream that
    /// never changes its sets keeps no version and pays nothing for them.
    mutating func keepsVersions(replacing replaces: Bool) -> Bool {
        guard versions.isEmpty else { return true }
        guard replaces else { return false }
        // Remembered bytes are those the stored set was parsed from (a PPS's, against the SPS
        // now stored under the id it names: they are forgotten when that SPS is replaced).
        // Their header byte is not kept: nal_ref_idc 3, as streams send parameter sets.
        let remembered = receivedPayloads
        remembered.forEachPayload { slot, payload in
            if slot < ParameterSetPayloads.ppsBase {
                guard let sps = spsStorage(slot) else { return }
                versions.add(header: 0x67, payload: payload, parsed: .sps(sps), spsGeneration: spsGeneration(slot))
            } else {
                guard let pps = self.pps(id: slot &- ParameterSetPayloads.ppsBase) else { return }
                versions.add(header: 0x68, payload: payload, parsed: .pps(pps), spsGeneration: spsGeneration(Int(pps.spsID)))
            }
        }
        return true
    }
}
