import Testing
@testable import H264

/// Values the specification infers when an element is absent: a reader sets them, a writer
/// checks them, `setInferredValues(context:)` sets them on a value built by hand.
struct InferredValueTests {
    private func isValueOutOfRange(_ body: () throws -> Void) -> Bool {
        do { try body() } catch let error as H264Error { return error.code == .valueOutOfRange } catch { return false }
        return false
    }

    /// A Baseline SPS with no VUI and no crop, written with garbage in no inferred field.
    private func baselineSPS() -> SequenceParameterSet {
        var sps = SequenceParameterSet()
        sps.profileIDC = 66
        sps.levelIDC = 30
        sps.picWidthInMbsMinus1 = 19
        sps.picHeightInMapUnitsMinus1 = 14
        sps.frameMbsOnlyFlag = true
        return sps
    }

    @Test func spsReaderSetsWhatIsNotCoded() throws {
        var sps = baselineSPS()
        // Values that a reader must overwrite: the written bits do not carry them.
        let written = try sps.rbsp()
        sps = try SequenceParameterSet(rbsp: written[...])
        #expect(sps.chromaFormatIDC == 1)
        #expect(sps.bitDepthLumaMinus8 == 0 && sps.bitDepthChromaMinus8 == 0)
        #expect(!sps.mbAdaptiveFrameFieldFlag)
        #expect(sps.vui.maxNumReorderFrames == 16 && sps.vui.maxDecFrameBuffering == 16)
        #expect(sps.vui.colourPrimaries == 2 && sps.vui.matrixCoefficients == 2 && sps.vui.videoFormat == 5)
        #expect(sps.vui.lowDelayHRDFlag)
    }

    @Test func intraProfileInfersNoReorderingOrBuffering() throws {
        var sps = baselineSPS()
        sps.profileIDC = 110
        sps.constraintSetFlags[3] = true  // High 10 Intra
        // VUIParameters() holds 16: a writer refuses it for an intra profile.
        #expect(isValueOutOfRange { _ = try sps.rbsp() })
        try sps.setInferredValues(context: .empty)
        #expect(sps.vui.maxNumReorderFrames == 0 && sps.vui.maxDecFrameBuffering == 0)
        let read = try SequenceParameterSet(rbsp: try sps.rbsp()[...])
        #expect(read.vui.maxNumReorderFrames == 0 && read.vui.maxDecFrameBuffering == 0)
        #expect(read == sps)
    }

    @Test func writerRefusesAValueThatContradictsItsInference() throws {
        var sps = baselineSPS()
        sps.frameCropLeftOffset = 2  // frame_cropping_flag is 0: the offset is inferred 0
        #expect(isValueOutOfRange { _ = try sps.rbsp() })
        try sps.setInferredValues(context: .empty)
        #expect(sps.frameCropLeftOffset == 0)
        _ = try sps.rbsp()

        sps.vuiParametersPresentFlag = true
        sps.vui.timingInfoPresentFlag = true
        sps.vui.numUnitsInTick = 1
        sps.vui.timeScale = 50
        sps.vui.fixedFrameRateFlag = true  // no HRD: low_delay_hrd_flag is inferred 1 - 1
        #expect(isValueOutOfRange { _ = try sps.rbsp() })
        try sps.setInferredValues(context: .empty)
        #expect(!sps.vui.lowDelayHRDFlag)
        #expect(try SequenceParameterSet(rbsp: try sps.rbsp()[...]) == sps)
    }

    @Test func ppsWithoutExtendedFieldsInfersSecondChromaOffset() throws {
        let sps = baselineSPS()
        let store = ParameterSetStore(sps: sps)
        var pps = PictureParameterSet()
        pps.chromaQpIndexOffset = -3
        #expect(isValueOutOfRange { _ = try pps.rbsp(context: store) })  // second_... holds 0
        try pps.setInferredValues(context: store)
        #expect(pps.secondChromaQpIndexOffset == -3)
        let read = try PictureParameterSet(rbsp: try pps.rbsp(context: store)[...], context: store)
        #expect(read.secondChromaQpIndexOffset == -3)
    }

    /// A P slice whose PPS sets 3 active references and explicit weights with denominators 3 and 2.
    private func weightedContext() -> (ParameterSetStore, PictureParameterSet) {
        var pps = PictureParameterSet()
        pps.numRefIdxL0DefaultActiveMinus1 = 2
        pps.weightedPredFlag = true
        return (ParameterSetStore(sps: baselineSPS(), pps: pps), pps)
    }

    @Test func sliceHeaderReaderSetsPPSDefaultsAndWeights() throws {
        let (store, _) = weightedContext()
        var header = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 2, nalUnitType: .slice))
        header.sliceType = .p
        #expect(isValueOutOfRange { _ = try header.write(context: store) })  // 0 active, PPS says 2; no marking
        try header.setInferredValues(context: store)
        #expect(header.numRefIdxL0ActiveMinus1 == 2)
        #expect(header.decRefPicMarking != nil)
        #expect(header.predWeightTable?.l0.count == 3)
        header.predWeightTable?.lumaLog2WeightDenom = 3
        header.predWeightTable?.chromaLog2WeightDenom = 2
        header.predWeightTable?.l0[1].lumaWeightFlag = true
        header.predWeightTable?.l0[1].lumaWeight = 5
        // Entries 0 and 2 still hold the weights of denominator 0.
        #expect(isValueOutOfRange { _ = try header.write(context: store) })
        try header.setInferredValues(context: store)
        #expect(header.predWeightTable?.l0[0].lumaWeight == 8 && header.predWeightTable?.l0[0].chromaWeightCb == 4)
        #expect(header.predWeightTable?.l0[1].lumaWeight == 5)

        let bits = try header.write(context: store)
        let (read, length) = try SliceHeader.parse(rbsp: bits.bytes[...], nalUnitHeader: header.nalUnitHeader, context: store)
        #expect(length == bits.bitCount)
        #expect(read == header)
        #expect(read.predWeightTable?.l0[2].lumaWeight == 8 && read.predWeightTable?.l0[2].chromaOffsetCr == 0)
    }

    @Test func sliceHeaderWriterRefusesAbsentStructuresThatAreCoded() throws {
        let (store, _) = weightedContext()
        var header = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 0, nalUnitType: .slice))
        header.sliceType = .i
        header.decRefPicMarking = DecRefPicMarking()  // nal_ref_idc 0: none is coded
        #expect(isValueOutOfRange { _ = try header.write(context: store) })
        header.decRefPicMarking = nil
        header.numRefIdxL0ActiveMinus1 = 2
        _ = try header.write(context: store)
        header.nalUnitHeader = NALUnitHeader(nalRefIdc: 1, nalUnitType: .slice)
        #expect(isValueOutOfRange { _ = try header.write(context: store) })  // marking coded, value nil
    }
}
