import CommandLineSupport
import Foundation
import Testing
import H264
@testable import H264CLI
import MediaSupport
import TestSupport
import X264

@Suite struct EncodeCommandTests {
    @Test func rates() throws {
        #expect(try EncodeSettings.parseRate("512k") == 512_000)
        #expect(try EncodeSettings.parseRate("2M") == 2_000_000)
        #expect(try EncodeSettings.parseRate("1.5m") == 1_500_000)
        #expect(try EncodeSettings.parseRate("1500") == 1_500_000, "a bare number is kbit/s, as x264's --bitrate")
        #expect(try EncodeSettings.parseRate("800000bps") == 800_000)
        #expect(throws: CLIError.self) { try EncodeSettings.parseRate("-1k") }
        #expect(throws: CLIError.self) { try EncodeSettings.parseRate("fast") }
        #expect(try EncodeSettings.parseChanges("100:3000,200:500k").map { [$0.frame, $0.bitsPerSecond] } == [[100, 3_000_000], [200, 500_000]])
        #expect(throws: CLIError.self) { try EncodeSettings.parseChanges("200:3000,100:500") }
        #expect(try EncodeCommand.parseFrameRate("29.97") == (30000, 1001))
        #expect(try EncodeCommand.parseFrameRate("25/1") == (25, 1))
        #expect(throws: CLIError.self) { try EncodeCommand.parseFrameRate("0") }
        #expect(try EncodeCommand.parseSize("160x96", "--size") == (160, 96))
        #expect(throws: CLIError.self) { try EncodeCommand.parseSize("160", "--size") }
    }

    /// `--colorprim`, `--transfer`, `--colormatrix` and `--range` (x264's names or numbers) set
    /// the configuration's `ColorDescription`; the ones not given keep what it had.
    @Test func colourOptions() throws {
        func settings(_ args: [String]) throws -> EncodeSettings { var a = Arguments(args); return try EncodeSettings(&a) }
        var config = X264Encoder.Options(width: 160, height: 96)
        try settings(["--colorprim", "bt470bg", "--transfer", "smpte170m", "--colormatrix", "5", "--range", "pc"]).apply(to: &config)
        #expect(config.colorDescription == ColorDescription(primaries: 5, transferCharacteristics: 6, matrixCoefficients: 5, fullRange: true))
        config.colorDescription = .bt709
        try settings(["--range", "pc"]).apply(to: &config)
        #expect(config.colorDescription == ColorDescription(primaries: 1, transferCharacteristics: 1, matrixCoefficients: 1, fullRange: true))
        config.colorDescription = nil
        try settings(["--transfer", "arib-std-b67"]).apply(to: &config)
        #expect(config.colorDescription == ColorDescription(transferCharacteristics: 18))
        #expect(throws: CLIError.self) { try settings(["--colorprim", "256"]) }
        #expect(throws: CLIError.self) { try settings(["--colormatrix", "-1"]) }
    }

    static func temp(_ suffix: String) -> String { NSTemporaryDirectory() + "h264cli-\(UUID().uuidString)\(suffix)" }

    /// Runs `encode` in this process; returns what it wrote to stderr (its summary line).
    @discardableResult
    static func run(_ args: [String]) throws -> String {
        let notes = ThreadLock("")
        try Output.$capturedStandardError.withValue(notes) {
            var a = Arguments(args)
            try EncodeCommand.run(&a)
        }
        return notes.withLock { $0 }
    }

    /// The access units of an Annex-B stream: the IDR flags, one per picture (single-slice pictures).
    static func idrFlags(_ path: String) throws -> [Bool] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return try AnnexB.split(bytes).filter { $0.type.isVCL }.map { $0.type == .idrSlice }
    }

    @Test func testPatternToAnnexB() throws {
        let out = Self.temp(".h264")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let summary = try Self.run(["-o", out, "--size", "160x96", "--frames", "12", "--preset", "ultrafast", "--bframes", "0",
                                    "--force-keyframes", "0,5,9", "--threads", "1"])
        #expect(summary.hasPrefix("encoded 12 frames, 3 keyframes, "), "\(summary)")
        // Without B-frames, decoding order is presentation order.
        let idr = try Self.idrFlags(out)
        #expect(idr.count == 12)
        #expect(idr.enumerated().filter(\.element).map(\.offset) == [0, 5, 9])
    }

    @Test func y4mAndRawInputs() throws {
        // A two-frame 4:2:0 Y4M file and the same as raw NV12 frames.
        let (w, h) = (64, 32)
        var y4m = Array("YUV4MPEG2 W\(w) H\(h) F25:1 Ip A1:1 C420jpeg\n".utf8)
        var raw: [UInt8] = []
        for i in 0..<2 {
            let frame = (0..<(w * h * 3 / 2)).map { UInt8(truncatingIfNeeded: $0 &+ i) }
            y4m += Array("FRAME\n".utf8) + frame
            raw += frame
        }
        let inY4M = Self.temp(".y4m"), inRaw = Self.temp(".nv12"), out = Self.temp(".avcc")
        defer { for p in [inY4M, inRaw, out] { try? FileManager.default.removeItem(atPath: p) } }
        try Data(y4m).write(to: URL(fileURLWithPath: inY4M))
        try Data(raw).write(to: URL(fileURLWithPath: inRaw))
        try Self.run([inY4M, "-o", out, "--preset", "ultrafast", "--crf", "30"])
        // AVCC: 4-byte big-endian lengths that tile the file.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        var i = 0, slices = 0
        while i + 4 <= bytes.count {
            let n = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (1...5).contains(bytes[i + 4] & 0x1F) { slices += 1 }
            i += 4 + n
        }
        #expect(i == bytes.count && slices == 2)
        let out2 = Self.temp(".264")
        defer { try? FileManager.default.removeItem(atPath: out2) }
        try Self.run([inRaw, "--raw", "\(w)x\(h)", "--pix-fmt", "nv12", "-o", out2, "--preset", "ultrafast"])
        #expect(try Self.idrFlags(out2).count == 2)
        #expect(throws: CLIError.self) { try Self.run([inRaw, "--raw", "\(w)x\(h)", "--pix-fmt", "yuyv", "-o", out2]) }
        #expect(throws: CLIError.self) { try Self.run([inRaw, "-o", out2, "--format", "mkv"]) }
    }
}

/// `h264 encode` as x264 users type it: any output path, a bare bitrate in kbit/s.
@Suite struct EncodeHabitsTests {
    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test func devNullStaysADevice() throws {
        try EncodeCommandTests.run(["-o", "/dev/null", "--size", "160x96", "--frames", "3", "--preset", "ultrafast"])
        let type = try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
        #expect(type == .typeCharacterSpecial)
        #expect(throws: CLIError.self) {
            try EncodeCommandTests.run(["-o", "/dev/null", "--format", "avcc", "--size", "160x96", "--frames", "1"])
        }
    }

    @Test func formatFromTheExtensionOrTheOption() throws {
        let bin = EncodeCommandTests.temp(".bin"), flv = EncodeCommandTests.temp(".out")
        defer { for p in [bin, flv] { try? FileManager.default.removeItem(atPath: p) } }
        try EncodeCommandTests.run(["-o", bin, "--size", "160x96", "--frames", "2", "--preset", "ultrafast"])
        #expect(try Self.bytes(bin).prefix(5) == [0, 0, 0, 1, 0x67], "an unknown extension gets Annex-B")
        try EncodeCommandTests.run(["-o", flv, "--format", "flv", "--size", "160x96", "--frames", "2", "--preset", "ultrafast"])
        #expect(Array(try Self.bytes(flv).prefix(3)) == Array("FLV".utf8))
    }

    @Test func bareBitrateIsKilobitsAndChangesApply() throws {
        // Noise takes what it is given: 2 s at 400 kbit/s, then 2 s at 100 kbit/s.
        let out = EncodeCommandTests.temp(".h264")
        defer { try? FileManager.default.removeItem(atPath: out) }
        try EncodeCommandTests.run(["-o", out, "--size", "160x96", "--noise", "--frames", "120", "--preset", "veryfast",
                                    "--bframes", "0", "--threads", "1", "--bitrate", "400", "--change-bitrate", "60:100"])
        let units = try AnnexB.split(Self.bytes(out))
        var bits = [0, 0]
        var picture = -1
        for unit in units {
            if unit.type.isVCL { picture += 1 }
            if picture >= 0 { bits[min(1, picture / 60)] += (unit.count + 4) * 8 }
        }
        let kbps = bits.map { Double($0) / 2 / 1000 }
        #expect(kbps[0] > 200 && kbps[0] < 800, "\(kbps)")
        #expect(kbps[1] < kbps[0] / 2, "\(kbps)")
    }

    @Test(.enabled(if: CLIRobustnessTests.binary != nil, "the h264 executable is not built"))
    func x264NeverWritesToStderr() throws {
        // x264 would print its settings and warnings, and the reasons of a failed open, to
        // stderr; only h264's own lines may appear there.
        let ok = try Support.run(CLIRobustnessTests.binary!, ["encode", "-o", "/dev/null", "--size", "160x96", "--frames", "10",
                                                              "--max-delay", "0", "--level", "1.0", "--vbv-maxrate", "5000",
                                                              "--bitrate", "4000", "--ref", "16", "--preset", "medium"])
        #expect(ok.status == 0)
        #expect(ok.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("encoded ") }, "\(ok.stderr)")
        let failed = try Support.run(CLIRobustnessTests.binary!, ["encode", "-o", "/dev/null", "--size", "16386x16", "--frames", "1"])
        #expect(failed.status != 0)
        let lines = failed.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.allSatisfy { $0.hasPrefix("h264: ") }, "\(failed.stderr)")
    }
}
