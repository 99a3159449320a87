import Testing
@testable import H264

func hexBytes(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var it = s.makeIterator()
    while let a = it.next(), let b = it.next() { out.append(UInt8(String([a, b]), radix: 16)!) }
    return out
}

@Suite struct AVCDecoderConfigurationRecordTests {
    // From cros-codecs 64x64-I-P-B-P-high.h264: the SPS holds emulation-prevention bytes.
    static let highSPS = hexBytes("67640014ace4109b016a0c0c0d4a000003000200000300791e285224")
    static let highPPS = hexBytes("68ebecb22c")
    // The avcC FFmpeg 5.1 writes when remuxing that stream to MP4.
    static let highRecord = hexBytes("01640014ffe1001c67640014ace4109b016a0c0c0d4a000003000200000300791e28522401000568"
                                     + "ebecb22cfdf8f800")
    static let baselineSPS = hexBytes("6742e00a96528589c8")
    static let baselinePPS = hexBytes("68c92388")

    @Test func buildsHighProfileLikeFFmpeg() throws {
        let record = try AVCDecoderConfigurationRecord(parameterSets: [try NALUnit(Self.highSPS), try NALUnit(Self.highPPS)])
        #expect(try record.serialized() == Self.highRecord)
        #expect(record.profileIndication == 100 && record.levelIndication == 20)
        #expect(record.highProfileExtension?.chromaFormat == 1)
        #expect(record.parameterSetCount == 2)
        #expect(record.parameterSet(at: 0)?.type == .sps)
        #expect(record.parameterSet(at: 1)?.type == .pps)
        #expect(record.parameterSet(at: 2) == nil)
        #expect(record.parameterSet(at: -1) == nil)
        #expect(record.nalUnitLengthSize == .four)
    }

    @Test func parsesWhatItWrites() throws {
        let parsed = try AVCDecoderConfigurationRecord(parsing: Self.highRecord)
        #expect(parsed.sequenceParameterSets.map { Array($0.bytes) } == [Self.highSPS])
        #expect(parsed.pictureParameterSets.map { Array($0.bytes) } == [Self.highPPS])
        #expect(parsed.highProfileExtension == .init(chromaFormat: 1, bitDepthLumaMinus8: 0, bitDepthChromaMinus8: 0))
        #expect(try parsed.serialized() == Self.highRecord)
    }

    @Test func baselineHasNoExtension() throws {
        let sps = try NALUnit(Self.baselineSPS), pps = try NALUnit(Self.baselinePPS)
        let record = try AVCDecoderConfigurationRecord(parameterSets: [pps, sps], lengthSize: .two)
        #expect(record.highProfileExtension == nil)
        #expect(try record.serialized() == hexBytes("0142e00afde100096742e00a96528589c801000468c92388"))
        #expect(try AVCDecoderConfigurationRecord(parsing: record.serialized()) == record)
    }

    @Test func severalParameterSetsAndMissingExtension() throws {
        let sps = try NALUnit(Self.highSPS)
        let sps2 = try NALUnit([0x67, 0x64, 0, 0x14, 0xAC] + [0x55])
        let pps = try NALUnit(Self.highPPS), pps2 = try NALUnit([0x68, 0xEE, 0x3C, 0x80])
        let ext = try NALUnit([0x6D, 0x40])
        let record = try AVCDecoderConfigurationRecord(parameterSets: [sps, pps, sps2, pps2, ext], lengthSize: .one)
        #expect(record.sequenceParameterSets == [sps, sps2])
        #expect(record.pictureParameterSets == [pps, pps2])
        #expect(record.highProfileExtension?.sequenceParameterSetExtensions == [ext])
        #expect(record.parameterSets.count == 5)
        let bytes = try record.serialized()
        #expect(bytes[4] == 0xFC && bytes[5] == 0xE2)
        #expect(try AVCDecoderConfigurationRecord(parsing: bytes) == record)
        // A High-profile record cut after the PPSs (older muxers): no extension, no error.
        let withoutExtension = Array(Self.highRecord.dropLast(4))
        let parsed = try AVCDecoderConfigurationRecord(parsing: withoutExtension)
        #expect(parsed.highProfileExtension == nil)
        #expect(try parsed.serialized() == withoutExtension)
    }

    @Test func writingRefusesWhatTheFieldsCannotCount() throws {
        var record = try AVCDecoderConfigurationRecord(parameterSets: [try NALUnit(Self.highSPS), try NALUnit(Self.highPPS)])
        let sps = record.sequenceParameterSets[0], pps = record.pictureParameterSets[0]
        record.sequenceParameterSets = Array(repeating: sps, count: 31)
        #expect(try AVCDecoderConfigurationRecord(parsing: record.serialized()).sequenceParameterSets.count == 31)
        record.sequenceParameterSets.append(sps)  // 32: five bits cannot count them
        #expect(throws: H264Error(.limitExceeded, "")) { try record.serialized() }
        record.sequenceParameterSets = [sps]
        record.pictureParameterSets = Array(repeating: pps, count: 256)
        #expect(throws: H264Error(.limitExceeded, "")) { try record.serialized() }
        record.pictureParameterSets = [pps]
        record.highProfileExtension?.sequenceParameterSetExtensions = Array(repeating: try NALUnit([0x6D, 0x40]), count: 256)
        #expect(throws: H264Error(.limitExceeded, "")) { try record.serialized() }
        record.highProfileExtension?.sequenceParameterSetExtensions = []
        record.pictureParameterSets = [try NALUnit([0x68] + Array(repeating: 0x55, count: 65_535))]  // 65,536 bytes
        #expect(throws: H264Error(.nalUnitTooLarge, "")) { try record.serialized() }
        record.pictureParameterSets = [try NALUnit([0x68] + Array(repeating: 0x55, count: 65_534))]  // 65,535: fits
        #expect(try AVCDecoderConfigurationRecord(parsing: record.serialized()) == record)
    }

    @Test func errors() throws {
        #expect(throws: H264Error(.missingParameterSet, "")) {
            try AVCDecoderConfigurationRecord(parameterSets: [try NALUnit(Self.highPPS)])
        }
        #expect(throws: H264Error(.invalidArgument, "")) {
            try AVCDecoderConfigurationRecord(parameterSets: [try NALUnit(Self.highSPS), try NALUnit([0x65, 1])])
        }
        #expect(throws: H264Error(.invalidDecoderConfiguration, "")) {
            try AVCDecoderConfigurationRecord(parsing: [2] + Self.highRecord.dropFirst())
        }
        #expect(throws: H264Error(.invalidLengthSize, "")) {
            var b = Self.highRecord
            b[4] = 0xFE
            return try AVCDecoderConfigurationRecord(parsing: b)
        }
        // Every prefix: a record or a typed error, never a trap.
        for n in 0..<Self.highRecord.count {
            do { _ = try AVCDecoderConfigurationRecord(parsing: Self.highRecord[..<n]) } catch {
                #expect([H264Error.Code.truncated, .emptyNALUnit].contains(error.code))
            }
        }
    }
}
