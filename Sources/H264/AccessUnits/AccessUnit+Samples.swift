/// What muxers need from an access unit: an AVCC sample and timestamps in their own timescale.
extension AccessUnit {
    /// The access unit as one length-prefixed (AVCC) sample, the form MP4 and FLV carry.
    /// - Parameters:
    ///   - lengthSize: the NAL unit length size (1, 2 or 4 bytes).
    ///   - includeParameterSets: keep SPS and PPS in band; false when they travel in the avcC
    ///     record.
    /// - Throws: ``H264Error/Code/nalUnitTooLarge`` when a NAL unit does not fit the length size.
    /// - Complexity: O(n) in the access unit's size.
    public func avccSample(lengthSize: AVCC.LengthSize = .four, includeParameterSets: Bool = true) throws(H264Error) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payloadSize &+ nalUnits.count &* 4)
        for unit in nalUnits where includeParameterSets || !(unit.type == .sps || unit.type == .pps) {
            try AVCC.append(unit, lengthSize: lengthSize, to: &out)
        }
        return out
    }

    /// Decode and presentation timestamps converted to `timescale` ticks per second (90,000 for
    /// RTP, 1,000 for FLV), rounding to the nearest tick; nil before timestamps are assigned.
    public func timestamps(timescale: Int64) -> (dts: Int64, pts: Int64)? {
        guard let dts, let pts, let timeBase, timescale > 0 else { return nil }
        return (timeBase.rescale(dts, to: timescale), timeBase.rescale(pts, to: timescale))
    }
}

extension TimeBase {
    /// `value` in this time base expressed in `timescale` ticks per second, rounded to the
    /// nearest tick. Computed in double precision: exact for any realistic timestamp.
    public func rescale(_ value: Int64, to timescale: Int64) -> Int64 {
        guard denominator != 0 else { return 0 }
        let ticks = Double(value) * Double(numerator) * Double(timescale) / Double(denominator)
        guard ticks.isFinite, abs(ticks) < 9.0e18 else { return ticks < 0 ? Int64.min : Int64.max }
        return Int64(ticks.rounded())
    }
}
