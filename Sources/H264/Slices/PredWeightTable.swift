/// `pred_weight_table()` (7.3.3.2): explicit weighted prediction for P/SP and B slices.
public struct PredWeightTable: Sendable, Hashable {
    /// The weights of one reference index. Without their flag, weights are inferred as
    /// 2^denominator and offsets as 0 (7.4.3.2): the defaults match denominators of 0.
    public struct Entry: Sendable, Hashable {
        /// `luma_weight_lX_flag[i]`.
        public var lumaWeightFlag = false
        /// `luma_weight_lX[i]` (inferred `2^luma_log2_weight_denom`).
        public var lumaWeight: Int16 = 1
        /// `luma_offset_lX[i]` (inferred 0).
        public var lumaOffset: Int16 = 0
        /// `chroma_weight_lX_flag[i]` (absent for ChromaArrayType 0).
        public var chromaWeightFlag = false
        /// `chroma_weight_lX[i][0]` (Cb; inferred `2^chroma_log2_weight_denom`).
        public var chromaWeightCb: Int16 = 1
        /// `chroma_offset_lX[i][0]` (Cb; inferred 0).
        public var chromaOffsetCb: Int16 = 0
        /// `chroma_weight_lX[i][1]` (Cr; inferred `2^chroma_log2_weight_denom`).
        public var chromaWeightCr: Int16 = 1
        /// `chroma_offset_lX[i][1]` (Cr; inferred 0).
        public var chromaOffsetCr: Int16 = 0
        /// Creates an entry with every flag 0 (and the weights of denominators 0).
        public init() {}
    }

    /// `luma_log2_weight_denom` (0...7).
    public var lumaLog2WeightDenom: UInt8 = 0
    /// `chroma_log2_weight_denom` (0...7; absent for ChromaArrayType 0).
    public var chromaLog2WeightDenom: UInt8 = 0
    /// One entry per reference index of list 0.
    public var l0: [Entry] = []
    /// One entry per reference index of list 1 (B slices).
    public var l1: [Entry] = []

    /// Creates an empty table.
    public init() {}

    /// The syntax of 7.3.3.2.
    /// - Parameters:
    ///   - c: the coder that reads, writes or traces the table.
    ///   - l0Count: `num_ref_idx_l0_active_minus1 + 1`.
    ///   - l1Count: `num_ref_idx_l1_active_minus1 + 1` (0 unless a B slice).
    ///   - chroma: ChromaArrayType is not 0.
    ///
    /// Reading sets every field, whatever the table held before (`chroma_log2_weight_denom`
    /// becomes 0 without chroma), and reuses the storage of ``l0`` and ``l1``: reading into a
    /// table whose lists have room allocates nothing.
    /// - Complexity: O(l0Count + l1Count), each at most 32.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, l0Count: Int, l1Count: Int, chroma: Bool) throws(H264Error) {
        try c.ue(&lumaLog2WeightDenom, "luma_log2_weight_denom", 0...7)
        if chroma {
            try c.ue(&chromaLog2WeightDenom, "chroma_log2_weight_denom", 0...7)
        } else if c.isReading {
            chromaLog2WeightDenom = 0
        }
        try c.prepare(&l0, count: l0Count, limit: 32, fill: Entry(), "num_ref_idx_l0_active_minus1")
        try c.prepare(&l1, count: l1Count, limit: 32, fill: Entry(), "num_ref_idx_l1_active_minus1")
        let weights = (luma: Int16(1) << Int16(lumaLog2WeightDenom), chroma: Int16(1) << Int16(chromaLog2WeightDenom))  // denominators <= 7
        for i in 0..<l0Count {
            try Self.codeEntry(&c, &l0[i], i, chroma: chroma, inferred: weights,
                               names: ("luma_weight_l0_flag", "luma_weight_l0", "luma_offset_l0",
                                       "chroma_weight_l0_flag", "chroma_weight_l0", "chroma_offset_l0"))
        }
        for i in 0..<l1Count {
            try Self.codeEntry(&c, &l1[i], i, chroma: chroma, inferred: weights,
                               names: ("luma_weight_l1_flag", "luma_weight_l1", "luma_offset_l1",
                                       "chroma_weight_l1_flag", "chroma_weight_l1", "chroma_offset_l1"))
        }
    }

    private static func codeEntry<C: SyntaxCoder>(
        _ c: inout C, _ e: inout Entry, _ i: Int, chroma: Bool, inferred weights: (luma: Int16, chroma: Int16),
        names: (StaticString, StaticString, StaticString, StaticString, StaticString, StaticString)
    ) throws(H264Error) {
        try c.flag(&e.lumaWeightFlag, SyntaxName(names.0, i))
        if e.lumaWeightFlag {
            try c.se(&e.lumaWeight, SyntaxName(names.1, i), -128...127)
            try c.se(&e.lumaOffset, SyntaxName(names.2, i), -128...127)
        } else {
            try c.infer(&e.lumaWeight, weights.luma, SyntaxName(names.1, i))
            try c.infer(&e.lumaOffset, 0, SyntaxName(names.2, i))
        }
        guard chroma else { return }
        try c.flag(&e.chromaWeightFlag, SyntaxName(names.3, i))
        if e.chromaWeightFlag {
            try c.se(&e.chromaWeightCb, SyntaxName(names.4, i, 0), -128...127)
            try c.se(&e.chromaOffsetCb, SyntaxName(names.5, i, 0), -128...127)
            try c.se(&e.chromaWeightCr, SyntaxName(names.4, i, 1), -128...127)
            try c.se(&e.chromaOffsetCr, SyntaxName(names.5, i, 1), -128...127)
        } else {
            try c.infer(&e.chromaWeightCb, weights.chroma, SyntaxName(names.4, i, 0))
            try c.infer(&e.chromaOffsetCb, 0, SyntaxName(names.5, i, 0))
            try c.infer(&e.chromaWeightCr, weights.chroma, SyntaxName(names.4, i, 1))
            try c.infer(&e.chromaOffsetCr, 0, SyntaxName(names.5, i, 1))
        }
    }
}
