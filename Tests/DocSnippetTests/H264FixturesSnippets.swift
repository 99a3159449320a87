import H264
import H264Fixtures
import Testing

/// The snippets of the H264Fixtures catalog (Fixtures/H264Fixtures.docc); each marked region is
/// shown, as it is, in an article (Docs/check-snippets.py checks it).
@Suite struct H264FixturesSnippets {
    @Test func fixtureStream() throws {
        // snippet: fixture-stream
        let fixture = Fixture.mainCABACBFrames
        let bytes = fixture.bytes()                      // the file in Fixtures/Streams
        let facts = fixture.facts                        // measured with FFmpeg when it was made
        let (accessUnits, _) = AccessUnits.assemble(annexB: bytes[...])
        #expect(accessUnits.count == facts.accessUnitCount)
        #expect(accessUnits.filter(\.isSyncSample).count == facts.idrCount)
        // end snippet
        #expect(facts.accessUnitCount > 1)
        #expect(facts.entropyCoder == .cabac)
    }

    @Test func streamBuilder() throws {
        // snippet: stream-builder
        var options = StreamBuilder.SequenceOptions(width: 64, height: 64, profileIDC: 77)
        options.frameMbsOnly = false          // field pictures allowed
        options.frameRate = (25, 1)
        var builder = try StreamBuilder(options)
        // A top IDR field and a bottom P field, then a pair of non-reference B fields shown first.
        try builder.append(script: "I!/t P/b P@8/t P@9/b B@4/t^0 B@5/b^0")
        let annexB = builder.annexB()
        let (samples, sampleSizes, record) = try builder.avcc(lengthSize: .four)
        // end snippet
        let (accessUnits, errors) = AccessUnits.assemble(annexB: annexB[...])
        #expect(errors.isEmpty)
        #expect(accessUnits.count == 6)                 // each field its own access unit
        #expect(sampleSizes.count == 6 && sampleSizes.reduce(0, +) == samples.count)
        let sps = try SequenceParameterSet(rbsp: record.sequenceParameterSets[0].rbsp)
        #expect(sps.width == 64 && !sps.frameMbsOnlyFlag)
    }
}
