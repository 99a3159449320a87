import H264
import H264Fixtures
import Testing

/// The code under test. In your package this is your packetiser, muxer or recorder; here, a
/// small function that finds the keyframes of an Annex-B stream.
func keyframeIndices(annexB bytes: [UInt8]) -> [Int] {
    let (accessUnits, _) = AccessUnits.assemble(annexB: bytes[...], leadingData: .skip)
    return accessUnits.filter(\.flags.isSync).map(\.index)
}

@Suite struct FixturesSampleTests {
    /// Every fixture: its NAL units, whatever the framing, are the ones the manifest counts.
    @Test(arguments: Fixture.all)
    func nalUnitTypeCounts(_ fixture: Fixture) throws {
        let facts = fixture.facts
        let bytes = fixture.bytes()
        let units: [NALUnit]
        switch facts.kind {
        case .annexB:
            units = try AnnexB.split(bytes, leadingData: .skip)
        case .avcc:
            let lengthSize = try AVCC.LengthSize(byteCount: facts.lengthSize ?? 4)
            units = try AVCC.split(bytes, lengthSize: lengthSize)
        }
        var counts: [UInt8: Int] = [:]
        for unit in units { counts[unit.type.rawValue, default: 0] += 1 }
        #expect(counts == facts.nalTypeCounts)
    }

    /// Every fixture: the picture size of its first SPS (AVCC: from the configuration record).
    @Test(arguments: Fixture.all)
    func pictureSize(_ fixture: Fixture) throws {
        let facts = fixture.facts
        let parameterSets: [NALUnit]
        if let record = fixture.configurationRecord() {
            parameterSets = try AVCDecoderConfigurationRecord(parsing: record).sequenceParameterSets
        } else {
            parameterSets = try AnnexB.split(fixture.bytes(), leadingData: .skip).filter { $0.type == .sps }
        }
        // missing-pps.264 keeps its SPS; every fixture has one.
        let first = try #require(parameterSets.first)
        let sps = try SequenceParameterSet(rbsp: first.rbsp)
        #expect(sps.width == facts.width)
        #expect(sps.height == facts.height)
        #expect(Int(sps.profileIDC) == facts.profileIDC)
    }

    /// Every Annex-B fixture: the code under test finds one keyframe per IDR access unit.
    @Test(arguments: Fixture.all.filter { $0.facts.kind == .annexB })
    func keyframes(_ fixture: Fixture) {
        #expect(keyframeIndices(annexB: fixture.bytes()).count == fixture.facts.idrCount)
    }

    /// A stream no encoder makes, built for the test: POC type 1, two slices per picture,
    /// a recovery point instead of a second IDR.
    @Test func builtStream() throws {
        var options = StreamBuilder.SequenceOptions(width: 98, height: 50, profileIDC: 100)
        options.pocType = 1
        var builder = try StreamBuilder(options)
        builder.accessUnitDelimiters = true
        try builder.append(script: "I!x2 P@6x2 B@2^0x2 B@4^0x2 I~@12x2")
        #expect(keyframeIndices(annexB: builder.annexB()) == [0])

        let (samples, sizes, record) = try builder.avcc(lengthSize: .two)
        #expect(sizes.count == 5 && sizes.reduce(0, +) == samples.count)
        #expect(record.highProfileExtension?.chromaFormat == 1)
    }
}
