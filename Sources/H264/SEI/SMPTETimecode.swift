/// A time code `HH:MM:SS:FF` (SMPTE ST 12-1, non-drop-frame counting) as a pic_timing SEI
/// message carries it in a clock timestamp (ITU-T H.264 D.1.3, D.2.3).
///
/// ```swift
/// var timecode = try SMPTETimecode(parsing: "01:00:00:00")
/// for frame in 0..<n {
///     let message = SEIMessage(.picTiming(SEIPicTiming(timing: sps.seiTimingInfo, timecode: timecode)))
///     timecode = timecode.advanced(by: 1, framesPerSecond: 25)
/// }
/// ```
///
/// FFmpeg exports it as a frame's "SMPTE 12-1 timecode" side data and `timecode` tag.
public struct SMPTETimecode: Sendable, Hashable, CustomStringConvertible {
    /// Hours, 0...23.
    public var hours: UInt8
    /// Minutes, 0...59.
    public var minutes: UInt8
    /// Seconds, 0...59.
    public var seconds: UInt8
    /// Frames within the second (`n_frames`).
    public var frames: UInt8

    /// Creates a time code.
    /// - Throws: ``H264Error/Code/invalidArgument`` for hours above 23 or minutes or seconds
    ///   above 59.
    public init(hours: UInt8, minutes: UInt8, seconds: UInt8, frames: UInt8) throws(H264Error) {
        guard hours <= 23, minutes <= 59, seconds <= 59 else {
            throw H264Error.invalid(.invalidArgument, "time code \(hours):\(minutes):\(seconds) is out of range (23:59:59 at most)")
        }
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.frames = frames
    }

    /// Parses `HH:MM:SS:FF` (one or two digits each).
    /// - Throws: ``H264Error/Code/invalidArgument`` for anything else, or values out of range.
    public init(parsing text: String) throws(H264Error) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let values = parts.map { $0.count <= 2 && !$0.isEmpty && $0.allSatisfy(\.isASCII) ? UInt8($0) : nil }
        guard values.count == 4, let h = values[0], let m = values[1], let s = values[2], let f = values[3] else {
            throw H264Error.invalid(.invalidArgument, "time code '\(text)' is not HH:MM:SS:FF")
        }
        try self.init(hours: h, minutes: m, seconds: s, frames: f)
    }

    /// `HH:MM:SS:FF`.
    public var description: String {
        func two(_ v: UInt8) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(hours)):\(two(minutes)):\(two(seconds)):\(two(frames))"
    }

    /// The time code `count` frames later at `framesPerSecond` (1...255) frames a second,
    /// wrapping after 23:59:59 as SMPTE time codes do.
    /// - Precondition: `framesPerSecond` in 1...255 and `frames` below it; `count` >= 0.
    public func advanced(by count: Int, framesPerSecond: Int) -> SMPTETimecode {
        let rate = Swift.max(1, Swift.min(framesPerSecond, 255))
        let day = 86_400 &* rate  // at most 22,032,000
        let start = ((Int(hours) &* 60 &+ Int(minutes)) &* 60 &+ Int(seconds)) &* rate &+ Swift.min(Int(frames), rate &- 1)
        let total = (start &+ Swift.max(0, count) % day) % day  // both below a day: no overflow
        var next = self
        next.frames = UInt8(total % rate)  // < 255
        let secondsTotal = total / rate
        next.seconds = UInt8(secondsTotal % 60)
        next.minutes = UInt8(secondsTotal / 60 % 60)
        next.hours = UInt8(secondsTotal / 3600)  // < 24
        return next
    }

    /// The clock timestamp carrying this time code: `full_timestamp_flag` 1, `ct_type` 0
    /// (progressive), `counting_type` 0 (no dropped `n_frames` values), `time_offset` 0, and
    /// `nuit_field_based_flag` 1, so that with the usual VUI timing (`time_scale` twice the frame
    /// rate times `num_units_in_tick`) each `n_frames` step is one frame (D.2.3).
    public var clockTimestamp: SEIClockTimestamp {
        var ts = SEIClockTimestamp()
        ts.nuitFieldBased = true
        ts.fullTimestamp = true
        ts.nFrames = frames
        ts.seconds = seconds
        ts.minutes = minutes
        ts.hours = hours
        return ts
    }

    /// The time code of a clock timestamp; absent hours, minutes or seconds count as 0.
    public init(_ clockTimestamp: SEIClockTimestamp) {
        // Each value was coded within its range (or is nil).
        hours = Swift.min(clockTimestamp.hours ?? 0, 23)
        minutes = Swift.min(clockTimestamp.minutes ?? 0, 59)
        seconds = Swift.min(clockTimestamp.seconds ?? 0, 59)
        frames = clockTimestamp.nFrames
    }
}

extension SEIPicTiming {
    /// A pic_timing payload coded with `timing` (the SPS's ``SequenceParameterSet/seiTimingInfo``,
    /// which must have `pic_struct_present_flag`) that carries `timecode` in one clock timestamp
    /// of a frame (`pic_struct` 0); `cpb_removal_delay` and `dpb_output_delay` are the ones
    /// given (they are coded only when the SPS has HRD parameters).
    public init(timing: SEITimingInfo, timecode: SMPTETimecode, cpbRemovalDelay: UInt32 = 0, dpbOutputDelay: UInt32 = 0) {
        self.init(timing: timing)
        self.cpbRemovalDelay = cpbRemovalDelay
        self.dpbOutputDelay = dpbOutputDelay
        picStruct = 0
        clockTimestamps = [timecode.clockTimestamp]
    }

    /// The time code of the first clock timestamp, if any.
    public var timecode: SMPTETimecode? {
        clockTimestamps.lazy.compactMap { $0 }.first.map(SMPTETimecode.init)
    }
}
