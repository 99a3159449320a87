/// Choosing `primary_pic_type` and writing an access unit delimiter NAL unit.
extension AccessUnitDelimiter {
    /// The slice types (`slice_type % 5`: 0 P, 1 B, 2 I, 3 SP, 4 SI) each `primary_pic_type`
    /// allows (Table 7-5), as bit sets indexed by `slice_type % 5`.
    static let allowedSliceTypes: [UInt8] = [
        0b00100,  // 0: I
        0b00101,  // 1: I, P
        0b00111,  // 2: I, P, B
        0b10000,  // 3: SI
        0b11000,  // 4: SI, SP
        0b10100,  // 5: I, SI
        0b11101,  // 6: I, SI, P, SP
        0b11111,  // 7: I, SI, P, SP, B
    ]

    /// The delimiter for a primary picture whose slices have `sliceTypes` (`slice_type` values
    /// 0...9): the first `primary_pic_type` of Table 7-5 that allows all of them (7 when there
    /// are none or a value is out of range).
    /// - Complexity: O(slice types).
    public init<S: Sequence>(sliceTypes: S) where S.Element == UInt8 {
        var present: UInt8 = 0
        for t in sliceTypes {
            guard t <= 9 else { self.init(primaryPicType: 7); return }
            present |= 1 << (t % 5)
        }
        guard present != 0 else { self.init(primaryPicType: 7); return }
        let type = Self.allowedSliceTypes.firstIndex { $0 & present == present } ?? 7
        self.init(primaryPicType: UInt8(type))
    }

    /// The delimiter as a NAL unit (`nal_ref_idc` 0, `nal_unit_type` 9) with its RBSP.
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for a ``primaryPicType`` above 7.
    public func nalUnit() throws(H264Error) -> NALUnit {
        try nalUnit(header: NALUnitHeader(nalRefIdc: 0, nalUnitType: .accessUnitDelimiter), context: .empty)
    }
}
