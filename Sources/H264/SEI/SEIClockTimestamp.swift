/// One clock timestamp of a pic_timing SEI message (D.1.3, the `clock_timestamp_flag[i]` branch).
///
/// `seconds`, `minutes` and `hours` are nil when their flag is 0; with `fullTimestamp` all three
/// are coded (nil codes as 0).
public struct SEIClockTimestamp: Sendable, Hashable {
    /// `ct_type` (0...2).
    public var ctType: UInt8 = 0
    /// `nuit_field_based_flag`.
    public var nuitFieldBased = false
    /// `counting_type` (0...6).
    public var countingType: UInt8 = 0
    /// `full_timestamp_flag`.
    public var fullTimestamp = false
    /// `discontinuity_flag`.
    public var discontinuity = false
    /// `cnt_dropped_flag`.
    public var countDropped = false
    /// `n_frames`.
    public var nFrames: UInt8 = 0
    /// `seconds_value` (0...59), nil when `seconds_flag` is 0.
    public var seconds: UInt8?
    /// `minutes_value` (0...59), nil when `minutes_flag` is 0.
    public var minutes: UInt8?
    /// `hours_value` (0...23), nil when `hours_flag` is 0.
    public var hours: UInt8?
    /// `time_offset`, `i(time_offset_length)`: signed.
    public var timeOffset: Int32 = 0

    /// Creates a timestamp.
    public init() {}

    /// Reads, writes or traces the timestamp; `timeOffsetLength` is 0...31.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, timeOffsetLength: Int) throws(H264Error) {
        try c.u(2, &ctType, "ct_type", 0...2)
        try c.flag(&nuitFieldBased, "nuit_field_based_flag")
        try c.u(5, &countingType, "counting_type", 0...6)
        try c.flag(&fullTimestamp, "full_timestamp_flag")
        try c.flag(&discontinuity, "discontinuity_flag")
        try c.flag(&countDropped, "cnt_dropped_flag")
        try c.u(8, &nFrames, "n_frames")
        if fullTimestamp {
            try Self.value(&c, &seconds, 6, "seconds_value", 59)
            try Self.value(&c, &minutes, 6, "minutes_value", 59)
            try Self.value(&c, &hours, 5, "hours_value", 23)
        } else {
            if try Self.optional(&c, &seconds, 6, "seconds_flag", "seconds_value", 59) {
                if try Self.optional(&c, &minutes, 6, "minutes_flag", "minutes_value", 59) {
                    _ = try Self.optional(&c, &hours, 5, "hours_flag", "hours_value", 23)
                } else if c.isReading { hours = nil }
            } else if c.isReading { minutes = nil; hours = nil }
        }
        guard (0...31).contains(timeOffsetLength) else { throw .outOfRange("time_offset_length", Int64(timeOffsetLength)) }
        if timeOffsetLength > 0 {
            try c.i(timeOffsetLength, &timeOffset, "time_offset")
        } else if c.isReading {
            timeOffset = 0
        }
    }

    private static func value<C: SyntaxCoder>(_ c: inout C, _ v: inout UInt8?, _ bits: Int, _ name: SyntaxName, _ max: UInt8) throws(H264Error) {
        var x = v ?? 0
        try c.u(bits, &x, name, 0...max)
        v = x
    }

    private static func optional<C: SyntaxCoder>(_ c: inout C, _ v: inout UInt8?, _ bits: Int, _ flagName: SyntaxName, _ name: SyntaxName, _ max: UInt8) throws(H264Error) -> Bool {
        var present = v != nil
        try c.flag(&present, flagName)
        if present { try value(&c, &v, bits, name, max) } else if c.isReading { v = nil }
        return present
    }
}
