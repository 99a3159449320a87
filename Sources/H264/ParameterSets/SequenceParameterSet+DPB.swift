extension SequenceParameterSet {
    /// `MaxDpbMbs` of Table A-1 for this SPS's level (level 1b included), or nil for an unknown
    /// `level_idc`.
    public var maxDpbMbs: Int? {
        ProfileLevel(self).level.limits?.maxDpbMbs
    }

    /// `MaxDpbFrames` (A.3.1 item h, A.3.2 item f): `Min(MaxDpbMbs / (PicWidthInMbs *
    /// FrameHeightInMbs), 16)`, or 16 for an unknown level.
    public var maxDpbFrames: Int {
        guard let mbs = maxDpbMbs else { return 16 }
        let frameMbs = Swift.max(1, picWidthInMbs &* frameHeightInMbs)  // each at most a few thousand
        return Swift.min(mbs / frameMbs, 16)
    }

    /// The reorder depth a decoder must allow for this stream: `max_num_reorder_frames` when the
    /// VUI gives it, 0 for `pic_order_cnt_type` 2 (output order is decoding order), else the
    /// value E.2.1 infers: `max_dec_frame_buffering`, itself inferred as `MaxDpbFrames`.
    public var reorderDepth: Int {
        if vuiParametersPresentFlag && vui.bitstreamRestrictionFlag { return Int(Swift.min(vui.maxNumReorderFrames, 16)) }
        if picOrderCntType == 2 { return 0 }
        return maxDpbFrames
    }
}
