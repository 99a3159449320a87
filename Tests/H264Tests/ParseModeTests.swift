import H264
import H264Fixtures
import Testing

/// Strict and lenient parsing of parameter sets that depart from the specification.
@Suite struct ParseModeTests {
    /// The first NAL unit of `type` in a fixture.
    static func unit(_ fixture: Fixture, type: UInt8) throws -> NALUnit {
        try #require(try AnnexB.split(fixture.bytes()).first { $0.type.rawValue == type })
    }

    /// The SPS of the full-VUI fixture as an RBSP.
    static func vuiSPS() throws -> ArraySlice<UInt8> { try unit(.vuiFull, type: 7).rbsp }

    @Test func conformingParameterSetsGiveNoWarning() throws {
        for mode in [ParseMode.strict, .lenient, .default] {
            var warnings: [ParseWarning] = []
            let sps = try SequenceParameterSet(rbsp: try Self.vuiSPS(), mode: mode, warnings: &warnings)
            #expect(sps == (try SequenceParameterSet(rbsp: try Self.vuiSPS())))
            let pps = try PictureParameterSet(rbsp: try Self.unit(.vuiFull, type: 8).rbsp, context: ParameterSetStore(sps: sps), mode: mode,
                                              warnings: &warnings)
            #expect(pps.id == 0)
            #expect(warnings.isEmpty)
        }
    }

    @Test func trailingData() throws {
        let rbsp = Array(try Self.vuiSPS()) + [0x00, 0x12]
        var warnings: [ParseWarning] = []
        #expect(throws: H264Error(.invalidTrailingBits, "")) {
            try SequenceParameterSet(rbsp: rbsp[...], mode: .strict, warnings: &warnings)
        }
        let lenient = try SequenceParameterSet(rbsp: rbsp[...], mode: .lenient, warnings: &warnings)
        #expect(lenient.trailingData == [0x00, 0x12])
        #expect(warnings.map(\.deviation) == [.trailingData])
        #expect(try lenient.rbsp() == rbsp)  // written back exactly
        // The compatible initialiser keeps it too.
        #expect(try SequenceParameterSet(rbsp: rbsp[...]).trailingData == [0x00, 0x12])
    }

    @Test func truncatedVUI() throws {
        let full = try Self.vuiSPS()
        let original = try SequenceParameterSet(rbsp: full)
        #expect(original.vuiParametersPresentFlag)
        let cut = full.dropLast(3)
        var warnings: [ParseWarning] = []
        #expect(throws: H264Error(.truncated, "")) { try SequenceParameterSet(rbsp: cut, mode: .strict, warnings: &warnings) }
        #expect(throws: H264Error(.truncated, "")) { try SequenceParameterSet(rbsp: cut, mode: .default, warnings: &warnings) }
        let lenient = try SequenceParameterSet(rbsp: cut, mode: .lenient, warnings: &warnings)
        #expect(warnings.map(\.deviation) == [.truncatedVUI])
        #expect(!lenient.vuiParametersPresentFlag)
        #expect(lenient.picWidthInMbsMinus1 == original.picWidthInMbsMinus1)
        #expect(lenient.levelIDC == original.levelIDC)
    }

    /// The SPS data without rbsp_trailing_bits (zero padding to a byte).
    static func withoutTrailingBits(_ sps: SequenceParameterSet) throws -> [UInt8] {
        var w = SyntaxWriter()
        var copy = sps
        try copy.codeData(&w)
        return w.writer.bytes
    }

    @Test func missingTrailingBits() throws {
        let original = try SequenceParameterSet(rbsp: try Self.unit(.baselineCAVLC, type: 7).rbsp)
        let bare = try Self.withoutTrailingBits(original)
        var warnings: [ParseWarning] = []
        #expect(throws: H264Error.self) { try SequenceParameterSet(rbsp: bare[...], mode: .strict, warnings: &warnings) }
        let lenient = try SequenceParameterSet(rbsp: bare[...], mode: .lenient, warnings: &warnings)
        #expect(lenient == original)
        #expect(warnings.map(\.deviation) == [.missingTrailingBits])
    }

    @Test func missingTrailingBitsInAPPS() throws {
        let sps = try SequenceParameterSet(rbsp: try Self.unit(.mainCABACBFrames, type: 7).rbsp)
        let ppsUnit = try Self.unit(.mainCABACBFrames, type: 8)
        let original = try PictureParameterSet(rbsp: ppsUnit.rbsp, context: ParameterSetStore(sps: sps))
        var w = SyntaxWriter()
        var copy = original
        try copy.code(&w, context: ParameterSetStore(sps: sps))
        var bytes = w.writer.bytes
        // Remove the stop bit and its alignment: the last 1 bit of the RBSP.
        while bytes.last == 0 { bytes.removeLast() }
        let last = try #require(bytes.last)
        bytes[bytes.count - 1] = last & (last &- 1)
        var warnings: [ParseWarning] = []
        #expect(throws: H264Error.self) {
            try PictureParameterSet(rbsp: bytes[...], context: ParameterSetStore(sps: sps), mode: .strict, warnings: &warnings)
        }
        let lenient = try PictureParameterSet(rbsp: bytes[...], context: ParameterSetStore(sps: sps), mode: .lenient, warnings: &warnings)
        #expect(lenient == original)
        #expect(warnings.map(\.deviation) == [.missingTrailingBits])
    }

    @Test func theStoreAppliesItsMode() throws {
        let unit = try Self.unit(.vuiFull, type: 7)
        let cut = try NALUnit(Array(unit.bytes.dropLast(3)))
        var strict = ParameterSetStore(parseMode: .strict)
        #expect(throws: H264Error(.truncated, "")) { try strict.ingest(cut) }
        var lenient = ParameterSetStore(parseMode: .lenient)
        #expect(try lenient.ingest(cut))
        #expect(lenient.warnings.map(\.deviation) == [.truncatedVUI])
        #expect(lenient.sps(id: 0) != nil)
        lenient.removeWarnings()
        #expect(lenient.warnings.isEmpty)
    }
}
