/// `dec_ref_pic_marking()` (7.3.3.3).
public struct DecRefPicMarking: Sendable, Hashable {
    /// One memory management control operation.
    public struct Operation: Sendable, Hashable {
        /// `memory_management_control_operation` (1...6; 0 ends the list and is not stored).
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

    /// `no_output_of_prior_pics_flag` (IDR pictures).
    public var noOutputOfPriorPicsFlag = false
    /// `long_term_reference_flag` (IDR pictures).
    public var longTermReferenceFlag = false
    /// `adaptive_ref_pic_marking_mode_flag` (non-IDR pictures).
    public var adaptiveRefPicMarkingModeFlag = false
    /// The operations before the terminating 0.
    public var operations: [Operation] = []

    /// The cap on operations (FFmpeg's limit).
    public static let maxOperations = 66

    /// Creates an empty marking.
    public init() {}

    /// The syntax of 7.3.3.3. Element names carry no subscripts, as in FFmpeg's trace.
    ///
    /// Reading sets every field, whatever the marking held before (the flags not coded become
    /// false), and reuses the storage of ``operations``: reading into a marking whose list has
    /// room allocates nothing.
    /// - Complexity: O(operations), at most ``maxOperations``.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, idrPicFlag: Bool) throws(H264Error) {
        try Self.code(&c, idrPicFlag: idrPicFlag, noOutputOfPriorPicsFlag: &noOutputOfPriorPicsFlag,
                      longTermReferenceFlag: &longTermReferenceFlag, adaptiveRefPicMarkingModeFlag: &adaptiveRefPicMarkingModeFlag,
                      operations: &operations)
    }

    /// ``code(_:idrPicFlag:)`` over the marking's parts, wherever they are kept (a
    /// ``SliceHeader`` keeps them packed: it codes its marking in place through this).
    static func code<C: SyntaxCoder>(_ c: inout C, idrPicFlag: Bool, noOutputOfPriorPicsFlag: inout Bool,
                                     longTermReferenceFlag: inout Bool, adaptiveRefPicMarkingModeFlag: inout Bool,
                                     operations: inout [Operation]) throws(H264Error) {
        if c.isReading {
            noOutputOfPriorPicsFlag = false
            longTermReferenceFlag = false
            adaptiveRefPicMarkingModeFlag = false
            if !operations.isEmpty { operations.removeAll(keepingCapacity: true) }
        }
        if idrPicFlag {
            try c.flag(&noOutputOfPriorPicsFlag, "no_output_of_prior_pics_flag")
            try c.flag(&longTermReferenceFlag, "long_term_reference_flag")
        } else {
            try c.flag(&adaptiveRefPicMarkingModeFlag, "adaptive_ref_pic_marking_mode_flag")
        }
        guard !idrPicFlag && adaptiveRefPicMarkingModeFlag else {
            // No operation is coded: the list is empty.
            if !operations.isEmpty { try c.infer(&operations, [], "memory_management_control_operation") }
            return
        }
        let any: ClosedRange<UInt32> = 0...(UInt32.max &- 1)
        var i = 0
        while true {
            var op = Operation(operation: 0)
            if !c.isReading, i < operations.count {
                op = operations[i]
                // 0 ends the list: one stored would cut the operations after it.
                guard op.operation != 0 else { throw .outOfRange("memory_management_control_operation of an operation", 0) }
            }
            try c.ue(&op.operation, "memory_management_control_operation", 0...6)
            if op.operation == 0 { break }
            guard i < Self.maxOperations else {
                throw c.failure { H264Error.invalid(.limitExceeded, "more than \(Self.maxOperations) memory management operations") }
            }
            let m = op.operation
            if m == 1 || m == 3 { try c.ue(&op.differenceOfPicNumsMinus1, "difference_of_pic_nums_minus1", any) }
            if m == 2 { try c.ue(&op.longTermPicNum, "long_term_pic_num", any) }
            if m == 3 || m == 6 { try c.ue(&op.longTermFrameIdx, "long_term_frame_idx", any) }
            if m == 4 { try c.ue(&op.maxLongTermFrameIdxPlus1, "max_long_term_frame_idx_plus1", any) }
            if c.isReading { operations.append(op) }
            i &+= 1
        }
    }
}
