import CommandLineSupport
import Foundation
import Testing
import H264
import FLV
import TestSupport
@testable import H264CLI

/// `h264 encode` to .avcc and .flv, `h264 convert` Annex-B <-> FLV and `--aud insert`.
@Suite struct CLIFLVTests {
    static func encode(_ args: [String]) throws {
        var a = Arguments(args + ["--preset", "ultrafast", "--threads", "1"])
        try EncodeCommand.run(&a)
    }

    static func convert(_ args: [String]) throws {
        var a = Arguments(args)
        try ConvertCommand.run(&a)
    }

    static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// A small stream with B-frames and two IDR pictures, as Annex-B.
    static func bFrameStream(_ dir: String, frames: Int = 30) throws -> String {
        let path = dir + "/b.h264"
        try encode(["-o", path, "--size", "160x96", "--frames", "\(frames)", "--bframes", "3", "--force-keyframes", "0,15"])
        return path
    }

    @Test func encodeAVCCWritesRecordAndOutOfBandSamples() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/x.avcc"
        try Self.encode(["-o", out, "--size", "160x96", "--frames", "10", "--length-size", "2"])
        let record = try AVCDecoderConfigurationRecord(parsing: try Self.read(out + "-config"))
        #expect(record.nalUnitLengthSize == .two)
        #expect(record.sequenceParameterSets.count == 1 && record.pictureParameterSets.count == 1)
        let samples = try Self.read(out)
        let units = try AVCC.split(samples[...], lengthSize: .two)
        #expect(units.filter { $0.type.isVCL }.count == 10)
        #expect(!units.contains { $0.type == .sps || $0.type == .pps })
        // Back to Annex-B with the record: parameter sets return before the IDR picture.
        let annexB = try FormatConversion.avccToAnnexB(samples[...], configuration: record)
        #expect(try AnnexB.split(annexB).prefix(4).contains { $0.type == .sps })
        #expect(throws: H264Error(.invalidLengthSize, "")) { try Self.encode(["-o", out, "--frames", "1", "--length-size", "3"]) }
        #expect(throws: CLIError.self) { try Self.encode(["--frames", "1"]) }
    }

    @Test func encodeFLVWithBFrames() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/x.flv"
        try Self.encode(["-o", out, "--size", "160x96", "--frames", "30", "--bframes", "3", "--force-keyframes", "0,15",
                         "--fps", "25"])
        let track = try FLVVideoTrack(reading: try Self.read(out)[...])
        #expect(track.metadata?.width == 160 && track.metadata?.height == 96 && track.metadata?.frameRate == 25)
        #expect(track.hasEndOfSequence)
        #expect(track.segments.count == 1)
        let samples = track.samples
        #expect(samples.count == 30)
        #expect(samples.filter(\.isKeyframe).count == 2)
        #expect(samples.first?.dts == 0 && samples.contains { $0.pts != $0.dts })
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.dts < $1.dts })
        #expect(samples.allSatisfy { $0.pts >= $0.dts })
        #expect(Set(samples.map(\.pts)) == Set((0..<30).map { Int64($0 * 40) + samples[0].pts }))
    }

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe"))
    func encodeFLVPlaysInFFmpeg() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/x.flv"
        try Self.encode(["-o", out, "--size", "160x96", "--frames", "30", "--bframes", "3", "--force-keyframes", "0,15"])
        let probe = try FFmpeg.packets(out)
        #expect(probe.errors.isEmpty, "\(probe.errors)")
        #expect(probe.packets.count == 30)
        #expect(probe.packets.filter(\.key).count == 2)
        #expect(probe.packets.contains { $0.pts != $0.dts })
        let decode = try FFmpeg.decode(out)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }

    @Test func convertAnnexBToFLVAndBack() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.bFrameStream(dir)
        let flv = dir + "/c.flv", back = dir + "/back.bin", again = dir + "/again.h264"
        try Self.convert([input, flv])                     // by OUT's extension
        let track = try FLVVideoTrack(reading: try Self.read(flv)[...])
        #expect(track.samples.count == 30 && track.samples.filter(\.isKeyframe).count == 2)
        #expect(track.samples.contains { $0.pts != $0.dts })
        try Self.convert([flv, back])                      // by IN's content
        try Self.convert([flv, again, "--to", "annexb"])
        // The same NAL units, parameter sets aside (they move to sequence headers and back).
        let vcl = { (p: String) throws -> [[UInt8]] in
            try AnnexB.split(try Self.read(p)).filter { $0.type != .sps && $0.type != .pps }.map { Array($0.bytes) }
        }
        #expect(try vcl(back) == vcl(input))
        #expect(try Self.read(back) == Self.read(again))
        #expect(throws: CLIError.self) { try Self.convert([input, dir + "/x.bin"]) }  // no --to, not FLV
        #expect(throws: CLIError.self) { try Self.convert([flv, dir + "/y.flv"]) }    // FLV to FLV
    }

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe"))
    func convertedFLVPlaysInFFmpeg() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.bFrameStream(dir)
        let flv = dir + "/c.flv"
        try Self.convert([input, flv])
        let probe = try FFmpeg.packets(flv)
        #expect(probe.errors.isEmpty, "\(probe.errors)")
        #expect(probe.packets.count == 30 && probe.packets.filter(\.key).count == 2)
        #expect(probe.packets.contains { $0.pts != $0.dts })
    }

    @Test func audInsert() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.bFrameStream(dir)
        let out = dir + "/aud.h264"
        try Self.convert([input, out, "--to", "annexb", "--aud", "insert"])
        let original = try Self.read(input), bytes = try Self.read(out)
        let (units, errors) = AccessUnits.assemble(annexB: bytes[...])
        #expect(errors.isEmpty && units.count == 30)
        for au in units {
            #expect(au.nalUnits.first?.type == .accessUnitDelimiter)
            let aud = try AccessUnitDelimiter(rbsp: #require(au.nalUnits.first).rbsp)
            #expect(aud.primaryPicType == AccessUnitDelimiter(sliceKinds: au.sliceTypes).primaryPicType)
        }
        let types = units.map { try? AccessUnitDelimiter(rbsp: $0.nalUnits[0].rbsp).primaryPicType }
        #expect(types.first == .i && types.contains(.iP) && types.contains(.iPB))  // I, P, B pictures
        // Nothing else changed; a second pass inserts nothing.
        #expect(try AnnexB.split(bytes).filter { $0.type != .accessUnitDelimiter }.map(\.bytes)
                == AnnexB.split(original).map(\.bytes))
        var again = HeaderEdits()
        again.accessUnitDelimiters = .insert
        #expect(try AnnexBHeaderEditor.edit(bytes[...], edits: again) == bytes)
        #expect(throws: CLIError.self) { try Self.convert([input, out, "--to", "annexb", "--aud", "remove"]) }
    }
}
