import Synchronization
import Foundation
import Testing
import H264
import H264Video
@testable import X264
import TestSupport

@Suite struct X264EncoderTests {
    static func genericConfiguration(_ encoder: some FrameEncoder) throws -> AVCDecoderConfigurationRecord? {
        try encoder.decoderConfiguration
    }

    @Test func parameterSetsAndProfiles() throws {
        let cases: [(X264Encoder.Profile, PixelFormat, UInt8)] = [
            (.baseline, .i420, 66), (.main, .nv12, 77), (.high, .i420, 100), (.high10, .i420, 110),
            (.high422, .i422, 122), (.high444, .i444, 244),
        ]
        for (profile, format, idc) in cases {
            let encoder = try X264Encoder(options: X264Support.config { $0.profile = profile; $0.pixelFormat = format })
            let ps = encoder.parameterSets
            #expect(ps.map(\.type) == [.sps, .pps], "\(profile)")
            // Known from init: not optional on X264Encoder, the same record as any FrameEncoder's.
            let record: AVCDecoderConfigurationRecord = try encoder.decoderConfiguration
            #expect(record.profileIndication == idc, "\(profile)")
            #expect(try Self.genericConfiguration(encoder) == record)
            #expect(ps.first?.bytes.dropFirst().first == idc, "\(profile)")
            let frames = try X264Support.encode(encoder, count: 1, inBandParameterSets: false)
            #expect(frames.count == 1)
            // Out of band by default: the Annex-B rendering puts the encoder's SPS before the IDR.
            let stream = try AnnexB.split(try #require(frames.first).annexBSample(parameterSets: encoder.parameterSets))
            let sps = stream.first { $0.type == .sps }
            #expect(sps?.bytes.dropFirst().first == idc, "\(profile) in stream")
        }
    }

    @Test func explicitLevelIsWritten() throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.level = ProfileLevel.Level(levelIDC: 31) })
        #expect(encoder.parameterSets.first.map { Array($0.bytes)[3] } == 31)
    }

    @Test func forcedKeyframesLandExactly() throws {
        let forced: Set<Int> = [0, 7, 19, 20, 33]
        let encoder = try X264Encoder(options: X264Support.config { $0.maxKeyframeInterval = 250 })
        let out = try X264Support.encode(encoder, count: 40, forced: forced)
        #expect(out.count == 40)
        // pts counts frames (timescale 30, one tick per frame).
        let idr = Set(out.filter { au in au.nalUnits.contains { $0.type == .idrSlice } }.map { Int($0.pts) })
        #expect(idr == forced)
        #expect(Set(out.filter(\.isSyncSample).map { Int($0.pts) }) == forced)
        #expect(out.allSatisfy { $0.dts <= $0.pts })
    }

    @Test func keyframeIntervalFramesAndSeconds() throws {
        // 20 frames or 0.5 s at 30 fps (15 frames): 15 applies.
        let encoder = try X264Encoder(options: X264Support.config {
            $0.maxKeyframeInterval = 20; $0.maxKeyframeIntervalDuration = 0.5
        })
        let keys = try X264Support.encode(encoder, count: 61).filter(\.isSyncSample).map { Int($0.pts) }.sorted()
        #expect(keys.first == 0)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $1 - $0 <= 15 })
        #expect(keys.count >= 5)
    }

    @Test func flagsComeFromTheBitstream() throws {
        let encoder = try X264Encoder(options: X264Support.config())
        let out = try X264Support.encode(encoder, count: 30, inBandParameterSets: false)
        #expect(out.count == 30)
        for au in out {
            let hasIDR = au.nalUnits.contains { $0.type == .idrSlice }
            #expect(au.flags.isSync == hasIDR)
            #expect(au.flags.isDependedOnByOthers == au.nalUnits.contains { $0.type.isVCL && $0.nalRefIdc != 0 })
        }
        // Parameter sets travel out of band by default, as VideoToolbox's samples.
        #expect(out.allSatisfy { !$0.flags.hasParameterSets })
    }

    @Test func streamStructureOptions() throws {
        let aud = try X264Support.encode(X264Encoder(options: X264Support.config { $0.accessUnitDelimiters = true }), count: 3)
        #expect(aud.count == 3 && aud.allSatisfy { $0.nalUnits.first?.type == .accessUnitDelimiter })
        let sliced = try X264Support.encode(X264Encoder(options: X264Support.config { $0.slices = 3 }), count: 3)
        #expect(sliced.count == 3 && sliced.allSatisfy { $0.nalUnits.filter(\.type.isVCL).count == 3 })
        let small = try X264Support.encode(X264Encoder(options: X264Support.config { $0.maxSliceSize = 1200; $0.rateControl = .constantQP(20) }),
                                       count: 3, pattern: .noise)
        #expect(small.allSatisfy { au in au.nalUnits.filter(\.type.isVCL).allSatisfy { $0.count <= 1200 } })
        #expect(small.contains { $0.nalUnits.filter(\.type.isVCL).count > 1 })
        let headers = try X264Encoder(options: X264Support.config { $0.repeatParameterSets = true })
        let inBand = try X264Support.encode(headers, count: 3, inBandParameterSets: false)
        #expect(inBand.allSatisfy { $0.flags.hasParameterSets == $0.isSyncSample })
        #expect(headers.parameterSets.count == 2)
        let refresh = try X264Support.encode(X264Encoder(options: X264Support.config { $0.periodicIntraRefresh = true; $0.maxKeyframeInterval = 10 }), count: 30)
        #expect(refresh.filter(\.isSyncSample).count == 1, "intra refresh instead of IDR pictures")
    }

    @Test func bFramesAreDisposableAndReordered() throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.maxConsecutiveBFrames = 2; $0.rateControl = .constantQP(30) })
        let out = try X264Support.encode(encoder, count: 20)
        #expect(out.count == 20)
        #expect(out.map(\.pts) != out.map(\.pts).sorted(), "decoding order differs from presentation order")
        #expect(out.contains { !$0.flags.isDependedOnByOthers }, "some B-frames are disposable")
        for au in out where !au.flags.isDependedOnByOthers { #expect(au.nalUnits.allSatisfy { !$0.type.isVCL || $0.nalRefIdc == 0 }) }
    }

    @Test func bitrateChangeMovesTheOutputBitrate() throws {
        // White noise needs every bit it gets, so the output rate follows the target.
        let encoder = try X264Encoder(options: X264Support.config { $0.rateControl = .averageBitrate(400_000); $0.allowFrameReordering = false })
        let source = try TestPatternSource(width: 160, height: 96, frameCount: 180, pattern: .noise)
        let perSecond = Mutex<[Int]>([0, 0, 0])
        let i = Atomic(0)
        try source.start { frame in
            if i.load(ordering: .relaxed) == 60 { try encoder.setAverageBitrate(1_200_000) }
            if i.load(ordering: .relaxed) == 120 { try encoder.setAverageBitrate(200_000) }
            let out = try encoder.encode(frame)
            perSecond.withLock { for au in out { $0[Int(au.pts) / 60] += au.byteCount } }
            i.add(1, ordering: .relaxed)
        }
        var bytesPerSecond = perSecond.withLock { $0 }
        for au in try encoder.flush() { bytesPerSecond[Int(au.pts) / 60] += au.byteCount }
        let kbps = bytesPerSecond.map { Double($0) * 8 / 2 / 1000 }  // 60 frames = 2 s
        #expect(kbps[1] > kbps[0] * 1.4, "up, past the initial target: \(kbps)")
        #expect(kbps[2] < kbps[1] / 2.5, "down: \(kbps)")
        #expect(abs(kbps[2] - 200) / 200 < 0.15, "\(kbps)")
    }

    @Test func orientationIsWrittenAsDisplayOrientationSEI() throws {
        let encoder = try X264Encoder(options: X264Support.config())
        let out = try X264Support.encode(encoder, count: 3, orientation: Orientation(rotation: .clockwise90, mirrored: true))
        #expect(out.count == 3)
        for au in out {
            // Read back by the core's SEI parser, not compared with the bytes the encoder was
            // given: clockwise 90 is anticlockwise 270 (0xC000 of a turn), mirrored is hor_flip.
            var orientations: [SEIDisplayOrientation] = []
            for unit in au.nalUnits where unit.type == .sei {
                for message in try SEI.parse(unit, context: EmptySyntaxContext()).messages {
                    if case .displayOrientation(let o) = message.payload { orientations.append(o) }
                }
            }
            #expect(orientations.count == 1)
            let o = try #require(orientations.first)
            #expect(!o.cancel && o.horizontalFlip && !o.verticalFlip)
            #expect(o.anticlockwiseRotation == 0xC000 && o.rotationDegrees == 270)
            #expect(o.repetitionPeriod == 1 && !o.extensionFlag)
            // The SEI comes before the first slice.
            let firstSEI = au.nalUnits.firstIndex { $0.type == .sei } ?? .max
            let firstSlice = au.nalUnits.firstIndex { $0.type.isVCL } ?? -1
            #expect(firstSEI < firstSlice)
        }
    }

    @Test func rgbInputIsConverted() throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.pixelFormat = .bgra })
        var out: [EncodedFrame] = []
        for i in 0..<5 {
            var frame = try VideoFrame(width: 160, height: 96, format: .bgra, pts: Int64(i), timescale: 30, alignment: 64)
            frame.withMutablePlane(0) { p, _ in for j in 0..<p.count { p[j] = UInt8(truncatingIfNeeded: j &* 31 &+ i) } }
            out += try encoder.encode(frame)
        }
        out += try encoder.flush()
        #expect(out.count == 5)
    }

    @Test func logHandlerReceivesMessages() throws {
        final class Box: @unchecked Sendable { var lines: [String] = []; let lock = NSLock() }
        let box = Box()
        var c = X264Support.config { $0.logLevel = .info }
        c.logHandler = { _, line in box.lock.lock(); box.lines.append(line); box.lock.unlock() }
        let encoder = try X264Encoder(options: c)
        _ = try X264Support.encode(encoder, count: 2)
        #expect(box.lines.contains { $0.contains("profile") || $0.contains("cpu") })
    }

    @Test func independentEncodersRunInParallel() async throws {
        // Each encoder's own stream: the same pictures of the same kinds as one encoder alone.
        // Sizes may differ by a byte or two: libx264's SIMD reads a little past its own buffers
        // (valgrind shows it), so what lies there, which parallel allocation changes, can reach
        // the last macroblock's coding, and average-bitrate control then carries the difference
        // into the next pictures (8 bytes seen on a 2-core machine under load).
        let reference = try X264Support.encode(X264Encoder(options: X264Support.config()), count: 20)
        let results = try await withThrowingTaskGroup(of: [EncodedFrame].self) { group in
            for _ in 0..<4 {
                group.addTask { try X264Support.encode(X264Encoder(options: X264Support.config()), count: 20) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 4)
        for result in results {
            #expect(result.map(\.pts) == reference.map(\.pts))
            #expect(result.map(\.isSyncSample) == reference.map(\.isSyncSample))
            #expect(result.map { $0.nalUnits.map(\.type) } == reference.map { $0.nalUnits.map(\.type) })
            for (a, b) in zip(result, reference) {
                #expect(abs(a.byteCount - b.byteCount) <= max(16, b.byteCount / 20))
            }
        }
    }

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffprobe"))
    func colourDescriptionInTheVUI() throws {
        let cases: [(ColorDescription?, PixelFormat, String)] = [
            (.bt709, .i420, "tv|bt709|bt709|bt709"),
            (nil, .bgra, "tv|smpte170m|smpte170m|smpte170m"),
            (.init(primaries: 1, transferCharacteristics: 13, matrixCoefficients: 1, fullRange: true), .i420, "pc|bt709|bt709|iec61966-2-1"),
            (.bt601PAL, .i420, "tv|bt470bg|bt470bg|smpte170m"),
            (.bt2020, .i420, "tv|bt2020nc|bt2020|bt2020-10"),
        ]
        for (color, format, expected) in cases {
            let encoder = try X264Encoder(options: X264Support.config { $0.colorDescription = color; $0.pixelFormat = format })
            var out: [EncodedFrame] = []
            for i in 0..<2 { out += try encoder.encode(try VideoFrame(width: 160, height: 96, format: format, pts: Int64(i), timescale: 30)) }
            out += try encoder.flush()
            // The core parser reads back what was configured (BGRA input is described as BT.601).
            let sps = try #require(try Bitstream(out, parameterSets: encoder.parameterSets).sps)
            #expect(sps.colorDescription == (color ?? .bt601))
            let path = try Support.temporaryFile(out.flatMap { $0.annexBSample(parameterSets: encoder.parameterSets) }, name: "out.h264")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let probe = try Support.run("ffprobe", ["-v", "error", "-show_entries",
                "stream=color_range,color_space,color_primaries,color_transfer", "-of", "csv=p=0:s=|", path])
            let fields = Set(probe.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init))
            #expect(fields == Set(expected.split(separator: "|").map(String.init)), "\(probe.output)")
        }
    }

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe"))
    func defaultEncodeDecodesCleanly() throws {
        let encoder = try X264Encoder(options: X264Encoder.Options(width: 160, height: 96))
        let out = try X264Support.encode(encoder, count: 45, forced: [30], orientation: Orientation(rotation: .clockwise90),
                                         inBandParameterSets: false)
        let stream = out.flatMap { $0.annexBSample(parameterSets: encoder.parameterSets) }
        // SPS and PPS before each IDR (out of band in the samples themselves).
        let units = try AnnexB.split(stream)
        #expect(units.filter { $0.type == .sps }.count == out.filter(\.isSyncSample).count)
        #expect(out.filter(\.isSyncSample).count == 2)
        let ffmpeg = try X264Support.ffmpegView(stream, sideData: "rotation")
        #expect(ffmpeg.errors.isEmpty, "\(ffmpeg.errors)")
        #expect(ffmpeg.frameCount == 45)
        #expect(ffmpeg.keyFrames == 2)
        #expect(ffmpeg.frames.contains("90"), "display matrix rotation reported by ffprobe")
    }
}
