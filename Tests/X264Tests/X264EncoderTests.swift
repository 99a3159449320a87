import Foundation
import Testing
import H264
@testable import X264

@Suite struct X264EncoderTests {
    @Test func parameterSetsAndProfiles() throws {
        let cases: [(X264Encoder.Profile, PixelFormat, UInt8)] = [
            (.baseline, .i420, 66), (.main, .nv12, 77), (.high, .i420, 100), (.high10, .i420, 110),
            (.high422, .i422, 122), (.high444, .i444, 244),
        ]
        for (profile, format, idc) in cases {
            let encoder = try X264Encoder(configuration: Support.config { $0.profile = profile; $0.pixelFormat = format })
            let ps = encoder.parameterSets
            #expect(ps.map(\.type) == [.sps, .pps], "\(profile)")
            #expect(ps.first?.bytes.dropFirst().first == idc, "\(profile)")
            let out = try Support.encode(encoder, count: 0 + 1)
            let frames = out
            #expect(frames.count == 1)
            let sps = frames.first?.nalUnits.first { $0.type == .sps }
            #expect(sps?.bytes.dropFirst().first == idc, "\(profile) in stream")
        }
    }

    @Test func explicitLevelIsWritten() throws {
        let encoder = try X264Encoder(configuration: Support.config { $0.level = .idc(31) })
        #expect(encoder.parameterSets.first.map { Array($0.bytes)[3] } == 31)
    }

    @Test func forcedKeyframesLandExactly() throws {
        let forced: Set<Int> = [0, 7, 19, 20, 33]
        let encoder = try X264Encoder(configuration: Support.config { $0.maxKeyframeInterval = 250 })
        let out = try Support.encode(encoder, count: 40, forced: forced)
        #expect(out.count == 40)
        // pts counts frames (timescale 30, one tick per frame).
        let idr = Set(out.filter { au in au.nalUnits.contains { $0.type == .idrSlice } }.map { Int($0.pts) })
        #expect(idr == forced)
        #expect(Set(out.filter(\.isKeyframe).map { Int($0.pts) }) == forced)
        #expect(out.allSatisfy { $0.dts <= $0.pts })
    }

    @Test func keyframeIntervalFramesAndSeconds() throws {
        // 20 frames or 0.5 s at 30 fps (15 frames): 15 applies.
        let encoder = try X264Encoder(configuration: Support.config {
            $0.maxKeyframeInterval = 20; $0.maxKeyframeIntervalDuration = 0.5
        })
        let keys = try Support.encode(encoder, count: 61).filter(\.isKeyframe).map { Int($0.pts) }.sorted()
        #expect(keys.first == 0)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $1 - $0 <= 15 })
        #expect(keys.count >= 5)
    }

    @Test func flagsComeFromTheBitstream() throws {
        let encoder = try X264Encoder(configuration: Support.config())
        let out = try Support.encode(encoder, count: 30)
        for au in out {
            let hasIDR = au.nalUnits.contains { $0.type == .idrSlice }
            #expect(au.flags.isSync == hasIDR)
            #expect(au.flags.isDependedOnByOthers == au.nalUnits.contains { $0.type.isVCL && $0.nalRefIdc != 0 })
        }
        #expect(out.first?.flags.hasParameterSets == true)
    }

    @Test func bitrateChangeMovesTheOutputBitrate() throws {
        // White noise needs every bit it gets, so the output rate follows the target.
        let encoder = try X264Encoder(configuration: Support.config { $0.rateControl = .averageBitrate(400_000); $0.allowFrameReordering = false })
        let source = try TestPatternSource(width: 160, height: 96, frameCount: 180, pattern: .noise)
        var bytesPerSecond: [Int] = [0, 0, 0]
        var i = 0
        try source.start { (frame: VideoFrame) throws(H264Error) in
            if i == 60 { try encoder.setAverageBitrate(1_200_000) }
            if i == 120 { try encoder.setAverageBitrate(200_000) }
            for au in try encoder.encode(frame) { bytesPerSecond[Int(au.pts) / 60] += au.byteCount }
            i += 1
        }
        for au in try encoder.flush() { bytesPerSecond[Int(au.pts) / 60] += au.byteCount }
        let kbps = bytesPerSecond.map { Double($0) * 8 / 2 / 1000 }  // 60 frames = 2 s
        #expect(kbps[1] > kbps[0] * 1.4, "up, past the initial target: \(kbps)")
        #expect(kbps[2] < kbps[1] / 2.5, "down: \(kbps)")
        #expect(abs(kbps[2] - 200) / 200 < 0.15, "\(kbps)")
    }

    @Test func orientationIsWrittenAsDisplayOrientationSEI() throws {
        let encoder = try X264Encoder(configuration: Support.config())
        let out = try Support.encode(encoder, count: 3, orientation: Orientation(rotation: .clockwise90, mirrored: true))
        for au in out {
            let sei = au.nalUnits.filter { $0.type == .sei }.map { Array($0.rbsp) }
            let payload = Orientation(rotation: .clockwise90, mirrored: true).displayOrientationPayload
            #expect(sei.contains([47, UInt8(payload.count)] + payload + [0x80]), "\(sei)")
            // The SEI comes before the first slice.
            let firstSEI = au.nalUnits.firstIndex { $0.type == .sei } ?? .max
            let firstSlice = au.nalUnits.firstIndex { $0.type.isVCL } ?? -1
            #expect(firstSEI < firstSlice)
        }
    }

    @Test func rgbInputIsConverted() throws {
        let encoder = try X264Encoder(configuration: Support.config { $0.pixelFormat = .bgra })
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
        var c = Support.config { $0.logLevel = .info }
        c.logHandler = { _, line in box.lock.lock(); box.lines.append(line); box.lock.unlock() }
        let encoder = try X264Encoder(configuration: c)
        _ = try Support.encode(encoder, count: 2)
        #expect(box.lines.contains { $0.contains("profile") || $0.contains("cpu") })
    }

    @Test func independentEncodersRunInParallel() async throws {
        let reference = try Support.encode(X264Encoder(configuration: Support.config()), count: 20).flatMap { $0.annexB() }
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<4 {
                group.addTask { try Support.encode(X264Encoder(configuration: Support.config()), count: 20).flatMap { $0.annexB() } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 4 && results.allSatisfy { $0 == reference })
    }

    @Test(.enabled(if: Support.ffmpeg != nil && Support.ffprobe != nil, "needs ffmpeg and ffprobe"))
    func defaultEncodeDecodesCleanly() throws {
        let encoder = try X264Encoder(configuration: X264Encoder.Configuration(width: 160, height: 96))
        let out = try Support.encode(encoder, count: 45, forced: [30], orientation: Orientation(rotation: .clockwise90))
        let path = try Support.temporaryFile(out.flatMap { $0.annexB() }, suffix: ".h264")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let decode = try Support.run(Support.ffmpeg!, ["-v", "error", "-i", path, "-f", "null", "-"])
        #expect(decode.err.isEmpty, "\(decode.err)")
        let probe = try Support.run(Support.ffprobe!, ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                       "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        #expect(probe.out.trimmingCharacters(in: .whitespacesAndNewlines) == "45")
        let frames = try Support.run(Support.ffprobe!, ["-v", "error", "-show_frames", "-show_entries",
                                                        "frame=key_frame:side_data=rotation", "-of", "csv=p=0", path])
        let keys = frames.out.split(separator: "\n").filter { $0.hasPrefix("1") }.count
        #expect(keys == 2)
        #expect(frames.out.contains("90"), "display matrix rotation reported by ffprobe")
    }
}
