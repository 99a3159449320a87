/// Partial readers: the first elements of a parameter set or slice header, read without a
/// context from a NAL unit's first bytes through the structures' own descriptions (their
/// `codeLeadingElements`), so that nothing is transcribed twice.
extension NALUnit {
    /// `seq_parameter_set_id` of an SPS or subset SPS (after `profile_idc`, the constraint flags
    /// and `level_idc`), or `pic_parameter_set_id` of a PPS (its first element); nil for other
    /// NAL units or when the id (or, for a PPS, the `seq_parameter_set_id` after it) cannot be
    /// read. Reads a few bytes only.
    public var parameterSetID: Int? {
        let t = type
        guard t == .pps || t == .sps || t == .subsetSPS else { return nil }
        return try? EmulationPrevention.rbsp(from: payload.prefix(16)).withUnsafeSyntaxReader {
            (reader: inout UnsafeSyntaxReader) throws(H264Error) -> Int in
            if t == .pps {
                var pps = PictureParameterSet()
                try pps.codeLeadingElements(&reader)
                return Int(pps.id)
            }
            var sps = SequenceParameterSet()
            try sps.codeLeadingElements(&reader)
            return Int(sps.id)
        }
    }

    /// The id of the parameter set this NAL unit refers to: for a slice (types 1 and 5) its
    /// `pic_parameter_set_id`, for a PPS its `seq_parameter_set_id`; nil for other NAL units or
    /// when the id cannot be read. Reads the first bytes only (a slice header's first three
    /// Exp-Golomb codes), so a muxer can follow which SPS and PPS a picture uses without
    /// parsing it.
    public var referencedParameterSetID: Int? {
        let t = type
        if t == .pps {
            return try? EmulationPrevention.rbsp(from: payload.prefix(16)).withUnsafeSyntaxReader {
                (reader: inout UnsafeSyntaxReader) throws(H264Error) -> Int in
                var pps = PictureParameterSet()
                try pps.codeLeadingElements(&reader)
                return Int(pps.spsID)
            }
        }
        guard t == .slice || t == .idrSlice else { return nil }
        return sliceHeaderLeadingElements().ppsID.map(Int.init)
    }

    /// `first_mb_in_slice`, `slice_type` and `pic_parameter_set_id` of a slice NAL unit (types
    /// 1, 5 and MVC 20), read from its first bytes; each nil when it, or an element before it,
    /// cannot be read (all nil for other NAL units).
    /// - Complexity: O(1): at most ``SliceHeader/headerPrefixBytes`` bytes are read.
    public func sliceHeaderLeadingElements() -> (firstMbInSlice: UInt32?, sliceType: SliceType?, ppsID: UInt8?) {
        // Three Exp-Golomb codes of at most 63 bits each, escaped: 32 bytes cover them.
        let (header, progress) = EmulationPrevention.rbsp(from: payload.prefix(SliceHeader.headerPrefixBytes)).withUnsafeBytes {
            var reader = UnsafeSyntaxReader($0)
            var header = SliceHeader(nalUnitHeader: NALUnitHeader(self))
            var progress = 0
            _ = try? header.codeLeadingElements(&reader, progress: &progress)
            return (header, progress)
        }
        return (progress >= 1 ? header.firstMbInSlice : nil, progress >= 2 ? header.sliceType : nil,
                progress >= 3 ? header.ppsID : nil)
    }
}
