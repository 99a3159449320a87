import CommandLineSupport
import Foundation
import Testing
@testable import H264CLI
import H264
import TestSupport

@Suite struct ConvertCommandTests {
    static let stream: [UInt8] = [
        0, 0, 0, 1, 0x09, 0x10,
        0, 0, 0, 1, 0x67, 0x42, 0xE0, 0x0A, 0x96, 0x52, 0x85, 0x89, 0xC8,
        0, 0, 0, 1, 0x68, 0xC9, 0x23, 0x88,
        0, 0, 0, 1, 0x65, 0x88, 0x84, 0x21,
        0, 0, 0, 1, 0x09, 0x30,
        0, 0, 1, 0x41, 0x9A, 0x02,
        0, 0, 0, 1, 0x09, 0x10,
        0, 0, 1, 0x65, 0x88, 0x84, 0x22,
    ]

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("h264-convert-\(getpid())-\(name)").path
    }

    @Test(arguments: [1, 2, 4])
    func roundTripThroughFiles(_ lengthSize: Int) throws {
        let input = Self.temporary("in-\(lengthSize).264"), avcc = Self.temporary("out-\(lengthSize).avcc")
        let config = Self.temporary("out-\(lengthSize).avcC"), back = Self.temporary("back-\(lengthSize).264")
        defer { for p in [input, avcc, config, back] { try? FileManager.default.removeItem(atPath: p) } }
        try Output.write(Self.stream, to: input)
        var args = Arguments([input, avcc, "--to", "avcc", "--length-size", "\(lengthSize)", "--avcc-config", config])
        try ConvertCommand.run(&args)
        let record = try AVCDecoderConfigurationRecord(parsing: try Input.readAll(config))
        #expect(record.nalUnitLengthSize.byteCount == lengthSize)
        #expect(record.parameterSetCount == 2)
        let samples = try AVCC.split(try Input.readAll(avcc), lengthSize: record.nalUnitLengthSize)
        #expect(samples.map(\.type) == [.accessUnitDelimiter, .idrSlice, .accessUnitDelimiter, .slice, .accessUnitDelimiter, .idrSlice])

        args = Arguments([avcc, back, "--to", "annexb", "--avcc-config", config])
        try ConvertCommand.run(&args)
        let units = try AnnexB.split(try Input.readAll(back))
        #expect(units.map(\.type) == [.accessUnitDelimiter, .sps, .pps, .idrSlice, .accessUnitDelimiter, .slice,
                                      .accessUnitDelimiter, .sps, .pps, .idrSlice])
    }

    @Test func keepParameterSetsAndErrors() throws {
        let input = Self.temporary("k.264"), avcc = Self.temporary("k.avcc"), config = Self.temporary("k.avcC")
        defer { for p in [input, avcc, config] { try? FileManager.default.removeItem(atPath: p) } }
        try Output.write(Self.stream, to: input)
        var args = Arguments([input, avcc, "--to", "avcc", "--avcc-config", config, "--keep-parameter-sets"])
        try ConvertCommand.run(&args)
        #expect(try AVCC.split(try Input.readAll(avcc)).count == 8)
        args = Arguments([input, avcc, "--to", "avcc", "--avcc-config", config, "--length-size", "3"])
        #expect(throws: H264Error(.invalidLengthSize, "")) { try ConvertCommand.run(&args) }
        args = Arguments([input, avcc, "--to", "mkv", "--avcc-config", config])
        #expect(throws: CLIError.self) { try ConvertCommand.run(&args) }
        args = Arguments([input, avcc, "--to", "avcc"])
        #expect(throws: CLIError.self) { try ConvertCommand.run(&args) }
    }
}
