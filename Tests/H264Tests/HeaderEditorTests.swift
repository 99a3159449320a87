import Testing
import H264Fixtures
@testable import H264
import TestSupport

/// `AnnexBHeaderEditor`: no edits gives the same bytes; edits change only what they name.
@Suite struct HeaderEditorTests {
    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"), arguments: Corpus.annexBStreams)
    func noEditsIsByteIdentical(stream: String) throws {
        let input = try Corpus.read(stream)
        let output = try AnnexBHeaderEditor.edit(input[...], edits: HeaderEdits())
        #expect(output == input)
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus")) func vuiEditsChangeOnlyTheVUI() throws {
        let input = try Corpus.read("cros-codecs/test-25fps.h264")
        var edits = HeaderEdits()
        edits.sampleAspectRatio = (4, 3)
        edits.frameRate = (30000, 1001)
        edits.colourPrimaries = 9
        edits.transferCharacteristics = 16
        edits.matrixCoefficients = 9
        edits.fullRange = true
        edits.levelIDC = 41
        let output = try AnnexBHeaderEditor.edit(input[...], edits: edits)
        let before = try AnnexB.split(input[...]), after = try AnnexB.split(output[...])
        #expect(before.count == after.count)
        for (a, b) in zip(before, after) {
            if a.type == .sps {
                var old = try SequenceParameterSet(rbsp: a.rbsp)
                let new = try SequenceParameterSet(rbsp: b.rbsp)
                #expect(new.sampleAspectRatio.map { [$0.width, $0.height] } == [4, 3])
                #expect(new.frameRate.map { [$0.numerator, $0.denominator] } == [60000, 2002])
                #expect(new.vui.colourPrimaries == 9 && new.vui.transferCharacteristics == 16 && new.vui.matrixCoefficients == 9)
                #expect(new.vui.videoFullRangeFlag && new.levelName == "4.1")
                try edits.apply(to: &old)
                #expect(old == new)
            } else {
                #expect(a.bytes.elementsEqual(b.bytes))
            }
        }
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus")) func cropAndAccessUnitDelimiters() throws {
        let input = try Corpus.read("openh264/BA_MW_D.264")
        var edits = HeaderEdits()
        edits.crop = [8, 8, 16, 0]
        edits.accessUnitDelimiters = .insert
        let output = try AnnexBHeaderEditor.edit(input[...], edits: edits)
        let units = try AnnexB.split(output[...])
        let sps = try SequenceParameterSet(rbsp: #require(units.first { $0.type == .sps }).rbsp)
        #expect(sps.width == 176 - 16 && sps.height == 144 - 16)
        let slices = units.filter { $0.type.isVCL }.count
        #expect(units.filter { $0.type == .accessUnitDelimiter }.count == slices)  // one slice per picture
        #expect(units.first?.type == .accessUnitDelimiter)
        var removal = HeaderEdits()
        removal.accessUnitDelimiters = .remove
        removal.crop = [0, 0, 0, 0]
        let back = try AnnexBHeaderEditor.edit(output[...], edits: removal)
        #expect(back == input)

        var bad = HeaderEdits()
        bad.crop = [1, 0, 0, 0]  // not a multiple of CropUnitX (2 in 4:2:0)
        #expect(throws: H264Error(.invalidArgument, "")) { try AnnexBHeaderEditor.edit(input[...], edits: bad) }
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus")) func unparsableNALUnitsAreCopied() throws {
        // A slice naming PPS 5, which no stream defines, between two good streams' units.
        var w = BitWriter()
        w.writeBits(0x65, 8); w.writeUE(0); w.writeUE(7); w.writeUE(5); w.writeBits(0xFFFF_FFFF, 32)
        let input = try Corpus.read("openh264/BA_MW_D.264") + [0, 0, 0, 1] + w.bytes
        var unparsed: [(index: Int, error: H264Error)] = []
        let output = try AnnexBHeaderEditor.edit(input[...], edits: HeaderEdits(), unparsed: &unparsed)
        #expect(output == input)
        #expect(unparsed.count == 1 && unparsed.first?.error == H264Error(.missingParameterSet, ""))
    }

    @Test func invalidNALUnitHeadersAreCopiedInPlace() throws {
        // A fixture, then a NAL unit with forbidden_zero_bit set, then the fixture again, with
        // an AUD inserted before each access unit: the bad unit is copied where it was and
        // reported by its index among all the stream's NAL units.
        let fixture = Fixture.baselineCAVLC.bytes()
        let count = try AnnexB.split(fixture).count
        let input = fixture + [0, 0, 0, 1, 0xE1, 0x9A, 0x02] + fixture
        var unparsed: [(index: Int, error: H264Error)] = []
        #expect(try AnnexBHeaderEditor.edit(input[...], edits: HeaderEdits(), unparsed: &unparsed) == input)
        #expect(unparsed.map(\.index) == [count])
        #expect(unparsed.first?.error.code == .forbiddenBitSet)

        var edits = HeaderEdits()
        edits.accessUnitDelimiters = .insert
        unparsed = []
        let edited = try AnnexBHeaderEditor.edit(input[...], edits: edits, unparsed: &unparsed)
        #expect(unparsed.map(\.index) == [count])
        let bad: [UInt8] = [0, 0, 0, 1, 0xE1, 0x9A, 0x02]
        #expect(edited.indices.contains { edited[$0...].starts(with: bad) })
    }

    @Test func dataAfterTrailingBitsIsKept() throws {
        // An AUD and a filler NAL unit with a byte after rbsp_trailing_bits(): the parse
        // tolerates it, and the editor must not drop it (found by the roundtrip fuzz target).
        let input: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0, 0x50, 0, 0, 0, 1, 0x0C, 0xFF, 0xFF, 0x80, 0x55]
        #expect(try AnnexBHeaderEditor.edit(input[...], edits: HeaderEdits()) == input)
    }
}
