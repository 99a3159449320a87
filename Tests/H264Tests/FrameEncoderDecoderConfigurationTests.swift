import Testing
@testable import H264

/// An encoder with real parameter sets (a High-profile 1080p SPS) and no output.
// Used from one thread at a time by the tests, so unchecked.
private final class ParameterSetEncoder: FrameEncoder, @unchecked Sendable {
    var parameterSets: [NALUnit]
    init(_ sets: [[UInt8]]) throws { parameterSets = try sets.map { try NALUnit($0) } }
    func encode(_ frame: VideoFrame, options: FrameEncodeOptions) throws(H264Error) -> [EncodedFrame] { [] }
    func flush() throws(H264Error) -> [EncodedFrame] { [] }
    func setAverageBitrate(_ bitsPerSecond: Int) throws(H264Error) {}
    func setDataRateLimits(_ limits: [DataRateLimit]) throws(H264Error) {}
}

/// ``FrameEncoder/decoderConfiguration`` from the protocol extension.
@Suite struct FrameEncoderDecoderConfigurationTests {
    static let sps: [UInt8] = [0x67, 0x64, 0x00, 0x28, 0xAC, 0xD9, 0x40, 0x78, 0x02, 0x27, 0xE5, 0xC0, 0x44, 0x00, 0x00,
                               0x03, 0x00, 0x04, 0x00, 0x00, 0x03, 0x00, 0xF0, 0x3C, 0x60, 0xC6, 0x58]
    static let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]

    @Test func recordFromParameterSets() throws {
        let encoder = try ParameterSetEncoder([Self.pps, Self.sps])
        let record = try #require(try encoder.decoderConfiguration)
        #expect(record.profileIndication == 100 && record.levelIndication == 40)
        #expect(record.nalUnitLengthSize == .four)
        #expect(record.sequenceParameterSets.map { Array($0.bytes) } == [Self.sps])
        #expect(record.pictureParameterSets.map { Array($0.bytes) } == [Self.pps])
        #expect(record.highProfileExtension?.chromaFormat == 1)
        let two = try #require(try encoder.decoderConfiguration(lengthSize: .two))
        #expect(two.nalUnitLengthSize == .two)
        #expect(try AVCDecoderConfigurationRecord(parsing: two.serialized()) == two)
    }

    @Test func noSPSNoRecord() throws {
        #expect(try ParameterSetEncoder([]).decoderConfiguration == nil)
        #expect(try ParameterSetEncoder([Self.pps]).decoderConfiguration == nil)
        // A broken SPS is an error, not a record.
        #expect(throws: H264Error(.truncated, "")) { try ParameterSetEncoder([[0x67, 0x64], Self.pps]).decoderConfiguration }
    }
}
