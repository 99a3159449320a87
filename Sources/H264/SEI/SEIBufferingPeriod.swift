/// `buffering_period( payloadSize )`, ITU-T H.264 D.1.2 (payload type 0).
///
/// The field lengths and counts come from the HRD parameters of the SPS the message names
/// (`seq_parameter_set_id`); ``timing`` holds those facts so the message can be written back
/// without the SPS at hand.
public struct SEIBufferingPeriod: Sendable, Hashable {
    /// One `SchedSelIdx` entry.
    public struct InitialCPBRemoval: Sendable, Hashable {
        /// `initial_cpb_removal_delay[SchedSelIdx]`.
        public var delay: UInt32
        /// `initial_cpb_removal_delay_offset[SchedSelIdx]`.
        public var delayOffset: UInt32

        /// Creates an entry.
        public init(delay: UInt32, delayOffset: UInt32) {
            self.delay = delay
            self.delayOffset = delayOffset
        }
    }

    /// `seq_parameter_set_id` (0...31).
    public var seqParameterSetID: Int
    /// One entry per CPB of the NAL HRD; empty when the SPS has none.
    public var nal: [InitialCPBRemoval]
    /// One entry per CPB of the VCL HRD; empty when the SPS has none.
    public var vcl: [InitialCPBRemoval]
    /// The SPS facts the message is coded with.
    public var timing: SEITimingInfo

    /// Creates a buffering period.
    public init(seqParameterSetID: Int, timing: SEITimingInfo, nal: [InitialCPBRemoval] = [], vcl: [InitialCPBRemoval] = []) {
        self.seqParameterSetID = seqParameterSetID
        self.timing = timing
        self.nal = nal
        self.vcl = vcl
    }

    /// Reads, writes or traces the payload (D.1.2) with the lengths of ``timing``.
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for an HRD count or length outside 1...32
    ///   or an entry count that does not match it (writing); reading errors of the coder.
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.ue(&seqParameterSetID, "seq_parameter_set_id", 0...31)
        if let hrd = timing.nalHRD { try Self.code(&c, &nal, hrd) }
        if let hrd = timing.vclHRD { try Self.code(&c, &vcl, hrd) }
    }

    private static func code<C: SyntaxCoder>(_ c: inout C, _ entries: inout [InitialCPBRemoval], _ hrd: HRDFieldLengths) throws(H264Error) {
        guard (1...32).contains(hrd.cpbCount) else { throw .outOfRange("cpb_cnt_minus1 + 1", Int64(hrd.cpbCount)) }
        let length = hrd.initialCPBRemovalDelayLength
        guard (1...32).contains(length) else { throw .outOfRange("initial_cpb_removal_delay_length_minus1 + 1", Int64(length)) }
        if c.isReading {
            entries = Array(repeating: InitialCPBRemoval(delay: 0, delayOffset: 0), count: hrd.cpbCount)
        } else if entries.count != hrd.cpbCount {
            throw .outOfRange("buffering_period entries (cpb_cnt_minus1 + 1 = \(hrd.cpbCount))", Int64(entries.count))
        }
        for i in 0..<hrd.cpbCount {
            try c.u(length, &entries[i].delay, SyntaxName("initial_cpb_removal_delay", i))
            try c.u(length, &entries[i].delayOffset, SyntaxName("initial_cpb_removal_delay_offset", i))
        }
    }
}
