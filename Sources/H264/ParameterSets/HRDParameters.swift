/// `hrd_parameters()` (E.1.2): the hypothetical reference decoder for the NAL or VCL stream.
public struct HRDParameters: Sendable, Hashable {
    /// One coded picture buffer specification (`SchedSelIdx`).
    public struct CPB: Sendable, Hashable {
        /// `bit_rate_value_minus1[SchedSelIdx]`.
        public var bitRateValueMinus1: UInt32 = 0
        /// `cpb_size_value_minus1[SchedSelIdx]`.
        public var cpbSizeValueMinus1: UInt32 = 0
        /// `cbr_flag[SchedSelIdx]`.
        public var cbrFlag = false
        /// Creates a specification.
        public init(bitRateValueMinus1: UInt32 = 0, cpbSizeValueMinus1: UInt32 = 0, cbrFlag: Bool = false) {
            self.bitRateValueMinus1 = bitRateValueMinus1
            self.cpbSizeValueMinus1 = cpbSizeValueMinus1
            self.cbrFlag = cbrFlag
        }
    }

    /// `bit_rate_scale` (0...15).
    public var bitRateScale: UInt8 = 0
    /// `cpb_size_scale` (0...15).
    public var cpbSizeScale: UInt8 = 0
    /// The `cpb_cnt_minus1 + 1` (1...32) buffer specifications.
    public var cpbs: [CPB] = [CPB()]
    /// `initial_cpb_removal_delay_length_minus1` (0...31).
    public var initialCPBRemovalDelayLengthMinus1: UInt8 = 23
    /// `cpb_removal_delay_length_minus1` (0...31).
    public var cpbRemovalDelayLengthMinus1: UInt8 = 23
    /// `dpb_output_delay_length_minus1` (0...31).
    public var dpbOutputDelayLengthMinus1: UInt8 = 23
    /// `time_offset_length` (0...31).
    public var timeOffsetLength: UInt8 = 24

    /// Creates HRD parameters with one buffer specification.
    public init() {}

    /// Bit rate of specification `i` in bits per second (E.2.2), computed without overflow.
    public func bitRate(_ i: Int) -> UInt64 {
        guard i >= 0, i < cpbs.count else { return 0 }
        return (UInt64(cpbs[i].bitRateValueMinus1) &+ 1) << (6 &+ UInt64(bitRateScale))  // < 2^32 * 2^21
    }

    /// CPB size of specification `i` in bits (E.2.2).
    public func cpbSize(_ i: Int) -> UInt64 {
        guard i >= 0, i < cpbs.count else { return 0 }
        return (UInt64(cpbs[i].cpbSizeValueMinus1) &+ 1) << (4 &+ UInt64(cpbSizeScale))  // < 2^32 * 2^19
    }

    /// The field lengths SEI buffering_period and pic_timing take from these parameters.
    public var seiFieldLengths: HRDFieldLengths {
        HRDFieldLengths(cpbCount: cpbs.count,
                        initialCPBRemovalDelayLength: Int(initialCPBRemovalDelayLengthMinus1) &+ 1,
                        cpbRemovalDelayLength: Int(cpbRemovalDelayLengthMinus1) &+ 1,
                        dpbOutputDelayLength: Int(dpbOutputDelayLengthMinus1) &+ 1,
                        timeOffsetLength: Int(timeOffsetLength))
    }

    /// The syntax of E.1.2.
    /// - Complexity: O(cpb_cnt_minus1), at most 32 iterations.
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        var cpbCntMinus1 = UInt8(truncatingIfNeeded: max(cpbs.count, 1) &- 1)
        if !c.isReading, cpbs.isEmpty || cpbs.count > 32 { throw .outOfRange("cpb_cnt_minus1", Int64(cpbs.count) &- 1) }
        try c.ue(&cpbCntMinus1, "cpb_cnt_minus1", 0...31)
        try c.u(4, &bitRateScale, "bit_rate_scale")
        try c.u(4, &cpbSizeScale, "cpb_size_scale")
        try c.prepare(&cpbs, count: Int(cpbCntMinus1) &+ 1, limit: 32, fill: CPB(), "cpb_cnt_minus1")
        for i in 0..<cpbs.count {
            try c.ue(&cpbs[i].bitRateValueMinus1, SyntaxName("bit_rate_value_minus1", i), 0...(UInt32.max &- 1))
            try c.ue(&cpbs[i].cpbSizeValueMinus1, SyntaxName("cpb_size_value_minus1", i), 0...(UInt32.max &- 1))
            try c.flag(&cpbs[i].cbrFlag, SyntaxName("cbr_flag", i))
        }
        try c.u(5, &initialCPBRemovalDelayLengthMinus1, "initial_cpb_removal_delay_length_minus1")
        try c.u(5, &cpbRemovalDelayLengthMinus1, "cpb_removal_delay_length_minus1")
        try c.u(5, &dpbOutputDelayLengthMinus1, "dpb_output_delay_length_minus1")
        try c.u(5, &timeOffsetLength, "time_offset_length")
    }
}
