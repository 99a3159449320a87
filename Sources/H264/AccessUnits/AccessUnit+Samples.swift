/// What muxers need from an access unit: timestamps in their own timescale (the AVCC and
/// Annex-B samples come from ``AccessUnitSample``).
extension AccessUnit: AccessUnitSample {
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
