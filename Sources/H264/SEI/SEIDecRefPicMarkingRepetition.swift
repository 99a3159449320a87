/// `dec_ref_pic_marking_repetition( payloadSize )`, ITU-T H.264 D.1.9 (payload type 7): a copy
/// of the `dec_ref_pic_marking()` (7.3.3.3) of an earlier picture, with `original_idr_flag`
/// playing the part of `IdrPicFlag`.
///
/// `original_field_pic_flag` is coded only when the active SPS has `frame_mbs_only_flag` 0
/// (``frameMBsOnly``, from ``SEITimingInfo/frameMBsOnly``).
public struct SEIDecRefPicMarkingRepetition: Sendable, Hashable {
    /// `original_idr_flag`.
    public var originalIDR = false
    /// `original_frame_num`.
    public var originalFrameNum: UInt32 = 0
    /// `original_field_pic_flag` (coded when not ``frameMBsOnly``).
    public var originalFieldPic = false
    /// `original_bottom_field_flag` (coded when ``originalFieldPic``).
    public var originalBottomField = false
    /// The repeated `dec_ref_pic_marking()`: the slice header's structure (7.3.3.3).
    public var marking = DecRefPicMarking()
    /// `frame_mbs_only_flag` of the active SPS the message is coded with.
    public var frameMBsOnly: Bool

    /// Creates a repetition coded for an SPS with the given `frame_mbs_only_flag`.
    public init(frameMBsOnly: Bool = true) { self.frameMBsOnly = frameMBsOnly }

    /// Reads, writes or traces the payload (D.1.9).
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.flag(&originalIDR, "original_idr_flag")
        try c.ue(&originalFrameNum, "original_frame_num", 0...(UInt32.max - 1))
        if !frameMBsOnly {
            try c.flag(&originalFieldPic, "original_field_pic_flag")
            if originalFieldPic { try c.flag(&originalBottomField, "original_bottom_field_flag") }
        }
        try marking.code(&c, idrPicFlag: originalIDR)
    }
}
