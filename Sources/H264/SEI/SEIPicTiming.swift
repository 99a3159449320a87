/// `pic_timing( payloadSize )`, ITU-T H.264 D.1.3 (payload type 1).
///
/// Which fields are present, and their lengths, come from the active SPS: `cpb_removal_delay`
/// and `dpb_output_delay` when `CpbDpbDelaysPresentFlag` is 1 (lengths from the NAL HRD, else
/// the VCL HRD), `pic_struct` and the clock timestamps when `pic_struct_present_flag` is 1.
/// ``timing`` holds those facts so the message can be written back without the SPS.
public struct SEIPicTiming: Sendable, Hashable {
    /// `cpb_removal_delay` (when the SPS has HRD parameters).
    public var cpbRemovalDelay: UInt32 = 0
    /// `dpb_output_delay` (when the SPS has HRD parameters).
    public var dpbOutputDelay: UInt32 = 0
    /// `pic_struct` (0...8, when `pic_struct_present_flag` is 1).
    public var picStruct: UInt8 = 0
    /// One entry per `NumClockTS` (Table D-1): nil when `clock_timestamp_flag[i]` is 0.
    public var clockTimestamps: [SEIClockTimestamp?] = []
    /// The SPS facts the message is coded with.
    public var timing: SEITimingInfo

    /// Creates a pic_timing payload coded with `timing`.
    public init(timing: SEITimingInfo) { self.timing = timing }

    /// `NumClockTS` for each `pic_struct` value, Table D-1.
    public static let numClockTS: [Int] = [1, 1, 1, 2, 2, 3, 3, 2, 3]

    /// The HRD whose lengths apply: NAL if present, else VCL.
    var hrd: HRDFieldLengths? { timing.nalHRD ?? timing.vclHRD }

    /// Reads, writes or traces the payload (D.1.3).
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for lengths outside 1...32 or a `pic_struct`
    ///   above 8; reading errors of the coder.
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        if let hrd {
            guard (1...32).contains(hrd.cpbRemovalDelayLength) else { throw .outOfRange("cpb_removal_delay_length_minus1 + 1", Int64(hrd.cpbRemovalDelayLength)) }
            guard (1...32).contains(hrd.dpbOutputDelayLength) else { throw .outOfRange("dpb_output_delay_length_minus1 + 1", Int64(hrd.dpbOutputDelayLength)) }
            try c.u(hrd.cpbRemovalDelayLength, &cpbRemovalDelay, "cpb_removal_delay")
            try c.u(hrd.dpbOutputDelayLength, &dpbOutputDelay, "dpb_output_delay")
        }
        guard timing.picStructPresent else { return }
        try c.u(4, &picStruct, "pic_struct", 0...8)
        let count = Self.numClockTS[Int(picStruct)]
        if c.isReading {
            clockTimestamps = Array(repeating: nil, count: count)
        } else if clockTimestamps.count != count {
            throw .outOfRange("clock timestamps for pic_struct \(picStruct) (NumClockTS = \(count))", Int64(clockTimestamps.count))
        }
        // time_offset_length from the NAL HRD, else the VCL HRD, else 24 (D.2.3).
        let timeOffsetLength = hrd?.timeOffsetLength ?? 24
        for i in 0..<count {
            var present = clockTimestamps[i] != nil
            try c.flag(&present, SyntaxName("clock_timestamp_flag", i))
            if present {
                var ts = clockTimestamps[i] ?? SEIClockTimestamp()
                try ts.code(&c, timeOffsetLength: timeOffsetLength)
                clockTimestamps[i] = ts
            }
        }
    }
}
