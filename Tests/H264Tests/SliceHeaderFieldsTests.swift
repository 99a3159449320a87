import Testing
@testable import H264

/// `SliceHeader` keeps its scalar values packed in lanes (`SliceHeaderFields`): every public
/// property must hold every value of its type exactly, and setting one must change no other.
@Suite struct SliceHeaderFieldsTests {
    /// One public property: its name, its value printed, and setters of the edge values of its
    /// type.
    struct Field {
        let name: String
        let read: (SliceHeader) -> String
        let edges: [(value: String, set: (inout SliceHeader) -> Void)]
    }

    static func field<T>(_ name: String, _ path: WritableKeyPath<SliceHeader, T>, _ values: [T]) -> Field {
        Field(name: name, read: { "\($0[keyPath: path])" },
              edges: values.map { value in ("\(value)", { $0[keyPath: path] = value }) })
    }

    static let u32: [UInt32] = [0, 1, 0xFF, 0x100, 0x8000_0000, UInt32.max - 1, UInt32.max]
    static let i32: [Int32] = [Int32.min, Int32.min + 1, -1, 0, 1, 0x7F, 0x80, Int32.max]
    static let u8: [UInt8] = [0, 1, 0x7F, 0x80, 0xFE, 0xFF]
    static let i8: [Int8] = [Int8.min, -1, 0, 1, Int8.max]
    static let flags = [false, true]

    static var fields: [Field] { [
        field("nal_unit_header", \.nalUnitHeader, [
            NALUnitHeader(), NALUnitHeader(nalRefIdc: 3, nalUnitType: .idrSlice),
            { var h = NALUnitHeader(nalRefIdc: 0xFF, nalUnitType: NALUnitType(rawValue: 31)); h.forbiddenZeroBit = 0xFF
              h.extensionFlag = true; h.extensionBits = UInt32.max; return h }(),
            { var h = NALUnitHeader(nalRefIdc: 1, nalUnitType: .sliceExtension); h.extensionBits = 0x7F_FFFF; return h }(),
        ]),
        field("first_mb_in_slice", \.firstMbInSlice, u32),
        field("slice_type", \.sliceType, (0...9).map { SliceType(rawValue: UInt8($0))! }),
        field("pic_parameter_set_id", \.ppsID, u8),
        field("colour_plane_id", \.colourPlaneID, u8),
        field("frame_num", \.frameNum, u32),
        field("field_pic_flag", \.fieldPicFlag, flags),
        field("bottom_field_flag", \.bottomFieldFlag, flags),
        field("idr_pic_id", \.idrPicID, u32),
        field("pic_order_cnt_lsb", \.picOrderCntLsb, u32),
        field("delta_pic_order_cnt_bottom", \.deltaPicOrderCntBottom, i32),
        field("delta_pic_order_cnt[0]", \.deltaPicOrderCnt0, i32),
        field("delta_pic_order_cnt[1]", \.deltaPicOrderCnt1, i32),
        field("redundant_pic_cnt", \.redundantPicCnt, u8),
        field("direct_spatial_mv_pred_flag", \.directSpatialMvPredFlag, flags),
        field("num_ref_idx_active_override_flag", \.numRefIdxActiveOverrideFlag, flags),
        field("num_ref_idx_l0_active_minus1", \.numRefIdxL0ActiveMinus1, u8),
        field("num_ref_idx_l1_active_minus1", \.numRefIdxL1ActiveMinus1, u8),
        field("ref_pic_list_modification_flag_l0", \.refPicListModificationFlagL0, flags),
        field("ref_pic_list_modification_flag_l1", \.refPicListModificationFlagL1, flags),
        field("ref_pic_list_modification_l0", \.refPicListModificationL0,
              [RefPicListModification(), RefPicListModification(operations: [.init(idc: 1, value: UInt32.max - 1)])]),
        field("ref_pic_list_modification_l1", \.refPicListModificationL1,
              [RefPicListModification(), RefPicListModification(operations: [.init(idc: 0, value: 7)])]),
        field("pred_weight_table", \.predWeightTable, [nil, PredWeightTable(), {
            var t = PredWeightTable(); t.lumaLog2WeightDenom = 7; t.l0 = [PredWeightTable.Entry()]; return t }()]),
        field("dec_ref_pic_marking", \.decRefPicMarking, [nil, DecRefPicMarking(), everyMarkingPart(operation: 5)]),
        field("cabac_init_idc", \.cabacInitIDC, u8),
        field("slice_qp_delta", \.sliceQpDelta, i8),
        field("sp_for_switch_flag", \.spForSwitchFlag, flags),
        field("slice_qs_delta", \.sliceQsDelta, i8),
        field("disable_deblocking_filter_idc", \.disableDeblockingFilterIDC, u8),
        field("slice_alpha_c0_offset_div2", \.sliceAlphaC0OffsetDiv2, i8),
        field("slice_beta_offset_div2", \.sliceBetaOffsetDiv2, i8),
        field("slice_group_change_cycle", \.sliceGroupChangeCycle, u32),
    ] }

    static func snapshot(_ h: SliceHeader) -> [String] { fields.map { $0.read(h) } }

    /// A marking with every flag set and one operation.
    static func everyMarkingPart(operation: UInt8) -> DecRefPicMarking {
        var m = DecRefPicMarking()
        m.noOutputOfPriorPicsFlag = true
        m.longTermReferenceFlag = true
        m.adaptiveRefPicMarkingModeFlag = true
        m.operations = [.init(operation: operation)]
        return m
    }

    /// Headers whose every property holds its first edge value, its last, and a mix: a value
    /// written into one lane must leave its neighbours whatever they hold (all bits 0 or 1).
    static func bases() -> [SliceHeader] {
        var low = SliceHeader(), high = SliceHeader(), mixed = SliceHeader()
        for (k, f) in fields.enumerated() {
            f.edges.first!.set(&low)
            f.edges.last!.set(&high)
            f.edges[k % f.edges.count].set(&mixed)
        }
        return [SliceHeader(), low, high, mixed]
    }

    /// Every property reads back every edge value of its type, and setting it leaves every
    /// other property as it was (a lane too narrow, or two properties sharing bits, fails here).
    @Test func everyPropertyHoldsItsTypesRangeAlone() {
        #expect(Set(Self.fields.map(\.name)).count == Self.fields.count)
        for (b, base) in Self.bases().enumerated() {
            let before = Self.snapshot(base)
            for (k, f) in Self.fields.enumerated() {
                for edge in f.edges {
                    var h = base
                    edge.set(&h)
                    var after = Self.snapshot(h)
                    #expect(after[k] == edge.value, "base \(b): \(f.name) = \(edge.value) reads back \(after[k])")
                    after[k] = before[k]
                    #expect(after == before, "base \(b): setting \(f.name) to \(edge.value) changed another property")
                    // Equality and hashing see the change, and only it.
                    if edge.value != before[k] { #expect(h != base, "base \(b): \(f.name) = \(edge.value)") }
                    edge.set(&h)
                    var back = base
                    edge.set(&back)
                    #expect(h == back && h.hashValue == back.hashValue)
                }
            }
        }
    }

    /// A marking made absent leaves nothing behind: the header equals (and hashes as) one that
    /// never had it, whatever the marking held.
    @Test func absentMarkingIsNotPartOfTheValue() {
        var h = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 2, nalUnitType: .idrSlice))
        let plain = h
        let m = Self.everyMarkingPart(operation: 1)
        h.decRefPicMarking = m
        #expect(h != plain)
        #expect(h.decRefPicMarking == m)
        h.decRefPicMarking?.operations.append(.init(operation: 2))
        #expect(h.decRefPicMarking?.operations.count == 2)
        #expect(h.decRefPicMarking?.longTermReferenceFlag == true)
        h.decRefPicMarking = nil
        #expect(h == plain && h.hashValue == plain.hashValue)
        h.decRefPicMarking = DecRefPicMarking()
        #expect(h.decRefPicMarking == DecRefPicMarking())  // no flag or operation left from before
    }

    /// The syntax's extreme values survive writing and parsing (ue(v) and se(v) at the ends of
    /// their ranges, u(n) at 16 bits all ones, the marking's operations at 2^32 - 2).
    @Test func syntaxEdgesRoundTrip() throws {
        var sps = SequenceParameterSet()
        sps.profileIDC = 77
        sps.levelIDC = 40
        sps.picWidthInMbsMinus1 = 1023
        sps.picHeightInMapUnitsMinus1 = 1023
        sps.frameMbsOnlyFlag = false
        sps.log2MaxFrameNumMinus4 = 12
        sps.log2MaxPicOrderCntLsbMinus4 = 12
        sps.maxNumRefFrames = 16
        var pps = PictureParameterSet()
        pps.entropyCodingModeFlag = true
        pps.bottomFieldPicOrderInFramePresentFlag = true
        pps.redundantPicCntPresentFlag = true
        pps.deblockingFilterControlPresentFlag = true
        pps.numSliceGroupsMinus1 = 1
        pps.sliceGroupMapType = 4
        var store = ParameterSetStore(sps: sps, pps: pps)

        var b = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 3, nalUnitType: .slice))
        b.firstMbInSlice = 1 << 24
        b.sliceType = SliceType(.b, allSlicesSame: true)
        b.frameNum = 0xFFFF
        b.picOrderCntLsb = 0xFFFF
        b.deltaPicOrderCntBottom = Int32.max
        b.redundantPicCnt = 127
        b.directSpatialMvPredFlag = true
        b.numRefIdxActiveOverrideFlag = true
        b.numRefIdxL0ActiveMinus1 = 31
        b.numRefIdxL1ActiveMinus1 = 31
        var marking = DecRefPicMarking()
        marking.adaptiveRefPicMarkingModeFlag = true
        var op = DecRefPicMarking.Operation(operation: 3)
        op.differenceOfPicNumsMinus1 = UInt32.max - 1
        op.longTermFrameIdx = UInt32.max - 1
        marking.operations = [op]
        b.decRefPicMarking = marking
        b.cabacInitIDC = 2
        b.sliceQpDelta = -51
        b.sliceAlphaC0OffsetDiv2 = -6
        b.sliceBetaOffsetDiv2 = 6
        b.sliceGroupChangeCycle = (1 << 21) - 1  // Ceil(Log2(2^20 + 1)) = 21 bits
        try Self.roundTrip(b, store)
        b.deltaPicOrderCntBottom = Int32.min + 1
        b.sliceQpDelta = 51
        try Self.roundTrip(b, store)
        b.fieldPicFlag = true
        b.bottomFieldFlag = true
        b.deltaPicOrderCntBottom = 0  // not coded for a field
        try Self.roundTrip(b, store)

        var idr = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 1, nalUnitType: .idrSlice))
        idr.sliceType = .i
        idr.idrPicID = 65535
        idr.numRefIdxL0ActiveMinus1 = 0
        marking = DecRefPicMarking()
        marking.noOutputOfPriorPicsFlag = true
        marking.longTermReferenceFlag = true
        idr.decRefPicMarking = marking
        idr.disableDeblockingFilterIDC = 1
        try Self.roundTrip(idr, store)

        var sp = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 0, nalUnitType: .slice))
        sp.sliceType = .sp
        sp.spForSwitchFlag = true
        sp.sliceQsDelta = -51
        try Self.roundTrip(sp, store)

        // POC type 1: delta_pic_order_cnt[0] and [1] at the ends of se(v)'s 32-bit range.
        sps.picOrderCntType = 1
        store = ParameterSetStore(sps: sps, pps: pps)
        var p = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 0, nalUnitType: .slice))
        p.sliceType = .p
        p.deltaPicOrderCnt0 = Int32.min + 1
        p.deltaPicOrderCnt1 = Int32.max
        try Self.roundTrip(p, store)
        // Int32.min is outside se(v)'s range: refused, not wrapped.
        p.deltaPicOrderCnt0 = Int32.min
        #expect(throws: H264Error.self) { _ = try p.write(context: store) }
    }

    static func roundTrip(_ header: SliceHeader, _ store: ParameterSetStore) throws {
        var header = header
        try header.setInferredValues(context: store)
        let bits = try header.write(context: store)
        let (read, length) = try SliceHeader.parse(rbsp: bits.bytes[...], nalUnitHeader: header.nalUnitHeader, context: store)
        #expect(length == bits.bitCount)
        #expect(read == header)
        #expect(snapshot(read) == snapshot(header))
    }
}
