/// What muxers need from an access unit: its timestamps in the one sample model (the AVCC and
/// Annex-B samples come from ``AccessUnitSample``).
extension AccessUnit: AccessUnitSample {
    /// The access unit's ``pts``, ``dts`` and ``duration`` on its ``timeBase``; nil until the
    /// parser (or the caller) has assigned them.
    public var timestamps: SampleTimestamps? {
        guard let pts, let dts, let timeBase else { return nil }
        return SampleTimestamps(pts: pts, dts: dts, duration: duration, timeBase: timeBase)
    }
}

extension TimeBase {
    /// `value` in this time base expressed in `timescale` ticks per second, rounded to the
    /// nearest tick, halves away from zero; a result outside `Int64` saturates to
    /// `Int64.min`/`Int64.max`, and a time base with a zero denominator gives 0.
    ///
    /// Computed exactly in 128-bit integer arithmetic (`value * numerator * timescale /
    /// denominator`), so a nanosecond clock converts to 90 kHz without a rounding error at any
    /// time; only when `numerator * timescale` itself overflows does it fall back to double
    /// precision.
    /// - Complexity: O(1).
    public func rescale(_ value: Int64, to timescale: Int64) -> Int64 {
        guard denominator != 0 else { return 0 }
        let (factor, overflow) = numerator.multipliedReportingOverflow(by: timescale)
        guard !overflow else {
            let ticks = Double(value) * Double(numerator) * Double(timescale) / Double(denominator)
            guard ticks.isFinite, abs(ticks) < 9.0e18 else { return ticks < 0 ? Int64.min : Int64.max }
            return Int64(ticks.rounded())
        }
        let negative = ((value < 0) != (factor < 0)) != (denominator < 0)
        let product = value.magnitude.multipliedFullWidth(by: factor.magnitude)
        let divisor = denominator.magnitude
        guard product.high < divisor else { return negative ? Int64.min : Int64.max }
        let (quotient, remainder) = divisor.dividingFullWidth(product)
        // remainder < divisor, so divisor - remainder cannot underflow; a quotient below 2^64
        // that is rounded up saturates below instead of overflowing.
        let roundsUp = remainder >= divisor &- remainder
        let (magnitude, carried) = roundsUp ? quotient.addingReportingOverflow(1) : (quotient, false)
        if negative {
            guard !carried, magnitude <= Int64.min.magnitude else { return Int64.min }
            return Int64(truncatingIfNeeded: 0 &- magnitude)
        }
        guard !carried, magnitude <= Int64.max.magnitude else { return Int64.max }
        return Int64(magnitude)
    }
}
