import H264

extension StreamBuilder {
    /// Writes the `slice_data()` of a built slice (7.3.4), after its header.
    ///
    /// - CAVLC P, B and SP slices: one `mb_skip_run` over every macroblock (all skipped).
    /// - CAVLC I and SI slices with `pcm`: every macroblock `I_PCM` (`mb_type` 25, or 26 in SI
    ///   slices) with flat samples, `mb_field_decoding_flag` 0 on each MBAFF pair.
    /// - Otherwise (CABAC, or I without `pcm`): a single 1 bit, so that `more_rbsp_data()` holds
    ///   after the header as parsers such as FFmpeg's require; such a slice does not decode.
    ///
    /// - Parameters:
    ///   - macroblocks: the macroblocks of the slice (both of every MBAFF pair).
    ///   - firstAddress: the first macroblock's number in the picture, for the sample pattern.
    /// - Complexity: O(macroblocks × 384 samples) with PCM, else O(1).
    static func codeSliceData<C: SyntaxCoder>(_ c: inout C, kind: SliceKind, sps: SequenceParameterSet, cabac: Bool, pcm: Bool,
                                              macroblocks: Int, firstAddress: Int, mbaff: Bool) throws(H264Error) {
        if !cabac && (kind == .p || kind == .b || kind == .sp) {
            var run = UInt32(truncatingIfNeeded: macroblocks)  // <= 2^25
            try c.ue(&run, "mb_skip_run", 0...(1 << 26))
            return
        }
        guard !cabac && pcm else {
            var filler = true
            try c.flag(&filler, "slice_data_filler")
            return
        }
        let chroma = sps.chromaArrayType == 0 ? 0 : 2 &* (16 / sps.chromaSubsampling.width) &* (16 / sps.chromaSubsampling.height)
        let lumaBits = Int(sps.bitDepthLumaMinus8) &+ 8, chromaBits = Int(sps.bitDepthChromaMinus8) &+ 8
        for i in 0..<macroblocks {
            if mbaff && i & 1 == 0 {
                var frameMacroblockPair = false
                try c.flag(&frameMacroblockPair, "mb_field_decoding_flag")
            }
            var mbType: UInt8 = kind == .si ? 26 : 25  // I_PCM
            try c.ue(&mbType, "mb_type", 0...26)
            while c.bitPosition & 7 != 0 { try c.fixed(1, 0, "pcm_alignment_zero_bit") }
            // A grey ramp over the macroblocks, scaled to the bit depth.
            var luma = UInt16(truncatingIfNeeded: 48 &+ ((firstAddress &+ i) &* 23) % 160) << UInt16(lumaBits &- 8)
            for _ in 0..<256 { try c.u(lumaBits, &luma, "pcm_sample_luma") }
            var grey = UInt16(128) << UInt16(chromaBits &- 8)
            for _ in 0..<chroma { try c.u(chromaBits, &grey, "pcm_sample_chroma") }
        }
    }
}
