/// `recovery_point( payloadSize )`, ITU-T H.264 D.1.8 (payload type 6).
public struct SEIRecoveryPoint: Sendable, Hashable {
    /// `recovery_frame_cnt` (0...65535, as FFmpeg bounds it).
    public var recoveryFrameCount: UInt16 = 0
    /// `exact_match_flag`.
    public var exactMatch = false
    /// `broken_link_flag`.
    public var brokenLink = false
    /// `changing_slice_group_idc` (0...2).
    public var changingSliceGroupIDC: UInt8 = 0

    /// Creates a recovery point.
    public init(recoveryFrameCount: UInt16 = 0, exactMatch: Bool = false, brokenLink: Bool = false, changingSliceGroupIDC: UInt8 = 0) {
        self.recoveryFrameCount = recoveryFrameCount
        self.exactMatch = exactMatch
        self.brokenLink = brokenLink
        self.changingSliceGroupIDC = changingSliceGroupIDC
    }

    /// Reads, writes or traces the payload (D.1.8).
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.ue(&recoveryFrameCount, "recovery_frame_cnt", 0...65535)
        try c.flag(&exactMatch, "exact_match_flag")
        try c.flag(&brokenLink, "broken_link_flag")
        try c.u(2, &changingSliceGroupIDC, "changing_slice_group_idc", 0...2)
    }
}
