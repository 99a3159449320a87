extension AnnexB {
    /// Appends one access unit as Annex-B (4-byte start codes), with the parameter sets of an
    /// avcC record put in when a decoder starting at this access unit needs them: an access
    /// unit that holds an IDR slice (or any access unit, with `startsDecoding`) but no PPS in
    /// band gets the record's PPSs, and its SPSs and SPS extensions too when it has no SPS
    /// either. They go first, after an access unit delimiter and before any SEI (FFmpeg's
    /// `h264_mp4toannexb` puts them right before the slice, after the SEI, which leaves a
    /// buffering-period SEI referring to an SPS not yet seen).
    /// - Parameters:
    ///   - units: the access unit's NAL units in decoding order.
    ///   - configuration: the record in force (the sample description's avcC).
    ///   - startsDecoding: true for the first access unit a reader sees after a description
    ///     change, or a random access point that is not IDR (open GOP, recovery point).
    ///   - out: where the bytes go.
    /// - Complexity: O(size of the access unit and the record).
    public static func appendAccessUnit(_ units: [NALUnit], parameterSetsFrom configuration: AVCDecoderConfigurationRecord,
                                        startsDecoding: Bool = false, to out: inout [UInt8]) {
        var hasIDR = false, hasSPS = false, hasPPS = false
        for unit in units {
            switch unit.type {
            case .idrSlice: hasIDR = true
            case .sps: hasSPS = true
            case .pps: hasPPS = true
            default: break
            }
        }
        var insert: [NALUnit] = []
        if (hasIDR || startsDecoding) && !hasPPS {
            insert = configuration.pictureParameterSets
            if !hasSPS {
                insert = configuration.sequenceParameterSets
                    + (configuration.highProfileExtension?.sequenceParameterSetExtensions ?? []) + insert
            }
        }
        var i = 0
        if !insert.isEmpty, let first = units.first, first.type == .accessUnitDelimiter {
            append(first, to: &out)
            i = 1
        }
        for unit in insert { append(unit, to: &out) }
        while i < units.count {
            append(units[i], to: &out)
            i &+= 1
        }
    }
}
