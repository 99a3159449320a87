/// A slice header: `slice_header()` (7.3.3), for nal_unit_type 1 and 5 (and the MVC form of
/// type 20, with `ref_pic_list_mvc_modification()`).
///
/// The header cannot be coded alone: its field widths and presence come from the PPS it names
/// and that PPS's SPS, looked up in the ``SyntaxContext`` (a ``ParameterSetStore``), and from
/// its NAL unit header (``nalUnitHeader``), as in FFmpeg's coded bitstream layer. For CABAC
/// slices the `cabac_alignment_one_bit`s that precede `slice_data()` are coded too (as FFmpeg
/// traces them), so the header always ends where the slice data starts.
///
/// The scalar values are kept packed, each at the full width of its property's type (any value
/// a property can hold reads back exactly): copying or dropping a header moves a few machine
/// words and two references, whichever module does it.
public struct SliceHeader: SyntaxStructure {
    // A stored property added here must also be reset in `resetForReading(nalUnitHeader:)` and
    // compared in `==`.
    /// Every scalar value, packed (lanes in ``SliceHeaderFields``).
    @usableFromInline var fields = SliceHeaderFields()
    /// The lists that most slices leave empty (modifications, weights) behind one reference,
    /// nil while they are empty; the table stays in it while absent (for headers parsed into
    /// again, ``parse(_:context:into:)``).
    var lists = SliceHeaderLists()
    /// The operations of ``decRefPicMarking`` (coded by every reference slice: kept in the header,
    /// coded in place); kept, with their storage, while the marking is absent.
    var markingOperations: [DecRefPicMarking.Operation] = []

    /// The NAL unit header the slice comes with. The syntax depends on it (`IdrPicFlag`, the MVC
    /// form of type 20, `dec_ref_pic_marking()` when `nal_ref_idc` is not 0); it precedes the
    /// RBSP and is not coded by ``code(_:context:)``. Its type must be 1, 5 or 20 (MVC).
    @inlinable public var nalUnitHeader: NALUnitHeader {
        get {
            var h = NALUnitHeader()
            h.forbiddenZeroBit = fields[byte: 36]
            h.nalRefIdc = fields[byte: 37]
            h.nalUnitType = NALUnitType(rawValue: fields[byte: 38])
            h.extensionFlag = fields[flag: 39]
            h.extensionBits = fields[word: 8]
            return h
        }
        set {
            fields[byte: 36] = newValue.forbiddenZeroBit
            fields[byte: 37] = newValue.nalRefIdc
            fields[byte: 38] = newValue.nalUnitType.rawValue
            fields[flag: 39] = newValue.extensionFlag
            fields[word: 8] = newValue.extensionBits
        }
    }
    /// `first_mb_in_slice`.
    @inlinable public var firstMbInSlice: UInt32 {
        get { fields[word: 0] }
        set { fields[word: 0] = newValue }
    }
    /// `slice_type` (0...9; 5...9 mean every slice of the picture has the same type).
    @inlinable public var sliceType: SliceType {
        get { SliceType(uncheckedRawValue: fields[byte: 40]) }
        set { fields[byte: 40] = newValue.rawValue }
    }
    /// `pic_parameter_set_id` (0...255).
    @inlinable public var ppsID: UInt8 {
        get { fields[byte: 41] }
        set { fields[byte: 41] = newValue }
    }
    /// `colour_plane_id` (0...2, with `separate_colour_plane_flag`).
    @inlinable public var colourPlaneID: UInt8 {
        get { fields[byte: 42] }
        set { fields[byte: 42] = newValue }
    }
    /// `frame_num` (`log2_max_frame_num_minus4 + 4` bits).
    @inlinable public var frameNum: UInt32 {
        get { fields[word: 1] }
        set { fields[word: 1] = newValue }
    }
    /// `field_pic_flag`.
    @inlinable public var fieldPicFlag: Bool {
        get { fields[flag: 52] }
        set { fields[flag: 52] = newValue }
    }
    /// `bottom_field_flag`.
    @inlinable public var bottomFieldFlag: Bool {
        get { fields[flag: 53] }
        set { fields[flag: 53] = newValue }
    }
    /// `idr_pic_id` (0...65535, IDR pictures).
    @inlinable public var idrPicID: UInt32 {
        get { fields[word: 2] }
        set { fields[word: 2] = newValue }
    }
    /// `pic_order_cnt_lsb` (POC type 0).
    @inlinable public var picOrderCntLsb: UInt32 {
        get { fields[word: 3] }
        set { fields[word: 3] = newValue }
    }
    /// `delta_pic_order_cnt_bottom` (POC type 0).
    @inlinable public var deltaPicOrderCntBottom: Int32 {
        get { Int32(bitPattern: fields[word: 4]) }
        set { fields[word: 4] = UInt32(bitPattern: newValue) }
    }
    /// `delta_pic_order_cnt[0]` (POC type 1).
    @inlinable public var deltaPicOrderCnt0: Int32 {
        get { Int32(bitPattern: fields[word: 5]) }
        set { fields[word: 5] = UInt32(bitPattern: newValue) }
    }
    /// `delta_pic_order_cnt[1]` (POC type 1).
    @inlinable public var deltaPicOrderCnt1: Int32 {
        get { Int32(bitPattern: fields[word: 6]) }
        set { fields[word: 6] = UInt32(bitPattern: newValue) }
    }
    /// `redundant_pic_cnt` (0...127).
    @inlinable public var redundantPicCnt: UInt8 {
        get { fields[byte: 43] }
        set { fields[byte: 43] = newValue }
    }
    /// `direct_spatial_mv_pred_flag` (B slices).
    @inlinable public var directSpatialMvPredFlag: Bool {
        get { fields[flag: 54] }
        set { fields[flag: 54] = newValue }
    }
    /// `num_ref_idx_active_override_flag`.
    @inlinable public var numRefIdxActiveOverrideFlag: Bool {
        get { fields[flag: 55] }
        set { fields[flag: 55] = newValue }
    }
    /// `num_ref_idx_l0_active_minus1` (coded or the PPS default).
    @inlinable public var numRefIdxL0ActiveMinus1: UInt8 {
        get { fields[byte: 44] }
        set { fields[byte: 44] = newValue }
    }
    /// `num_ref_idx_l1_active_minus1` (coded or the PPS default).
    @inlinable public var numRefIdxL1ActiveMinus1: UInt8 {
        get { fields[byte: 45] }
        set { fields[byte: 45] = newValue }
    }
    /// `ref_pic_list_modification_flag_l0`.
    @inlinable public var refPicListModificationFlagL0: Bool {
        get { fields[flag: 56] }
        set { fields[flag: 56] = newValue }
    }
    /// The list 0 modifications.
    public var refPicListModificationL0: RefPicListModification {
        get { lists.modificationL0 }
        set { lists.set(\.modificationL0, newValue) }
        _modify { yield &lists.uniqueStorage().modificationL0 }
    }
    /// `ref_pic_list_modification_flag_l1`.
    @inlinable public var refPicListModificationFlagL1: Bool {
        get { fields[flag: 57] }
        set { fields[flag: 57] = newValue }
    }
    /// The list 1 modifications.
    public var refPicListModificationL1: RefPicListModification {
        get { lists.modificationL1 }
        set { lists.set(\.modificationL1, newValue) }
        _modify { yield &lists.uniqueStorage().modificationL1 }
    }
    /// The weights, when the PPS asks for explicit weighted prediction for this slice type.
    public var predWeightTable: PredWeightTable? {
        get { lists.hasPredWeightTable ? lists.predWeightTableContent : nil }
        set {
            lists.hasPredWeightTable = newValue != nil
            if let newValue { lists.set(\.predWeightTable, newValue) }
        }
        _modify {
            var moved = lists.take(\.predWeightTable, present: \.hasPredWeightTable)
            defer { predWeightTable = moved }
            yield &moved
        }
    }
    /// `dec_ref_pic_marking()`, when `nal_ref_idc` is not 0.
    public var decRefPicMarking: DecRefPicMarking? {
        get {
            guard hasDecRefPicMarking else { return nil }
            var m = DecRefPicMarking()
            m.noOutputOfPriorPicsFlag = fields[flag: 60]
            m.longTermReferenceFlag = fields[flag: 61]
            m.adaptiveRefPicMarkingModeFlag = fields[flag: 62]
            m.operations = markingOperations
            return m
        }
        set {
            guard let newValue else {
                fields[word: 15] = 0  // absent: its flags 0 (`==` relies on it); the operations' storage stays
                return
            }
            fields[flag: 60] = newValue.noOutputOfPriorPicsFlag
            fields[flag: 61] = newValue.longTermReferenceFlag
            fields[flag: 62] = newValue.adaptiveRefPicMarkingModeFlag
            fields[flag: 63] = true
            markingOperations = newValue.operations
        }
        _modify {
            // Moved out and back: the operations are not copied.
            var moved: DecRefPicMarking?
            if hasDecRefPicMarking {
                var m = DecRefPicMarking()
                m.noOutputOfPriorPicsFlag = fields[flag: 60]
                m.longTermReferenceFlag = fields[flag: 61]
                m.adaptiveRefPicMarkingModeFlag = fields[flag: 62]
                swap(&m.operations, &markingOperations)
                moved = m
            }
            defer { decRefPicMarking = moved }
            yield &moved
        }
    }
    /// Whether ``decRefPicMarking`` is there.
    var hasDecRefPicMarking: Bool {
        get { fields[flag: 63] }
        set { fields[flag: 63] = newValue }
    }
    /// `cabac_init_idc` (0...2).
    @inlinable public var cabacInitIDC: UInt8 {
        get { fields[byte: 46] }
        set { fields[byte: 46] = newValue }
    }
    /// `slice_qp_delta`.
    @inlinable public var sliceQpDelta: Int8 {
        get { Int8(bitPattern: fields[byte: 47]) }
        set { fields[byte: 47] = UInt8(bitPattern: newValue) }
    }
    /// `sp_for_switch_flag` (SP slices).
    @inlinable public var spForSwitchFlag: Bool {
        get { fields[flag: 58] }
        set { fields[flag: 58] = newValue }
    }
    /// `slice_qs_delta` (SP and SI slices).
    @inlinable public var sliceQsDelta: Int8 {
        get { Int8(bitPattern: fields[byte: 48]) }
        set { fields[byte: 48] = UInt8(bitPattern: newValue) }
    }
    /// `disable_deblocking_filter_idc` (0...2).
    @inlinable public var disableDeblockingFilterIDC: UInt8 {
        get { fields[byte: 49] }
        set { fields[byte: 49] = newValue }
    }
    /// `slice_alpha_c0_offset_div2` (-6...6).
    @inlinable public var sliceAlphaC0OffsetDiv2: Int8 {
        get { Int8(bitPattern: fields[byte: 50]) }
        set { fields[byte: 50] = UInt8(bitPattern: newValue) }
    }
    /// `slice_beta_offset_div2` (-6...6).
    @inlinable public var sliceBetaOffsetDiv2: Int8 {
        get { Int8(bitPattern: fields[byte: 51]) }
        set { fields[byte: 51] = UInt8(bitPattern: newValue) }
    }
    /// `slice_group_change_cycle` (slice group map types 3-5).
    @inlinable public var sliceGroupChangeCycle: UInt32 {
        get { fields[word: 7] }
        set { fields[word: 7] = newValue }
    }

    /// Creates the header of an I slice of a non-reference, non-IDR picture (`nal_unit_type`
    /// 1, `nal_ref_idc` 0) with default values.
    public init() { self.init(nalUnitHeader: NALUnitHeader(nalRefIdc: 0, nalUnitType: .slice)) }

    /// Creates a header with default values for a slice of the NAL unit header `nalUnitHeader`.
    @inline(__always)
    public init(nalUnitHeader: NALUnitHeader) {
        fields = SliceHeaderFields(nalUnitHeader: nalUnitHeader, sliceType: .i)
    }

    /// `IdrPicFlag`: the slice belongs to an IDR picture (type 5, or type 20 with
    /// `non_idr_flag` 0).
    @inlinable public var idrPicFlag: Bool { fields.idrPicFlag }

    /// `slice_type % 5`: P, B, I, SP or SI.
    @inlinable public var sliceKind: SliceType.Kind { sliceType.kind }
    /// A P slice.
    @inlinable public var isP: Bool { sliceKind == .p }
    /// A B slice.
    @inlinable public var isB: Bool { sliceKind == .b }
    /// An I slice.
    @inlinable public var isI: Bool { sliceKind == .i }
    /// An SP slice.
    @inlinable public var isSP: Bool { sliceKind == .sp }
    /// An SI slice.
    @inlinable public var isSI: Bool { sliceKind == .si }

    /// `memory_management_control_operation` 5 is among the marking's operations (read in place:
    /// no copy of the marking).
    var hasMMCO5: Bool {
        hasDecRefPicMarking && markingOperations.contains { $0.operation == 5 }
    }

    /// The number of bits of `slice_group_change_cycle`:
    /// Ceil(Log2(PicSizeInMapUnits ÷ SliceGroupChangeRate + 1)), exact in integers.
    public static func sliceGroupChangeCycleBits(picSizeInMapUnits: Int, changeRate: Int) -> Int {
        // The smallest b with (2^b - 1) * rate >= picSize; picSize <= 2^24 and rate <= 2^32,
        // so b <= 25 and every product fits in 64 bits.
        var b = 0
        while b < 32 && ((1 << b) &- 1) &* changeRate < picSizeInMapUnits { b &+= 1 }
        return b
    }

    /// The syntax of 7.3.3, with the PPS it names and that PPS's SPS (the subset SPS for type
    /// 20) looked up in `context`. The context is not changed: making them the active parameter
    /// sets is ``ParameterSetStore/activate(_:)``.
    /// - Throws: ``H264Error/Code/missingParameterSet`` when the PPS or its SPS is unknown;
    ///   ``H264Error/Code/unsupported`` for a ``nalUnitHeader`` of another type or an SVC slice;
    ///   ``H264Error/Code/invalidBitstream`` for a P, B or SP slice in an IDR picture.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {
        var progress = 0
        let (sliceType, ppsID) = try codeLeadingElements(&c, progress: &progress)
        try code(remainderOf: &c, context: context, sliceType: sliceType, ppsID: ppsID)
    }

    /// What follows ``codeLeadingElements(_:progress:)``: the parameter sets looked up, then the
    /// rest of the header.
    @inline(__always)
    mutating func code<C: SyntaxCoder, Context: SyntaxContext>(remainderOf c: inout C, context: Context) throws(H264Error) {
        try code(remainderOf: &c, context: context, sliceType: sliceType, ppsID: ppsID)
    }

    /// ``code(remainderOf:context:)`` given the header's `slice_type` and `pic_parameter_set_id`
    /// as coded (not read back from the lanes just written: a byte stored and read back by a
    /// wider load stalls the processor).
    @inline(__always)
    mutating func code<C: SyntaxCoder, Context: SyntaxContext>(remainderOf c: inout C, context: Context,
                                                                sliceType: SliceType, ppsID: UInt8) throws(H264Error) {
        let subset = NALUnitType(rawValue: fields[byte: 38]) == .sliceExtension
        guard let parameterSets = context.sliceHeaderContext(ppsID: Int(ppsID), subset: subset) else {
            throw Self.missingParameterSet(ppsID: Int(ppsID), subset: subset, context: context)
        }
        try codeBody(&c, context: parameterSets, sliceType: sliceType)
    }

    /// The elements before anything depends on a parameter set: `first_mb_in_slice`,
    /// `slice_type` and `pic_parameter_set_id`. `progress` counts those coded (0...3), so that a
    /// partial reader knows which fields it got.
    /// - Returns: `slice_type` and `pic_parameter_set_id` as coded.
    /// - Throws: ``H264Error/Code/unsupported`` for a NAL unit type without this slice header.
    @inline(__always) @discardableResult
    mutating func codeLeadingElements<C: SyntaxCoder>(_ c: inout C, progress: inout Int) throws(H264Error) -> (SliceType, UInt8) {
        let type = NALUnitType(rawValue: fields[byte: 38])
        guard type == .slice || type == .idrSlice || (type == .sliceExtension && !fields[flag: 39]) else {
            throw Self.unsupported(nalUnitHeader)
        }
        try c.ue(&firstMbInSlice, "first_mb_in_slice", 0...(1 << 24))
        progress = 1
        // Values coded into locals and stored: reading a lane back costs more than keeping it
        // (see codeBody).
        var coded = c.isReading ? .i : sliceType
        try c.ue(&coded, "slice_type", 0...9)
        sliceType = coded
        progress = 2
        if !coded.isIntra && fields.idrPicFlag {  // not self.idrPicFlag: a getter on self copies the header
            throw H264Error.invalid(.invalidBitstream, "slice_type \(coded) in an IDR picture")
        }
        var id = c.isReading ? 0 : ppsID
        try c.ue(&id, "pic_parameter_set_id", 0...255)
        ppsID = id
        progress = 3
        return (coded, id)
    }

    @inline(never)
    static func unsupported(_ header: NALUnitHeader) -> H264Error {
        if header.nalUnitType == .sliceExtension { return H264Error.invalid(.unsupported, "SVC slice headers are not described") }
        return H264Error.invalid(.unsupported, "nal_unit_type \(header.nalUnitType.rawValue) has no slice header here")
    }

    @inline(never)
    static func missingParameterSet(ppsID: Int, subset: Bool, context: some SyntaxContext) -> H264Error {
        guard let pps = context.pps(id: ppsID) else { return H264Error.invalid(.missingParameterSet, "PPS \(ppsID) not available") }
        return H264Error.invalid(.missingParameterSet, "\(subset ? "subset " : "")SPS \(pps.spsID) (of PPS \(ppsID)) not available")
    }

    /// The part of 7.3.3 after `pic_parameter_set_id`, given what the SPS and PPS say.
    /// (Inlined into its one caller: the context is then read where the store keeps it, not
    /// copied to be passed.)
    @inline(__always)
    mutating func codeBody<C: SyntaxCoder>(_ c: inout C, context: SliceHeaderContext, sliceType: SliceType) throws(H264Error) {
        let nalRefIdc = fields[byte: 37]
        let idrPicFlag = fields.idrPicFlag  // not self.idrPicFlag: a getter on self copies the header
        let mvc = NALUnitType(rawValue: fields[byte: 38]) == .sliceExtension
        let sps = context, pps = context
        // The kind once, as locals: a getter on `self` inside this mutating function can cost a
        // copy of the header per call.
        let kind = sliceType.kind  // as coded, not read back
        let isP = kind == .p, isB = kind == .b, isI = kind == .i, isSP = kind == .sp, isSI = kind == .si
        // The lists are coded in place in their storage, when there is one (a storage shared
        // with a copy of the header is copied first); otherwise each coded list is read into
        // an empty value, stored only when not empty (a fresh header's usual case: no storage).
        lists.makeStorageUnique()
        // A byte lane coded by a reader is not read first (`c.isReading ? 0 : ...`): loading it
        // (for the value a failed read leaves) right after a neighbouring byte was stored
        // stalls the processor. (32-bit lanes are loaded at their width: no stall.)
        if sps.separateColourPlaneFlag {
            var plane = c.isReading ? 0 : colourPlaneID
            try c.u(2, &plane, "colour_plane_id", 0...2)
            colourPlaneID = plane
        }
        try c.u(sps.frameNumBits, &frameNum, "frame_num")
        var fieldPic = !c.isReading && fieldPicFlag
        if !sps.frameMbsOnlyFlag {
            try c.flag(&fieldPic, "field_pic_flag")
            fieldPicFlag = fieldPic
            if fieldPic {
                var bottom = !c.isReading && bottomFieldFlag
                try c.flag(&bottom, "bottom_field_flag")
                bottomFieldFlag = bottom
            } else {
                try c.infer(&bottomFieldFlag, false, "bottom_field_flag")
            }
        } else {
            try c.infer(&fieldPic, false, "field_pic_flag")
            fieldPicFlag = fieldPic
            try c.infer(&bottomFieldFlag, false, "bottom_field_flag")
        }
        if idrPicFlag { try c.ue(&idrPicID, "idr_pic_id", 0...65535) }
        let bottomPOC = pps.bottomFieldPicOrderInFramePresentFlag && !fieldPic
        let anyInt: ClosedRange<Int32> = (Int32.min &+ 1)...Int32.max
        // 7.4.3: delta_pic_order_cnt_bottom and delta_pic_order_cnt[0..1] are inferred 0 when absent.
        let pocType0 = sps.picOrderCntType == 0, pocDeltas = sps.picOrderCntType == 1 && !sps.deltaPicOrderAlwaysZeroFlag
        if pocType0 {
            try c.u(sps.picOrderCntLsbBits, &picOrderCntLsb, "pic_order_cnt_lsb")
        }
        if pocType0 && bottomPOC {
            try c.se(&deltaPicOrderCntBottom, "delta_pic_order_cnt_bottom", anyInt)
        } else {
            try c.infer(&deltaPicOrderCntBottom, 0, "delta_pic_order_cnt_bottom")
        }
        if pocDeltas {
            try c.se(&deltaPicOrderCnt0, SyntaxName("delta_pic_order_cnt", 0), anyInt)
        } else {
            try c.infer(&deltaPicOrderCnt0, 0, SyntaxName("delta_pic_order_cnt", 0))
        }
        if pocDeltas && bottomPOC {
            try c.se(&deltaPicOrderCnt1, SyntaxName("delta_pic_order_cnt", 1), anyInt)
        } else {
            try c.infer(&deltaPicOrderCnt1, 0, SyntaxName("delta_pic_order_cnt", 1))
        }
        if pps.redundantPicCntPresentFlag {
            var count = c.isReading ? 0 : redundantPicCnt
            try c.ue(&count, "redundant_pic_cnt", 0...127)
            redundantPicCnt = count
        } else {
            try c.infer(&redundantPicCnt, 0, "redundant_pic_cnt")
        }
        if isB {
            var direct = !c.isReading && directSpatialMvPredFlag
            try c.flag(&direct, "direct_spatial_mv_pred_flag")
            directSpatialMvPredFlag = direct
        }
        var override = !c.isReading && numRefIdxActiveOverrideFlag
        var l0ActiveMinus1 = c.isReading ? 0 : numRefIdxL0ActiveMinus1, l1ActiveMinus1 = c.isReading ? 0 : numRefIdxL1ActiveMinus1
        if isP || isSP || isB {
            try c.flag(&override, "num_ref_idx_active_override_flag")
            numRefIdxActiveOverrideFlag = override
            if override {
                try c.ue(&l0ActiveMinus1, "num_ref_idx_l0_active_minus1", 0...31)
                numRefIdxL0ActiveMinus1 = l0ActiveMinus1
                if isB {
                    try c.ue(&l1ActiveMinus1, "num_ref_idx_l1_active_minus1", 0...31)
                    numRefIdxL1ActiveMinus1 = l1ActiveMinus1
                }
            }
        }
        if !override {
            try c.infer(&l0ActiveMinus1, pps.numRefIdxL0DefaultActiveMinus1, "num_ref_idx_l0_active_minus1")
            numRefIdxL0ActiveMinus1 = l0ActiveMinus1
            try c.infer(&l1ActiveMinus1, pps.numRefIdxL1DefaultActiveMinus1, "num_ref_idx_l1_active_minus1")
            numRefIdxL1ActiveMinus1 = l1ActiveMinus1
        }
        // The lists of modifications that are not coded are empty (an empty list needs
        // neither setting nor checking: the test keeps the read path free of the assignment).
        var modifyL0 = !c.isReading && refPicListModificationFlagL0
        if !isI && !isSI {
            try c.flag(&modifyL0, "ref_pic_list_modification_flag_l0")
            refPicListModificationFlagL0 = modifyL0
        }
        if !isI && !isSI && modifyL0 {
            if lists.storage != nil {
                unowned(unsafe) let s = lists.storage.unsafelyUnwrapped  // held by the header: no retain
                try s.modificationL0.code(&c, mvc: mvc)
            } else {
                var m = RefPicListModification()
                try m.code(&c, mvc: mvc)
                if !m.operations.isEmpty { lists.uniqueStorage().modificationL0 = m }
            }
        } else if lists.storage != nil, lists.storage.unsafelyUnwrapped.modificationL0.operations.count != 0 {
            unowned(unsafe) let s = lists.storage.unsafelyUnwrapped
            try c.infer(&s.modificationL0, RefPicListModification(), "modification_of_pic_nums_idc")
        }
        var modifyL1 = !c.isReading && refPicListModificationFlagL1
        if isB {
            try c.flag(&modifyL1, "ref_pic_list_modification_flag_l1")
            refPicListModificationFlagL1 = modifyL1
        }
        if isB && modifyL1 {
            if lists.storage != nil {
                unowned(unsafe) let s = lists.storage.unsafelyUnwrapped  // held by the header: no retain
                try s.modificationL1.code(&c, mvc: mvc)
            } else {
                var m = RefPicListModification()
                try m.code(&c, mvc: mvc)
                if !m.operations.isEmpty { lists.uniqueStorage().modificationL1 = m }
            }
        } else if lists.storage != nil, lists.storage.unsafelyUnwrapped.modificationL1.operations.count != 0 {
            unowned(unsafe) let s = lists.storage.unsafelyUnwrapped
            try c.infer(&s.modificationL1, RefPicListModification(), "modification_of_pic_nums_idc")
        }
        if (pps.weightedPredFlag && (isP || isSP)) || (pps.weightedBipredIDC == 1 && isB) {
            // Coded in place, into the storage kept from an earlier slice when there is one.
            if !lists.hasPredWeightTable {
                try require(\.predWeightTable, &c, "pred_weight_table()")
                lists.hasPredWeightTable = true
            }
            let l0Count = Int(l0ActiveMinus1) &+ 1, l1Count = isB ? Int(l1ActiveMinus1) &+ 1 : 0
            let chroma = sps.chromaArrayType != 0
            if lists.storage != nil {
                unowned(unsafe) let s = lists.storage.unsafelyUnwrapped  // held by the header: no retain
                try s.predWeightTable.code(&c, l0Count: l0Count, l1Count: l1Count, chroma: chroma)
            } else {
                var t = PredWeightTable()
                try t.code(&c, l0Count: l0Count, l1Count: l1Count, chroma: chroma)
                if !t.isEmpty { lists.uniqueStorage().predWeightTable = t }
            }
        } else if c.isReading {
            lists.hasPredWeightTable = false
        } else if lists.hasPredWeightTable {
            try c.infer(&predWeightTable, nil, "pred_weight_table()")
        }
        if nalRefIdc != 0 {
            // (A reader sets every part: the lanes are not read back.)
            if !c.isReading && !hasDecRefPicMarking {
                guard c is SyntaxInferrer else { throw Self.missing("dec_ref_pic_marking()") }
                // Starts empty: the flags of an absent marking are 0 already.
                if !markingOperations.isEmpty { markingOperations.removeAll(keepingCapacity: true) }
            }
            hasDecRefPicMarking = true
            // Coded in place, into the operations' storage kept from an earlier slice.
            var noOutputOfPriorPics = !c.isReading && fields[flag: 60], longTermReference = !c.isReading && fields[flag: 61]
            var adaptive = !c.isReading && fields[flag: 62]
            try DecRefPicMarking.code(&c, idrPicFlag: idrPicFlag, noOutputOfPriorPicsFlag: &noOutputOfPriorPics,
                                      longTermReferenceFlag: &longTermReference, adaptiveRefPicMarkingModeFlag: &adaptive,
                                      operations: &markingOperations)
            fields[flag: 60] = noOutputOfPriorPics
            fields[flag: 61] = longTermReference
            fields[flag: 62] = adaptive
        } else if c.isReading {
            fields[word: 15] = 0  // absent, its flags 0 (`==` relies on it)
        } else if hasDecRefPicMarking {
            try c.infer(&decRefPicMarking, nil, "dec_ref_pic_marking()")
        }
        if pps.entropyCodingModeFlag && !isI && !isSI {
            var idc = c.isReading ? 0 : cabacInitIDC
            try c.ue(&idc, "cabac_init_idc", 0...2)
            cabacInitIDC = idc
        }
        let qpRange = 51 &+ 6 &* Int8(sps.bitDepthLumaMinus8)  // bit depth <= 6: <= 87
        var qp = c.isReading ? 0 : sliceQpDelta
        try c.se(&qp, "slice_qp_delta", (0 &- qpRange)...qpRange)
        sliceQpDelta = qp
        if isSP || isSI {
            if isSP {
                var forSwitch = !c.isReading && spForSwitchFlag
                try c.flag(&forSwitch, "sp_for_switch_flag")
                spForSwitchFlag = forSwitch
            }
            var qs = c.isReading ? 0 : sliceQsDelta
            try c.se(&qs, "slice_qs_delta", -51...51)
            sliceQsDelta = qs
        }
        if pps.deblockingFilterControlPresentFlag {
            var disable = c.isReading ? 0 : disableDeblockingFilterIDC
            try c.ue(&disable, "disable_deblocking_filter_idc", 0...2)
            disableDeblockingFilterIDC = disable
            if disable != 1 {
                var alpha = c.isReading ? 0 : sliceAlphaC0OffsetDiv2, beta = c.isReading ? 0 : sliceBetaOffsetDiv2
                try c.se(&alpha, "slice_alpha_c0_offset_div2", -6...6)
                sliceAlphaC0OffsetDiv2 = alpha
                try c.se(&beta, "slice_beta_offset_div2", -6...6)
                sliceBetaOffsetDiv2 = beta
            } else {
                try inferDeblockingOffsets(&c)
            }
        } else {
            try c.infer(&disableDeblockingFilterIDC, 0, "disable_deblocking_filter_idc")
            try inferDeblockingOffsets(&c)
        }
        if pps.numSliceGroupsMinus1 > 0 && pps.sliceGroupMapType >= 3 && pps.sliceGroupMapType <= 5 {
            let bits = Self.sliceGroupChangeCycleBits(picSizeInMapUnits: sps.picSizeInMapUnits, changeRate: pps.sliceGroupChangeRate)
            try c.u(bits, &sliceGroupChangeCycle, "slice_group_change_cycle")
        }
        if pps.entropyCodingModeFlag {
            try c.alignmentOnes("cabac_alignment_one_bit")
        }
    }

    private mutating func inferDeblockingOffsets<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.infer(&sliceAlphaC0OffsetDiv2, 0, "slice_alpha_c0_offset_div2")
        try c.infer(&sliceBetaOffsetDiv2, 0, "slice_beta_offset_div2")
    }

    /// A sub-structure the syntax codes here is absent: a reader codes it (whatever its storage
    /// held: reading sets every field), the coder that sets inferred values starts it empty, a
    /// writer cannot write it.
    /// - Throws: ``H264Error/Code/valueOutOfRange`` when writing.
    @inline(__always)
    mutating func require<T: SyntaxDefaultValue & Equatable, C: SyntaxCoder>(
        _ field: ReferenceWritableKeyPath<SliceHeaderLists.Storage, T>, _ c: inout C, _ name: StaticString
    ) throws(H264Error) {
        guard !c.isReading else { return }
        guard c is SyntaxInferrer else { throw Self.missing(name) }
        lists.set(field, T())
    }

    @inline(never)
    static func missing(_ name: StaticString) -> H264Error {
        H264Error.invalid(.valueOutOfRange, "\(name) is coded here but missing (nil)")
    }
}

extension SliceHeader: Hashable {
    /// Equal values: what the lists' and the marking's storage hold while they are absent (kept
    /// for reuse) is not part of the value.
    public static func == (a: SliceHeader, b: SliceHeader) -> Bool {
        // An absent marking's flags are 0 (every path that makes it absent clears them).
        a.fields == b.fields && a.lists == b.lists && (!a.hasDecRefPicMarking || a.markingOperations == b.markingOperations)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
        hasher.combine(lists)
        if hasDecRefPicMarking { hasher.combine(markingOperations) }
    }
}
