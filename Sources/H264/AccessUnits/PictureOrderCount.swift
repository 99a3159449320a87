/// The SPS values that picture order count decoding (8.2.1) needs.
public struct POCParameters: Sendable, Hashable {
    /// `pic_order_cnt_type` (0, 1 or 2).
    public var picOrderCntType: Int
    /// `MaxFrameNum` = 2^(log2_max_frame_num_minus4 + 4).
    public var maxFrameNum: Int64
    /// `MaxPicOrderCntLsb` = 2^(log2_max_pic_order_cnt_lsb_minus4 + 4) (type 0).
    public var maxPicOrderCntLsb: Int64
    /// `offset_for_non_ref_pic` (type 1).
    public var offsetForNonRefPic: Int64
    /// `offset_for_top_to_bottom_field` (type 1).
    public var offsetForTopToBottomField: Int64
    /// `offset_for_ref_frame[i]` (type 1), at most 255 entries.
    public var offsetForRefFrame: [Int64]

    /// Creates the parameters.
    public init(picOrderCntType: Int, maxFrameNum: Int64, maxPicOrderCntLsb: Int64 = 16,
                offsetForNonRefPic: Int64 = 0, offsetForTopToBottomField: Int64 = 0, offsetForRefFrame: [Int64] = []) {
        self.picOrderCntType = picOrderCntType
        self.maxFrameNum = maxFrameNum
        self.maxPicOrderCntLsb = maxPicOrderCntLsb
        self.offsetForNonRefPic = offsetForNonRefPic
        self.offsetForTopToBottomField = offsetForTopToBottomField
        self.offsetForRefFrame = offsetForRefFrame
    }
}

/// The slice-header values of one picture that picture order count decoding needs.
public struct POCInputs: Sendable, Hashable {
    /// IdrPicFlag: the picture is an IDR picture.
    public var isIDR: Bool
    /// `nal_ref_idc` is nonzero.
    public var isReference: Bool
    /// `frame_num`.
    public var frameNum: Int64
    /// `field_pic_flag`.
    public var fieldPic: Bool
    /// `bottom_field_flag`.
    public var bottomField: Bool
    /// `pic_order_cnt_lsb` (type 0).
    public var picOrderCntLsb: Int64
    /// `delta_pic_order_cnt_bottom` (type 0).
    public var deltaPicOrderCntBottom: Int64
    /// `delta_pic_order_cnt[0]` and `[1]` (type 1).
    public var deltaPicOrderCnt0: Int64
    /// `delta_pic_order_cnt[1]` (type 1).
    public var deltaPicOrderCnt1: Int64
    /// The picture's `dec_ref_pic_marking()` holds `memory_management_control_operation` 5.
    public var hasMMCO5: Bool

    /// Creates the inputs.
    public init(isIDR: Bool, isReference: Bool, frameNum: Int64, fieldPic: Bool = false, bottomField: Bool = false,
                picOrderCntLsb: Int64 = 0, deltaPicOrderCntBottom: Int64 = 0,
                deltaPicOrderCnt0: Int64 = 0, deltaPicOrderCnt1: Int64 = 0, hasMMCO5: Bool = false) {
        self.isIDR = isIDR
        self.isReference = isReference
        self.frameNum = frameNum
        self.fieldPic = fieldPic
        self.bottomField = bottomField
        self.picOrderCntLsb = picOrderCntLsb
        self.deltaPicOrderCntBottom = deltaPicOrderCntBottom
        self.deltaPicOrderCnt0 = deltaPicOrderCnt0
        self.deltaPicOrderCnt1 = deltaPicOrderCnt1
        self.hasMMCO5 = hasMMCO5
    }
}

/// The picture order counts of one picture (8.2.1): the value ``PictureOrderCountDecoder``
/// computes.
public struct PictureOrderCount: Sendable, Hashable {
    /// `TopFieldOrderCnt` (meaningless for a bottom field).
    public var top: Int64
    /// `BottomFieldOrderCnt` (meaningless for a top field).
    public var bottom: Int64
    /// `PicOrderCnt(CurrPic)`: the smaller of the two for a frame, the field's own for a field.
    public var value: Int64
}

/// The decoding process for picture order count (8.2.1): computes each picture's
/// ``PictureOrderCount`` picture by picture, in decoding order, keeping the state that
/// 8.2.1.1 (type 0), 8.2.1.2 (type 1) and 8.2.1.3 (type 2) carry from one picture to the next,
/// including the effect of `memory_management_control_operation` 5 and `frame_num` wrapping.
///
/// Arithmetic is done in `Int64` with wrapping operations: hostile streams get meaningless
/// counts, never a trap.
public struct PictureOrderCountDecoder: Sendable {
    // Type 0 state: of the previous reference picture.
    private var prevPicOrderCntMsb: Int64 = 0
    private var prevPicOrderCntLsb: Int64 = 0
    // Types 1 and 2 state: of the previous picture.
    private var prevFrameNumOffset: Int64 = 0
    private var prevFrameNum: Int64 = 0
    private var prevHadMMCO5 = false

    /// Creates a decoder at the start of a stream.
    public init() {}

    /// Computes the counts of the next picture in decoding order and updates the state.
    /// - Complexity: O(1), or O(`num_ref_frames_in_pic_order_cnt_cycle`) for type 1.
    public mutating func next(_ pic: POCInputs, _ params: POCParameters) -> PictureOrderCount {
        var top: Int64 = 0
        var bottom: Int64 = 0
        switch params.picOrderCntType {
        case 0:
            if pic.isIDR {
                prevPicOrderCntMsb = 0
                prevPicOrderCntLsb = 0
            }
            let maxLsb = params.maxPicOrderCntLsb
            let lsb = pic.picOrderCntLsb
            var msb: Int64
            if lsb < prevPicOrderCntLsb && (prevPicOrderCntLsb &- lsb) >= maxLsb / 2 {
                msb = prevPicOrderCntMsb &+ maxLsb
            } else if lsb > prevPicOrderCntLsb && (lsb &- prevPicOrderCntLsb) > maxLsb / 2 {
                msb = prevPicOrderCntMsb &- maxLsb
            } else {
                msb = prevPicOrderCntMsb
            }
            if !pic.fieldPic {
                top = msb &+ lsb
                bottom = top &+ pic.deltaPicOrderCntBottom
            } else if !pic.bottomField {
                top = msb &+ lsb
            } else {
                bottom = msb &+ lsb
            }
            if pic.isReference {
                if pic.hasMMCO5 {
                    // 8.2.1.1: after mmco 5 the next picture sees Msb 0 and, unless this was a
                    // bottom field, Lsb = TopFieldOrderCnt after the mmco-5 adjustment.
                    prevPicOrderCntMsb = 0
                    if pic.fieldPic && pic.bottomField {
                        prevPicOrderCntLsb = 0
                    } else {
                        let temp = pic.fieldPic ? top : Swift.min(top, bottom)
                        prevPicOrderCntLsb = top &- temp
                    }
                } else {
                    prevPicOrderCntMsb = msb
                    prevPicOrderCntLsb = lsb
                }
            }
        case 1:
            let offset = frameNumOffset(pic, params)
            let cycle = params.offsetForRefFrame
            var absFrameNum: Int64 = cycle.isEmpty ? 0 : offset &+ pic.frameNum
            if !pic.isReference && absFrameNum > 0 { absFrameNum &-= 1 }
            var expected: Int64 = 0
            if absFrameNum > 0 {
                let n = Int64(cycle.count)
                let cycleCnt = (absFrameNum &- 1) / n
                let inCycle = Int((absFrameNum &- 1) % n)
                var deltaPerCycle: Int64 = 0
                for o in cycle { deltaPerCycle &+= o }
                expected = cycleCnt &* deltaPerCycle
                for i in 0...inCycle { expected &+= cycle[i] }
            }
            if !pic.isReference { expected &+= params.offsetForNonRefPic }
            if !pic.fieldPic {
                top = expected &+ pic.deltaPicOrderCnt0
                bottom = top &+ params.offsetForTopToBottomField &+ pic.deltaPicOrderCnt1
            } else if !pic.bottomField {
                top = expected &+ pic.deltaPicOrderCnt0
            } else {
                bottom = expected &+ params.offsetForTopToBottomField &+ pic.deltaPicOrderCnt0
            }
            finishFrameNumState(pic, offset)
        default:
            let offset = frameNumOffset(pic, params)
            let temp: Int64
            if pic.isIDR { temp = 0 }
            else if !pic.isReference { temp = 2 &* (offset &+ pic.frameNum) &- 1 }
            else { temp = 2 &* (offset &+ pic.frameNum) }
            if !pic.fieldPic { top = temp; bottom = temp }
            else if pic.bottomField { bottom = temp }
            else { top = temp }
            finishFrameNumState(pic, offset)
        }
        let value: Int64 = !pic.fieldPic ? Swift.min(top, bottom) : (pic.bottomField ? bottom : top)
        return PictureOrderCount(top: top, bottom: bottom, value: value)
    }

    /// `FrameNumOffset` (8-6 / 8-11).
    private func frameNumOffset(_ pic: POCInputs, _ params: POCParameters) -> Int64 {
        if pic.isIDR { return 0 }
        let prevOffset: Int64 = prevHadMMCO5 ? 0 : prevFrameNumOffset
        let prevNum: Int64 = prevHadMMCO5 ? 0 : prevFrameNum
        return prevNum > pic.frameNum ? prevOffset &+ params.maxFrameNum : prevOffset
    }

    private mutating func finishFrameNumState(_ pic: POCInputs, _ offset: Int64) {
        prevFrameNumOffset = offset
        prevFrameNum = pic.frameNum
        prevHadMMCO5 = pic.hasMMCO5
    }
}

/// The decoding process for picture order count, now ``PictureOrderCountDecoder``.
@available(*, deprecated, renamed: "PictureOrderCountDecoder")
public typealias PictureOrderCounter = PictureOrderCountDecoder
