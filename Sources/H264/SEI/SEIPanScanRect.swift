/// `pan_scan_rect( payloadSize )`, ITU-T H.264 D.1.4 (payload type 2).
public struct SEIPanScanRect: Sendable, Hashable {
    /// One rectangle's offsets, in 1/16 luma samples.
    public struct Offsets: Sendable, Hashable {
        /// `pan_scan_rect_left_offset[i]`.
        public var left: Int32 = 0
        /// `pan_scan_rect_right_offset[i]`.
        public var right: Int32 = 0
        /// `pan_scan_rect_top_offset[i]`.
        public var top: Int32 = 0
        /// `pan_scan_rect_bottom_offset[i]`.
        public var bottom: Int32 = 0
        /// Creates offsets.
        public init(left: Int32 = 0, right: Int32 = 0, top: Int32 = 0, bottom: Int32 = 0) {
            self.left = left; self.right = right; self.top = top; self.bottom = bottom
        }
    }

    /// `pan_scan_rect_id`.
    public var id: UInt32 = 0
    /// `pan_scan_rect_cancel_flag`.
    public var cancel = false
    /// The rectangles (1...3; `pan_scan_cnt_minus1 + 1`), empty when cancelled.
    public var rectangles: [Offsets] = []
    /// `pan_scan_rect_repetition_period` (0...16384).
    public var repetitionPeriod: UInt16 = 0

    /// Creates a pan-scan payload.
    public init() {}

    /// Reads, writes or traces the payload (D.1.4).
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.ue(&id, "pan_scan_rect_id", 0...(UInt32.max - 1))
        try c.flag(&cancel, "pan_scan_rect_cancel_flag")
        guard !cancel else {
            if c.isReading { rectangles = [] }
            return
        }
        var countMinus1 = rectangles.count &- 1  // writing: checked by the range below
        try c.ue(&countMinus1, "pan_scan_cnt_minus1", 0...2)
        if c.isReading { rectangles = Array(repeating: Offsets(), count: countMinus1 &+ 1) }  // <= 3
        let range = (Int32.min + 1)...Int32.max
        for i in 0...countMinus1 {
            try c.se(&rectangles[i].left, SyntaxName("pan_scan_rect_left_offset", i), range)
            try c.se(&rectangles[i].right, SyntaxName("pan_scan_rect_right_offset", i), range)
            try c.se(&rectangles[i].top, SyntaxName("pan_scan_rect_top_offset", i), range)
            try c.se(&rectangles[i].bottom, SyntaxName("pan_scan_rect_bottom_offset", i), range)
        }
        try c.ue(&repetitionPeriod, "pan_scan_rect_repetition_period", 0...16384)
    }
}
