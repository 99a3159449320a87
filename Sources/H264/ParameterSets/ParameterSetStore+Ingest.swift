extension ParameterSetStore {
    /// Parses `nal` if it is an SPS (7), PPS (8) or subset SPS (15) and stores it; other
    /// NAL unit types are ignored. SPS and PPS are parsed with ``parseMode``; what a lenient
    /// mode recovered from is added to ``warnings``.
    /// - Returns: true when a parameter set was stored.
    /// - Throws: the parsing error of a malformed parameter set (the store is unchanged).
    @discardableResult
    public mutating func ingest(_ nal: NALUnit) throws(H264Error) -> Bool {
        switch nal.type {
        case .sps:
            var found: [ParseWarning] = []
            insert(try SequenceParameterSet(rbsp: nal.rbsp, mode: parseMode, warnings: &found))
            record(found)
        case .pps:
            var found: [ParseWarning] = []
            insert(try PictureParameterSet(rbsp: nal.rbsp, context: self, mode: parseMode, warnings: &found))
            record(found)
        case .subsetSPS:
            insert(try SubsetSequenceParameterSet(rbsp: nal.rbsp))
        default:
            return false
        }
        return true
    }
}
