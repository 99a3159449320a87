import Testing
@testable import H264

/// The partial readers (parameter set ids, a slice header's first three elements) agree with
/// the full descriptions they are cut from.
struct PartialReaderTests {
    @Test func idsAndLeadingElementsMatchTheFullParse() throws {
        var sps = SequenceParameterSet()
        sps.profileIDC = 100
        sps.levelIDC = 40
        sps.id = 7
        sps.picWidthInMbsMinus1 = 119
        sps.picHeightInMapUnitsMinus1 = 67
        try sps.setInferredValues(context: .empty)
        var pps = PictureParameterSet()
        pps.id = 200
        pps.spsID = 7
        let store = ParameterSetStore(sps: sps, pps: pps)
        let spsUnit = try sps.nalUnit(header: NALUnitHeader(nalRefIdc: 3, nalUnitType: .sps), context: store)
        let ppsUnit = try pps.nalUnit(header: NALUnitHeader(nalRefIdc: 3, nalUnitType: .pps), context: store)
        #expect(spsUnit.parameterSetID == 7 && spsUnit.referencedParameterSetID == nil)
        #expect(ppsUnit.parameterSetID == 200 && ppsUnit.referencedParameterSetID == 7)

        var header = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 0, nalUnitType: .slice))
        header.firstMbInSlice = 4_000
        header.sliceType = SliceType(.b, allSlicesSame: true)
        header.ppsID = 200
        try header.setInferredValues(context: store)
        let slice = try header.nalUnit(header: header.nalUnitHeader, context: store)
        let leading = slice.sliceHeaderLeadingElements()
        #expect(leading.firstMbInSlice == 4_000 && leading.sliceType == SliceType(rawValue: 6) && leading.ppsID == 200)
        #expect(slice.referencedParameterSetID == 200 && slice.parameterSetID == nil)
        #expect(AccessUnitFlags.sliceType(slice) == SliceType.Kind.b.rawValue)
        let parsed = try SliceHeader.parse(slice, context: store).header
        #expect(parsed.firstMbInSlice == leading.firstMbInSlice && parsed.sliceType == leading.sliceType)

        // An IDR picture holds I and SI slices only: the reader stops after slice_type.
        let idrP = try NALUnit([0x65, 0b1_010_0000])  // first_mb_in_slice 0, slice_type 1 (B)
        let cut = idrP.sliceHeaderLeadingElements()
        #expect(cut.firstMbInSlice == 0 && cut.sliceType == .b && cut.ppsID == nil)
        #expect(try NALUnit([0x06, 0x05]).sliceHeaderLeadingElements().firstMbInSlice == nil)  // not a slice
    }
}
