/// Choosing `primary_pic_type` and writing an access unit delimiter NAL unit.
extension AccessUnitDelimiter {
    /// The delimiter for a primary picture whose slices have `sliceTypes` (`slice_type` values
    /// 0...9): the first `primary_pic_type` of Table 7-5 that allows all of them (7 when there
    /// are none or a value is out of range).
    /// - Complexity: O(slice types).
    public init<S: Sequence>(sliceTypes: S) where S.Element == UInt8 {
        var kinds: [SliceType.Kind] = []
        for t in sliceTypes {
            guard let type = SliceType(rawValue: t) else { self.init(primaryPicType: .any); return }
            kinds.append(type.kind)
        }
        self.init(primaryPicType: PrimaryPicType(allowing: kinds))
    }

    /// The delimiter as a NAL unit (`nal_ref_idc` 0, `nal_unit_type` 9) with its RBSP.
    /// - Throws: never in practice (every ``PrimaryPicType`` fits its three bits).
    public func nalUnit() throws(H264Error) -> NALUnit {
        try nalUnit(header: NALUnitHeader(nalRefIdc: 0, nalUnitType: .accessUnitDelimiter), context: .empty)
    }
}
