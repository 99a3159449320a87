import H264

extension StreamBuilder {
    /// The kind of every slice of a built picture (`slice_type % 5`).
    public typealias SliceKind = SliceType.Kind

    /// How a picture is coded: a frame (MBAFF when the SPS says so) or one field.
    public enum Structure: Sendable, Hashable {
        /// A frame (`field_pic_flag` 0).
        case frame
        /// A top field (`field_pic_flag` 1, `bottom_field_flag` 0).
        case topField
        /// A bottom field (`field_pic_flag` 1, `bottom_field_flag` 1).
        case bottomField
    }

    /// One picture (one access unit) to build. Unset values are chosen automatically.
    public struct Picture: Sendable, Hashable {
        /// The kind of every slice.
        public var kind: SliceKind
        /// `slice_type` is written as kind + 5 (every slice of the picture has the same type).
        public var sliceTypeAllSame = false
        /// An IDR picture (nal_unit_type 5; I or SI only).
        public var idr = false
        /// `nal_ref_idc`; nil picks 3 for IDR, 2 for I/P/SP/SI, 0 for B.
        public var nalRefIdc: UInt8?
        /// `frame_num`; nil continues from the previous reference picture (0 at an IDR, the
        /// first field's value for a second field).
        public var frameNum: UInt32?
        /// The picture order count (TopFieldOrderCnt of a frame or top field,
        /// BottomFieldOrderCnt of a bottom field); nil means output order = decoding order
        /// (2 per frame since the last IDR, +1 for a bottom field). POC type 2 derives it from
        /// `frame_num`, so a value there must be the derived one.
        public var poc: Int64?
        /// `idr_pic_id`; nil counts IDR pictures (a second IDR field reuses its first field's).
        public var idrPicID: UInt32?
        /// A recovery-point SEI message to put before the slices.
        public var recoveryPoint: SEIRecoveryPoint?
        /// Slices in the picture (first_mb_in_slice spreads them evenly).
        public var sliceCount = 1
        /// Frame, top field or bottom field.
        public var structure: Structure = .frame
        /// `slice_qp_delta` of every slice.
        public var sliceQpDelta: Int8 = 0

        /// Creates a picture description.
        public init(_ kind: SliceKind, idr: Bool = false, nalRefIdc: UInt8? = nil, frameNum: UInt32? = nil, poc: Int64? = nil,
                    recoveryPoint: SEIRecoveryPoint? = nil, sliceCount: Int = 1, structure: Structure = .frame) {
            self.kind = kind
            self.idr = idr
            self.nalRefIdc = nalRefIdc
            self.frameNum = frameNum
            self.poc = poc
            self.recoveryPoint = recoveryPoint
            self.sliceCount = sliceCount
            self.structure = structure
        }
    }

    /// What was written for one picture: the slice headers as the real writer coded them and
    /// the picture order count a decoder derives (8.2.1).
    public struct BuiltPicture: Sendable {
        /// The NAL unit type of the slices (1 or 5).
        public var nalUnitType: UInt8
        /// `nal_ref_idc` of the slices.
        public var nalRefIdc: UInt8
        /// One header per slice.
        public var sliceHeaders: [SliceHeader]
        /// The decoded picture order counts.
        public var poc: PictureOrderCount
    }
}
