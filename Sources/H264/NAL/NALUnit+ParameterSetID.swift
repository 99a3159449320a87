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

extension NALUnit {
    /// The id of the parameter set this NAL unit refers to: for a slice (types 1 and 5) its
    /// `pic_parameter_set_id`, for a PPS its `seq_parameter_set_id`; nil for other NAL units or
    /// when the id cannot be read. Reads the first bytes only (a slice header's first three
    /// Exp-Golomb codes), so a muxer can follow which SPS and PPS a picture uses without
    /// parsing it.
    public var referencedParameterSetID: Int? {
        let t = type
        guard t == .slice || t == .idrSlice || t == .pps else { return nil }
        // Three Exp-Golomb codes of at most 63 bits each, escaped: 32 bytes cover them.
        var reader = BitReader(EmulationPrevention.rbsp(from: payload.prefix(32)))
        guard let first = try? reader.readUE() else { return nil }  // first_mb_in_slice, or pic_parameter_set_id
        if t == .pps {
            guard let sps = try? reader.readUE(), sps < 32 else { return nil }
            _ = first
            return Int(sps)
        }
        guard (try? reader.readUE()) != nil, let pps = try? reader.readUE(), pps < 256 else { return nil }  // slice_type, pic_parameter_set_id
        return Int(pps)
    }
}
