/// `dec_ref_pic_marking_repetition( payloadSize )`, ITU-T H.264 D.1.9 (payload type 7): a copy
/// of the `dec_ref_pic_marking()` (7.3.3.3) of an earlier picture, with `original_idr_flag`
/// playing the part of `IdrPicFlag`.
///
/// `original_field_pic_flag` is coded only when the active SPS has `frame_mbs_only_flag` 0
/// (``frameMBsOnly``, from ``SEITimingInfo/frameMBsOnly``).
public struct SEIDecRefPicMarkingRepetition: Sendable, Hashable {
    /// The `dec_ref_pic_marking()` syntax structure (7.3.3.3).
    public struct Marking: Sendable, Hashable {
        /// One `memory_management_control_operation` and its operands (unused ones are 0).
        public struct Operation: Sendable, Hashable {
            /// `memory_management_control_operation` (1...6; the terminating 0 is implicit).
            public var operation: UInt8
            /// `difference_of_pic_nums_minus1` (operations 1 and 3).
            public var differenceOfPicNumsMinus1: UInt32 = 0
            /// `long_term_pic_num` (operation 2).
            public var longTermPicNum: UInt32 = 0
            /// `long_term_frame_idx` (operations 3 and 6).
            public var longTermFrameIdx: UInt32 = 0
            /// `max_long_term_frame_idx_plus1` (operation 4).
            public var maxLongTermFrameIdxPlus1: UInt32 = 0

            /// Creates an operation.
            public init(operation: UInt8) { self.operation = operation }
        }

        /// `no_output_of_prior_pics_flag` (IDR).
        public var noOutputOfPriorPics = false
        /// `long_term_reference_flag` (IDR).
        public var longTermReference = false
        /// `adaptive_ref_pic_marking_mode_flag` (non-IDR).
        public var adaptiveRefPicMarkingMode = false
        /// The operations before the terminating 0 (non-IDR, adaptive mode).
        public var operations: [Operation] = []

        /// At most this many operations are read (FFmpeg's `H264_MAX_MMCO_COUNT`).
        public static let maxOperations = 66

        /// Creates an empty marking.
        public init() {}

        /// Reads, writes or traces `dec_ref_pic_marking()` for a picture whose `IdrPicFlag` is `idr`.
        /// - Throws: ``H264Error/Code/limitExceeded`` past ``maxOperations``; coder errors.
        public mutating func code<C: SyntaxCoder>(_ c: inout C, idr: Bool) throws(H264Error) {
            if idr {
                try c.flag(&noOutputOfPriorPics, "no_output_of_prior_pics_flag")
                try c.flag(&longTermReference, "long_term_reference_flag")
                return
            }
            try c.flag(&adaptiveRefPicMarkingMode, "adaptive_ref_pic_marking_mode_flag")
            guard adaptiveRefPicMarkingMode else { return }
            if c.isReading { operations = [] }
            var i = 0
            while true {
                if !c.isReading && i == operations.count {
                    var end: UInt8 = 0
                    try c.ue(&end, SyntaxName("memory_management_control_operation", i), 0...0)
                    return
                }
                guard i < Self.maxOperations else {
                    throw H264Error.invalid(.limitExceeded, "more than \(Self.maxOperations) memory_management_control_operations")
                }
                var op = c.isReading ? Operation(operation: 0) : operations[i]
                try c.ue(&op.operation, SyntaxName("memory_management_control_operation", i), c.isReading ? 0...6 : 1...6)
                if op.operation == 0 { return }
                if op.operation == 1 || op.operation == 3 {
                    try c.ue(&op.differenceOfPicNumsMinus1, SyntaxName("difference_of_pic_nums_minus1", i), 0...(UInt32.max - 1))
                }
                if op.operation == 2 {
                    try c.ue(&op.longTermPicNum, SyntaxName("long_term_pic_num", i), 0...(UInt32.max - 1))
                }
                if op.operation == 3 || op.operation == 6 {
                    try c.ue(&op.longTermFrameIdx, SyntaxName("long_term_frame_idx", i), 0...(UInt32.max - 1))
                }
                if op.operation == 4 {
                    try c.ue(&op.maxLongTermFrameIdxPlus1, SyntaxName("max_long_term_frame_idx_plus1", i), 0...(UInt32.max - 1))
                }
                if c.isReading { operations.append(op) }
                i &+= 1  // <= maxOperations
            }
        }
    }

    /// `original_idr_flag`.
    public var originalIDR = false
    /// `original_frame_num`.
    public var originalFrameNum: UInt32 = 0
    /// `original_field_pic_flag` (coded when not ``frameMBsOnly``).
    public var originalFieldPic = false
    /// `original_bottom_field_flag` (coded when ``originalFieldPic``).
    public var originalBottomField = false
    /// The repeated `dec_ref_pic_marking()`.
    public var marking = Marking()
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
        try marking.code(&c, idr: originalIDR)
    }
}
