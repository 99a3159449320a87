extension AVCDecoderConfigurationRecord {
    /// The AVCC sample of an access unit's NAL units under this record: each NAL unit behind a
    /// length prefix of the record's ``nalUnitLengthSize``, the SPS and PPS the access unit
    /// carries left out (they travel in the record: MP4 `avc1`, FLV) or kept (`avc3`).
    ///
    /// With ``init(parameterSets:lengthSize:)`` this is the one path from parameter sets and
    /// an access unit's NAL units to the avcC record and the AVCC sample, which the FLV and MP4
    /// sample builders and the command-line encoder's AVCC output take; no ``AccessUnit`` is
    /// needed. ``AccessUnitSample/avccSample(lengthSize:includeParameterSets:)`` is the same
    /// for a sample at a length size of its caller's choosing.
    /// - Parameters:
    ///   - nalUnits: the access unit's NAL units in decoding order, without framing.
    ///   - includeParameterSets: keep the SPS and PPS among `nalUnits`.
    /// - Throws: ``H264Error/Code/nalUnitTooLarge`` when a NAL unit does not fit the length size.
    /// - Complexity: O(n) in the NAL units' bytes; the result is their size plus the prefixes.
    public func avccSample(_ nalUnits: [NALUnit], includeParameterSets: Bool) throws(H264Error) -> [UInt8] {
        try AVCC.sample(nalUnits, lengthSize: nalUnitLengthSize, includeParameterSets: includeParameterSets)
    }
}

extension AVCC {
    /// NAL units written as one length-prefixed sample, SPS and PPS left out unless
    /// `includeParameterSets`: the body of every AVCC sample the package writes.
    static func sample(_ nalUnits: [NALUnit], lengthSize: LengthSize, includeParameterSets: Bool) throws(H264Error) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(nalUnits.reduce(0) { $0 &+ $1.count } &+ nalUnits.count &* lengthSize.byteCount)
        for unit in nalUnits where includeParameterSets || (unit.type != .sps && unit.type != .pps) {
            try append(unit, lengthSize: lengthSize, to: &out)
        }
        return out
    }
}
