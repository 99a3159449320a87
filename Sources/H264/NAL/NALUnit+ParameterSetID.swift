extension NALUnit {
    /// `seq_parameter_set_id` of an SPS or subset SPS (after `profile_idc`, the constraint flags
    /// and `level_idc`), or `pic_parameter_set_id` of a PPS (its first element); nil for other
    /// NAL units or when the id cannot be read. Reads a few bytes only.
    public var parameterSetID: Int? {
        let t = type
        guard t == .sps || t == .pps || t == .subsetSPS else { return nil }
        var reader = BitReader(EmulationPrevention.rbsp(from: payload.prefix(16)))
        if t != .pps {
            guard (try? reader.skipBits(24)) != nil else { return nil }
        }
        guard let id = try? reader.readUE(), id < 256 else { return nil }
        return Int(id)
    }
}
