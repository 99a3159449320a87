import Testing
@testable import H264
import TestSupport

/// Malformed and extreme headers: typed errors, never a trap, no allocation sized by an
/// unchecked field.
@Suite struct HostileHeaderTests {
    /// An SPS RBSP of a small Baseline stream: profile 66, level 30, id 0, then the given bits.
    static func spsPrefix() -> BitWriter {
        var w = BitWriter()
        w.writeBits(66, 8); w.writeBits(0, 8); w.writeBits(30, 8)
        return w
    }

    @Test func expGolombWith32LeadingZeros() {
        var w = Self.spsPrefix()
        w.writeBits(0, 32); w.writeBits(1, 1); w.writeBits(0, 7); w.writeBits(0xFF, 8)
        #expect(throws: H264Error(.invalidExpGolomb, "")) { try SequenceParameterSet(rbsp: w.bytes[...]) }
    }

    @Test func hrdWith32SpecificationsAndHugeValues() throws {
        var sps = SequenceParameterSet()
        sps.vuiParametersPresentFlag = true
        var hrd = HRDParameters()
        hrd.bitRateScale = 15
        hrd.cpbSizeScale = 15
        hrd.cpbs = (0..<32).map { HRDParameters.CPB(bitRateValueMinus1: UInt32.max - 1 - UInt32($0), cpbSizeValueMinus1: UInt32.max - 1, cbrFlag: $0 % 2 == 0) }
        hrd.timeOffsetLength = 31
        sps.vui.nalHRD = hrd
        sps.vui.vclHRD = hrd
        let bytes = try sps.rbsp()
        let parsed = try SequenceParameterSet(rbsp: bytes[...])
        #expect(parsed.vui.nalHRD == hrd)
        #expect(parsed.vui.nalHRD?.bitRate(0) == UInt64(UInt32.max) << 21)
        #expect(parsed.seiTimingInfo.nalHRD?.cpbCount == 32)
        #expect(try parsed.rbsp() == bytes)

        var tooMany = hrd
        tooMany.cpbs.append(HRDParameters.CPB())
        var w = SyntaxWriter()
        #expect(throws: H264Error(.valueOutOfRange, "")) { try tooMany.code(&w) }

        var bits = BitWriter()
        bits.writeUE(32)  // cpb_cnt_minus1 = 32
        bits.writeBits(0xFFFF_FFFF, 32)
        var r = SyntaxReader(bits.bytes[...])
        var h = HRDParameters()
        #expect(throws: H264Error(.valueOutOfRange, "")) { try h.code(&r) }
    }

    @Test func pocCycleOf255() throws {
        var sps = SequenceParameterSet()
        sps.picOrderCntType = 1
        sps.offsetForRefFrame = (0..<255).map { $0 % 2 == 0 ? Int32.max : Int32.min + 1 }
        let bytes = try sps.rbsp()
        let parsed = try SequenceParameterSet(rbsp: bytes[...])
        #expect(parsed.offsetForRefFrame.count == 255)
        #expect(parsed == sps)

        var w = Self.spsPrefix()
        w.writeUE(0)  // seq_parameter_set_id
        w.writeUE(0)  // log2_max_frame_num_minus4
        w.writeUE(1)  // pic_order_cnt_type
        w.writeFlag(false)
        w.writeSE(0); w.writeSE(0)
        w.writeUE(256)  // num_ref_frames_in_pic_order_cnt_cycle
        w.writeTrailingBits()
        #expect(throws: H264Error(.valueOutOfRange, "")) { try SequenceParameterSet(rbsp: w.bytes[...]) }
    }

    @Test func sliceNamingMissingParameterSets() throws {
        var store = ParameterSetStore()
        var w = BitWriter()
        w.writeBits(0x65, 8)  // IDR, nal_ref_idc 3
        w.writeUE(0); w.writeUE(7); w.writeUE(5)  // first_mb 0, slice_type 7 (I), pps 5
        w.writeBits(0xFFFF_FFFF, 32)
        let nal = try NALUnit(w.bytes)
        #expect(throws: H264Error(.missingParameterSet, "")) { try SliceHeader.parse(nal, context: store) }
        var pps = PictureParameterSet()
        pps.id = 5
        pps.spsID = 3
        store.insert(pps)
        #expect(throws: H264Error(.missingParameterSet, "")) { try SliceHeader.parse(nal, context: store) }
        var sps = SequenceParameterSet()
        sps.id = 3
        store.insert(sps)
        let (header, _) = try SliceHeader.parse(nal, context: store)
        #expect(header.ppsID == 5 && header.isI)
        #expect(store.activeSPSID == nil, "parsing does not change the store")
        try store.activate(header)
        #expect(store.activeSPSID == 3 && store.activePPSID == 5)
    }

    @Test func trailingDataAfterTheStopBitIsKept() throws {
        let sps = SequenceParameterSet()
        var bytes = try sps.rbsp()
        bytes += [0x00, 0x12, 0x34]
        let parsed = try SequenceParameterSet(rbsp: bytes[...])
        #expect(parsed.trailingData == [0x00, 0x12, 0x34])
        #expect(try parsed.rbsp() == bytes)
        // Through a NAL unit and the store.
        var nal: [UInt8] = [0x67]
        EmulationPrevention.appendEBSP(of: bytes, to: &nal)
        var store = ParameterSetStore()
        #expect(try store.ingest(NALUnit(nal)))
        #expect(store.sps(id: 0)?.trailingData == [0x00, 0x12, 0x34])
    }

    @Test func pictureSizeIsCapped() throws {
        var w = Self.spsPrefix()
        w.writeUE(0); w.writeUE(0); w.writeUE(2); w.writeUE(1); w.writeFlag(false)
        w.writeUE(UInt32.max - 1)  // pic_width_in_mbs_minus1
        w.writeUE(0)
        w.writeTrailingBits()
        #expect(throws: H264Error(.valueOutOfRange, "")) { try SequenceParameterSet(rbsp: w.bytes[...]) }
        var sps = SequenceParameterSet()
        sps.picWidthInMbsMinus1 = SequenceParameterSet.maxPicSizeMinus1
        sps.picHeightInMapUnitsMinus1 = SequenceParameterSet.maxPicSizeMinus1
        sps.frameMbsOnlyFlag = false
        sps.frameCroppingFlag = true
        sps.frameCropBottomOffset = 1 << 20
        #expect(sps.height == 0)
        #expect(sps.width == 65536)
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus")) func everyPrefixOfCorpusHeadersThrowsOrParses() throws {
        for stream in ["fate-frext/FRExt1_Panasonic.avc", "openh264/test_scalinglist_jm.264", "openh264/SVA_FM1_E.264",
                       "hibernia/CVWP1_TOSHIBA_E.264", "fate-frext/HCAMFF1_HHI.264", "openh264/LS_SVA_D.264"] {
            var store = ParameterSetStore()
            var slices = 0
            for nal in try Corpus.nalUnits(stream) {
                let rbsp = Array(nal.rbsp)
                switch nal.type {
                case .sps:
                    for n in 0..<rbsp.count {
                        #expect(throws: H264Error.self) { try SequenceParameterSet(rbsp: rbsp[..<n]) }
                        // Every bit prefix, zero padded: must not trap.
                        for k in 1..<8 where n < rbsp.count {
                            var cut = Array(rbsp[..<(n + 1)])
                            cut[n] &= 0xFF << UInt8(8 - k)
                            _ = try? SequenceParameterSet(rbsp: cut[...])
                        }
                    }
                    try store.ingest(nal)
                case .pps:
                    for n in 0..<rbsp.count { _ = try? PictureParameterSet(rbsp: rbsp[..<n], context: store) }
                    try store.ingest(nal)
                case .slice, .idrSlice:
                    guard slices < 40 else { continue }
                    slices += 1
                    let (_, bits) = try SliceHeader.parse(nal, context: store)
                    for n in 0..<((bits + 7) / 8) where n * 8 < bits {
                        #expect(throws: H264Error(.truncated, "")) {
                            try SliceHeader.parse(rbsp: rbsp[..<n], nalUnitHeader: NALUnitHeader(nal), context: store)
                        }
                    }
                default: continue
                }
            }
        }
    }

    /// Corpus NAL units with random bits flipped (a fixed seed): parsing, tracing and
    /// re-writing them throws or succeeds, never traps.
    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus")) func bitFlippedHeadersNeverTrap() throws {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed }
        var exercised = 0
        for stream in ["fate-frext/FRExt1_Panasonic.avc", "openh264/test_scalinglist_jm.264", "openh264/SVA_FM1_E.264",
                       "hibernia/CVWP1_TOSHIBA_E.264", "openh264/sps_subsetsps_bothVUI.264", "openh264/LS_SVA_D.264"] {
            var clean = ParameterSetStore()
            for nal in try Corpus.nalUnits(stream).prefix(120) {
                _ = NALUnitTrace.trace(nal, store: &clean)
                for _ in 0..<8 {
                    var bytes = Array(nal.bytes)
                    guard bytes.count > 1 else { continue }
                    for _ in 0..<(1 + Int(next() % 3)) {
                        let bit = 8 + Int(next() % UInt64((bytes.count - 1) * 8))
                        bytes[bit / 8] ^= 0x80 >> UInt8(bit % 8)
                    }
                    guard let mutated = try? NALUnit(bytes) else { continue }
                    exercised += 1
                    var store = clean
                    let trace = NALUnitTrace.trace(mutated, store: &store)
                    #expect(!trace.elements.isEmpty || trace.error != nil, "\(stream): a trace with neither elements nor error")
                    _ = try? store.ingest(mutated)
                    _ = try? SliceHeader.parse(mutated, context: store)
                    // Without edits the editor gives back any input, parsed or copied, unchanged.
                    let framed: [UInt8] = [0, 0, 0, 1] + bytes
                    #expect(try AnnexBHeaderEditor.edit(framed[...], edits: HeaderEdits()) == framed, "\(stream)")
                }
            }
        }
        #expect(exercised >= 2_500, "\(exercised) mutated NAL units")
    }
}
