import Testing
@testable import H264
import TestSupport

/// Derived SPS values against what ffprobe reports for corpus streams.
@Suite struct ParameterSetDerivedTests {
    static func firstSPS(_ stream: String) throws -> SequenceParameterSet {
        let nal = try #require(try Corpus.nalUnits(stream).first { $0.type == .sps })
        return try SequenceParameterSet(rbsp: nal.rbsp)
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"), arguments: [
        ("openh264/CVFC1_Sony_C.jsv", 300, 168, "Constrained Baseline"),
        ("openh264/SarVui.264", 176, 144, "Baseline"),
        ("cros-codecs/test-25fps.h264", 320, 240, "Main"),
        ("fate-frext/HPCVMOLQ_BRCM_B.264", 352, 288, "High"),
        ("fate-frext/HCAFF1_HHI.264", 352, 288, "High"),
        ("fate-frext/PPH10I1_Panasonic_A.264", 1280, 720, "High 10 Intra"),
    ])
    func sizeAndProfile(stream: String, width: Int, height: Int, profile: String) throws {
        let sps = try Self.firstSPS(stream)
        #expect(sps.width == width)
        #expect(sps.height == height)
        #expect(sps.profileName == profile)
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus")) func sampleAspectRatioAndLevel() throws {
        let sps = try Self.firstSPS("openh264/SarVui.264")
        #expect(sps.sampleAspectRatio.map { [$0.width, $0.height] } == [80, 33])
        #expect(sps.levelName == "2.1")
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus")) func monochromeHasChromaArrayType0() throws {
        let sps = try Self.firstSPS("fate-frext/HPCVMOLQ_BRCM_B.264")
        #expect(sps.chromaArrayType == 0)
        #expect(sps.cropUnit.x == 1)
    }

    @Test func level1bAndScalingFallback() {
        var sps = SequenceParameterSet()
        sps.levelIDC = 11
        sps.constraintSetFlags[3] = true
        #expect(sps.levelName == "1b")
        sps.profileIDC = 100
        #expect(sps.levelName == "1.1")
        // Fall-back rule A: list 1 copies list 0, which is the default intra list.
        var m = ScalingMatrix()
        m.present = [false, false, false, true, false, false, false, false]
        m.lists = Array(repeating: ScalingList(), count: 8)
        m.lists[3] = ScalingList(deltaScales: [8])  // 16, then repeated
        let resolved = m.resolved()
        #expect(resolved[1] == ScalingMatrix.default4x4Intra)
        #expect(resolved[3] == Array(repeating: 16, count: 16))
        #expect(resolved[5] == Array(repeating: 16, count: 16))
        #expect(resolved[9] == ScalingMatrix.default8x8Inter)
        // Rule B: list 0 falls back to the SPS's.
        let b = ScalingMatrix().resolved(fallback: resolved)
        #expect(b[3] == resolved[3])
    }
}
