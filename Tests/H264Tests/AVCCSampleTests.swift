import H264
import H264Fixtures
import Testing

/// Parameter sets -> avcC record -> AVCC sample: the one core path the FLV and MP4 sample
/// builders and the encoder's AVCC output take, over NAL units (no access unit needed).
@Suite struct AVCCSampleTests {
    @Test(arguments: [AVCC.LengthSize.four, .two, .one])
    func recordSampleIsTheAccessUnitsSampleAtTheRecordsLengthSize(_ lengthSize: AVCC.LengthSize) throws {
        let units = AccessUnits.assemble(annexB: Fixture.baselineCAVLC.bytes()[...], leadingData: .skip).accessUnits
        let sets = units[0].nalUnits.filter { $0.type == .sps || $0.type == .pps }
        #expect(sets.count == 2)
        let record = try AVCDecoderConfigurationRecord(parameterSets: sets, lengthSize: lengthSize)
        for au in units {
            let small = au.nalUnits.allSatisfy { $0.count <= lengthSize.maximumNALUnitSize }
            for keep in [false, true] {
                if small {
                    let sample = try record.avccSample(au.nalUnits, includeParameterSets: keep)
                    #expect(sample == (try au.avccSample(lengthSize: lengthSize, includeParameterSets: keep)))
                    let back = try AVCC.split(sample, lengthSize: lengthSize)
                    #expect(back == au.nalUnits.filter { keep || ($0.type != .sps && $0.type != .pps) })
                } else {
                    #expect(throws: H264Error(.nalUnitTooLarge, "")) { try record.avccSample(au.nalUnits, includeParameterSets: keep) }
                }
            }
        }
        // The first access unit carries SPS and PPS: out of band they are not in its sample.
        let four = try AVCDecoderConfigurationRecord(parameterSets: sets)
        let first = try AVCC.split(try four.avccSample(units[0].nalUnits, includeParameterSets: false))
        #expect(!first.isEmpty && first.allSatisfy { $0.type != .sps && $0.type != .pps })
        #expect(units[0].nalUnits.contains { $0.type == .sps })
    }
}
