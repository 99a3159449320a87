import H264

extension StreamBuilder {
    /// A stream whose picture order counts keep falling: an IDR picture (POC 0), then P
    /// pictures whose POC falls by 2 each (`pic_order_cnt_type` 0, reference pictures, so each
    /// derives its order count from the one before and the MSB keeps falling), 8 bytes per
    /// access unit. The first pictures never become the smallest POC waiting for output: a
    /// timestamp assigner that waits for them holds every later access unit.
    ///
    /// 32 P access units are written once (one period of `frame_num`, 16 values, and of
    /// `pic_order_cnt_lsb`, 32 pictures of 2) and repeated, so a long stream costs little to
    /// make.
    /// - Parameters:
    ///   - count: access units in all (at least 1).
    ///   - maxNumReorderFrames: the SPS's `max_num_reorder_frames` (VUI), or nil for no VUI.
    /// - Returns: the stream, Annex B.
    /// - Throws: the builder's errors (none for these choices).
    public static func fallingPictureOrderCounts(count: Int, maxNumReorderFrames: UInt32? = nil) throws(H264Error) -> [UInt8] {
        var options = SequenceOptions(width: 16, height: 16)
        options.maxNumReorderFrames = maxNumReorderFrames
        var builder = try StreamBuilder(options)
        try builder.append(.init(.i, idr: true))
        for k in 1...32 { try builder.append(.init(.p, poc: Int64(-2 * k))) }
        var out: [UInt8] = []
        for i in 0..<Swift.max(1, count) {
            for unit in builder.accessUnits[i == 0 ? 0 : (i - 1) % 32 + 1] { AnnexB.append(unit, to: &out) }
        }
        return out
    }
}
