import Testing
import H264
import H264Fixtures

/// `ColorDescription`: the one colour description; the VUI view over its syntax fields and the
/// header editor's whole-description edit.
@Suite struct ColorDescriptionTests {
    static func sps(_ fixture: Fixture) throws -> SequenceParameterSet {
        let unit = try #require(try AnnexB.split(fixture.bytes()[...]).first { $0.type == .sps })
        return try SequenceParameterSet(rbsp: unit.rbsp)
    }

    /// VUI -> ColorDescription -> VUI gives the same VUI, whichever flags it had, and the view
    /// reads what the syntax fields say.
    @Test func vuiRoundTrip() throws {
        var signalOnly = VUIParameters()
        signalOnly.videoSignalTypePresentFlag = true
        signalOnly.videoFormat = 2
        signalOnly.videoFullRangeFlag = true
        var explicitUnspecified = signalOnly
        explicitUnspecified.colourDescriptionPresentFlag = true
        var hdr = VUIParameters()
        hdr.videoSignalTypePresentFlag = true
        hdr.colourDescriptionPresentFlag = true
        hdr.colourPrimaries = 9; hdr.transferCharacteristics = 16; hdr.matrixCoefficients = 9
        let fromFile = try Self.sps(.vuiFull).vui
        let cases: [(VUIParameters, ColorDescription?)] = [
            (VUIParameters(), nil),
            (signalOnly, ColorDescription(fullRange: true)),
            (explicitUnspecified, ColorDescription(fullRange: true)),
            (hdr, ColorDescription(primaries: 9, transferCharacteristics: 16, matrixCoefficients: 9)),
            (fromFile, fromFile.videoSignalTypePresentFlag ? ColorDescription(primaries: fromFile.colourPrimaries,
                transferCharacteristics: fromFile.transferCharacteristics, matrixCoefficients: fromFile.matrixCoefficients,
                fullRange: fromFile.videoFullRangeFlag) : nil),
        ]
        for (vui, expected) in cases {
            #expect(vui.colorDescription == expected)
            var copy = vui
            copy.colorDescription = vui.colorDescription
            #expect(copy == vui)
        }
        #expect(fromFile.colorDescription != nil, "the vui-full fixture carries a video signal type")
    }

    /// Setting a description writes the flags it needs; the SPS written and read back carries it.
    @Test func setWritesTheSyntax() throws {
        var sps = try Self.sps(.baselineCAVLC)
        #expect(sps.colorDescription == nil)
        for d in [ColorDescription.bt709, .bt601, .bt601PAL, .bt2020, ColorDescription(fullRange: true), .unspecified] {
            sps.vuiParametersPresentFlag = true
            sps.vui.colorDescription = d
            #expect(sps.vui.videoSignalTypePresentFlag)
            #expect(sps.vui.colourDescriptionPresentFlag == !d.isUnspecified)
            let back = try SequenceParameterSet(rbsp: try sps.rbsp()[...])
            #expect(back.colorDescription == d)
            #expect(back.vui.colourDescriptionPresentFlag == !d.isUnspecified)
            sps.vui.colorDescription = nil  // back to the inferred values, which the writer accepts
            #expect(!sps.vui.videoSignalTypePresentFlag && sps.vui.videoFormat == 5 && sps.vui.colourPrimaries == 2)
            #expect(try SequenceParameterSet(rbsp: try sps.rbsp()[...]).colorDescription == nil)
        }
    }

    /// The presets' code points (Tables E-3 to E-5) and the printed form.
    @Test func presetsAndDescription() {
        let codes = { (d: ColorDescription) in [d.primaries, d.transferCharacteristics, d.matrixCoefficients] }
        #expect(codes(.bt709) == [1, 1, 1] && codes(.bt601) == [6, 6, 6] && codes(.bt601PAL) == [5, 6, 5])
        #expect(codes(.bt2020) == [9, 14, 9] && codes(.unspecified) == [2, 2, 2] && ColorDescription.unspecified.isUnspecified)
        #expect(!ColorDescription.bt709.fullRange && !ColorDescription.bt709.isUnspecified)
        #expect(ColorDescription.bt709.description == "primaries 1, transfer 1, matrix 1, limited range")
        #expect("\(ColorDescription(primaries: 9, transferCharacteristics: 18, matrixCoefficients: 9, fullRange: true))"
                == "primaries 9, transfer 18, matrix 9, full range")
    }

    /// `HeaderEdits.colorDescription` sets all four fields; the separate fields edit some and
    /// keep the SPS's others.
    @Test func headerEdits() throws {
        var edits = HeaderEdits()
        edits.colourPrimaries = 9
        #expect(edits.colorDescription == nil, "a partial edit is no whole description")
        edits.colorDescription = .bt2020
        #expect(edits.colourPrimaries == 9 && edits.transferCharacteristics == 14 && edits.matrixCoefficients == 9)
        #expect(edits.fullRange == false && edits.colorDescription == .bt2020 && edits.editsSPS)
        var sps = try Self.sps(.baselineCAVLC)
        try edits.apply(to: &sps)
        #expect(sps.colorDescription == .bt2020)
        #expect(try SequenceParameterSet(rbsp: try sps.rbsp()[...]).colorDescription == .bt2020)

        var partial = HeaderEdits()
        partial.fullRange = true
        try partial.apply(to: &sps)
        #expect(sps.colorDescription == ColorDescription(primaries: 9, transferCharacteristics: 14, matrixCoefficients: 9, fullRange: true))
        var rangeOnly = try Self.sps(.baselineCAVLC)
        try partial.apply(to: &rangeOnly)
        #expect(rangeOnly.colorDescription == ColorDescription(fullRange: true))
        #expect(!rangeOnly.vui.colourDescriptionPresentFlag, "a range alone needs no colour_description")

        edits.colorDescription = nil
        #expect(edits.colourPrimaries == nil && edits.fullRange == nil && !edits.editsSPS)
    }
}
