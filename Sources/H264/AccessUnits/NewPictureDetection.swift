/// The values of a slice header that 7.4.1.2.4 compares to find the first VCL NAL unit of a new
/// primary coded picture.
public struct SlicePictureFields: Sendable, Hashable {
    /// `nal_unit_type` is 5.
    public var isIDR: Bool
    /// `nal_ref_idc`.
    public var nalRefIdc: UInt8
    /// `pic_parameter_set_id`.
    public var picParameterSetId: Int
    /// `frame_num`.
    public var frameNum: Int64
    /// `field_pic_flag`.
    public var fieldPic: Bool
    /// `bottom_field_flag`.
    public var bottomField: Bool
    /// `idr_pic_id` (IDR pictures).
    public var idrPicId: Int64
    /// `pic_order_cnt_type` of the active SPS.
    public var picOrderCntType: Int
    /// `pic_order_cnt_lsb` (type 0).
    public var picOrderCntLsb: Int64
    /// `delta_pic_order_cnt_bottom` (type 0).
    public var deltaPicOrderCntBottom: Int64
    /// `delta_pic_order_cnt[0]` (type 1).
    public var deltaPicOrderCnt0: Int64
    /// `delta_pic_order_cnt[1]` (type 1).
    public var deltaPicOrderCnt1: Int64
    /// `redundant_pic_cnt`: nonzero for slices of a redundant coded picture.
    public var redundantPicCnt: Int
    /// `first_mb_in_slice`.
    public var firstMbInSlice: Int

    /// Creates the fields.
    public init(isIDR: Bool, nalRefIdc: UInt8, picParameterSetId: Int, frameNum: Int64, fieldPic: Bool = false,
                bottomField: Bool = false, idrPicId: Int64 = 0, picOrderCntType: Int = 0, picOrderCntLsb: Int64 = 0,
                deltaPicOrderCntBottom: Int64 = 0, deltaPicOrderCnt0: Int64 = 0, deltaPicOrderCnt1: Int64 = 0,
                redundantPicCnt: Int = 0, firstMbInSlice: Int = 0) {
        self.isIDR = isIDR
        self.nalRefIdc = nalRefIdc
        self.picParameterSetId = picParameterSetId
        self.frameNum = frameNum
        self.fieldPic = fieldPic
        self.bottomField = bottomField
        self.idrPicId = idrPicId
        self.picOrderCntType = picOrderCntType
        self.picOrderCntLsb = picOrderCntLsb
        self.deltaPicOrderCntBottom = deltaPicOrderCntBottom
        self.deltaPicOrderCnt0 = deltaPicOrderCnt0
        self.deltaPicOrderCnt1 = deltaPicOrderCnt1
        self.redundantPicCnt = redundantPicCnt
        self.firstMbInSlice = firstMbInSlice
    }

    /// True when a slice with these fields, following a slice of the primary coded picture
    /// `previous`, is the first VCL NAL unit of a new primary coded picture (7.4.1.2.4).
    ///
    /// Slices of redundant coded pictures (`redundant_pic_cnt > 0`) never start a picture: they
    /// belong to the access unit of their primary picture.
    public func startsNewPicture(after previous: SlicePictureFields) -> Bool {
        if redundantPicCnt > 0 { return false }
        if frameNum != previous.frameNum { return true }
        if picParameterSetId != previous.picParameterSetId { return true }
        if fieldPic != previous.fieldPic { return true }
        if fieldPic && bottomField != previous.bottomField { return true }
        if (nalRefIdc == 0) != (previous.nalRefIdc == 0) { return true }
        if picOrderCntType == 0 && previous.picOrderCntType == 0 {
            if picOrderCntLsb != previous.picOrderCntLsb { return true }
            if deltaPicOrderCntBottom != previous.deltaPicOrderCntBottom { return true }
        }
        if picOrderCntType == 1 && previous.picOrderCntType == 1 {
            if deltaPicOrderCnt0 != previous.deltaPicOrderCnt0 { return true }
            if deltaPicOrderCnt1 != previous.deltaPicOrderCnt1 { return true }
        }
        if isIDR != previous.isIDR { return true }
        if isIDR && previous.isIDR && idrPicId != previous.idrPicId { return true }
        return false
    }
}
