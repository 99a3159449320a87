/// `ref_pic_list_modification()` (7.3.3.1) for one list, and its MVC form
/// `ref_pic_list_mvc_modification()` (H.7.3.3.1.1), which adds operations 4 and 5.
public struct RefPicListModification: Sendable, Hashable {
    /// One modification: `modification_of_pic_nums_idc` and the value that goes with it.
    public struct Operation: Sendable, Hashable {
        /// `modification_of_pic_nums_idc` (0, 1, 2, or 4, 5 in MVC; 3 ends the list and is not stored).
        public var idc: UInt8
        /// `abs_diff_pic_num_minus1` (idc 0, 1), `long_term_pic_num` (idc 2) or
        /// `abs_diff_view_idx_minus1` (idc 4, 5).
        public var value: UInt32
        /// Creates an operation.
        public init(idc: UInt8, value: UInt32) { self.idc = idc; self.value = value }
    }

    /// The operations before the terminating `modification_of_pic_nums_idc` 3.
    public var operations: [Operation] = []

    /// The cap on operations in one list (the specification allows at most
    /// `num_ref_idx_lX_active_minus1 + 1`, at most 32; MVC can add inter-view ones).
    public static let maxOperations = 64

    /// Creates an empty modification list.
    public init(operations: [Operation] = []) { self.operations = operations }

    /// Codes the operations and the terminating 3. Element names carry no subscripts, as in
    /// FFmpeg's trace. Reading replaces the operations, reusing their storage: reading into a
    /// list with room allocates nothing.
    /// - Complexity: O(operations), at most ``maxOperations``.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, mvc: Bool) throws(H264Error) {
        if c.isReading && !operations.isEmpty { operations.removeAll(keepingCapacity: true) }
        var i = 0
        while true {
            var idc: UInt8 = 3
            if !c.isReading, i < operations.count {
                idc = operations[i].idc
                // 3 ends the list: one stored would cut the operations after it.
                guard idc != 3 else { throw .outOfRange("modification_of_pic_nums_idc of an operation", 3) }
            }
            try c.ue(&idc, "modification_of_pic_nums_idc", 0...(mvc ? 5 : 3))
            if idc == 3 { break }
            guard i < Self.maxOperations else {
                throw c.failure { H264Error.invalid(.limitExceeded, "more than \(Self.maxOperations) reference list modifications") }
            }
            var value: UInt32 = c.isReading ? 0 : operations[i].value
            switch idc {
            case 0, 1: try c.ue(&value, "abs_diff_pic_num_minus1", 0...131_071)
            case 2: try c.ue(&value, "long_term_pic_num", 0...131_071)
            default: try c.ue(&value, "abs_diff_view_idx_minus1", 0...1023)
            }
            if c.isReading { operations.append(Operation(idc: idc, value: value)) }
            i &+= 1
        }
    }
}
