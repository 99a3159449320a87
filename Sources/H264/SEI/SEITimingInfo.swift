/// The lengths that an SPS's HRD parameters (E.1.2) give to the fields of the
/// buffering_period (D.1.2) and pic_timing (D.1.3) SEI payloads.
public struct HRDFieldLengths: Sendable, Hashable {
    /// `cpb_cnt_minus1 + 1` (1...32).
    public var cpbCount: Int
    /// `initial_cpb_removal_delay_length_minus1 + 1`.
    public var initialCPBRemovalDelayLength: Int
    /// `cpb_removal_delay_length_minus1 + 1`.
    public var cpbRemovalDelayLength: Int
    /// `dpb_output_delay_length_minus1 + 1`.
    public var dpbOutputDelayLength: Int
    /// `time_offset_length`.
    public var timeOffsetLength: Int

    /// Creates the lengths.
    public init(cpbCount: Int, initialCPBRemovalDelayLength: Int, cpbRemovalDelayLength: Int,
                dpbOutputDelayLength: Int, timeOffsetLength: Int) {
        self.cpbCount = cpbCount
        self.initialCPBRemovalDelayLength = initialCPBRemovalDelayLength
        self.cpbRemovalDelayLength = cpbRemovalDelayLength
        self.dpbOutputDelayLength = dpbOutputDelayLength
        self.timeOffsetLength = timeOffsetLength
    }
}

/// What SEI payloads 0 and 1 need to know about an SPS.
public struct SEITimingInfo: Sendable, Hashable {
    /// From the NAL HRD parameters, when `nal_hrd_parameters_present_flag` is 1.
    public var nalHRD: HRDFieldLengths?
    /// From the VCL HRD parameters, when `vcl_hrd_parameters_present_flag` is 1.
    public var vclHRD: HRDFieldLengths?
    /// `pic_struct_present_flag` of the VUI.
    public var picStructPresent: Bool
    /// `frame_mbs_only_flag` of the SPS: dec_ref_pic_marking_repetition (D.1.9) carries
    /// `original_field_pic_flag` only when it is 0. True unless set.
    public var frameMBsOnly: Bool = true

    /// Creates the info.
    public init(nalHRD: HRDFieldLengths?, vclHRD: HRDFieldLengths?, picStructPresent: Bool) {
        self.nalHRD = nalHRD
        self.vclHRD = vclHRD
        self.picStructPresent = picStructPresent
    }

    /// Creates the info, with `frame_mbs_only_flag`.
    public init(nalHRD: HRDFieldLengths?, vclHRD: HRDFieldLengths?, picStructPresent: Bool, frameMBsOnly: Bool) {
        self.init(nalHRD: nalHRD, vclHRD: vclHRD, picStructPresent: picStructPresent)
        self.frameMBsOnly = frameMBsOnly
    }

    /// `CpbDpbDelaysPresentFlag` (D.2.3): either HRD is present.
    public var cpbDpbDelaysPresent: Bool { nalHRD != nil || vclHRD != nil }
}
