import Foundation
import Testing
import H264
import H264Video
@testable import X264
import TestSupport

@Suite struct X264RateControlTests {
    /// Encodes `count` noise frames (which take every bit they are given), calling `change`
    /// before each frame; the access units in decoding order.
    static func encodeNoise(_ encoder: X264Encoder, count: Int, width: Int = 160, height: Int = 96,
                            change: (Int) throws -> Void = { _ in }) throws -> [EncodedFrame] {
        let source = try TestPatternSource(width: width, height: height, frameCount: count, pattern: .noise)
        var out: [EncodedFrame] = []
        for i in 0..<count {
            try change(i)
            out += try encoder.encode(source.makeFrame(i))
        }
        return out + (try encoder.flush())
    }

    /// The most bytes (Annex-B, start codes included) in any window of `frames` consecutive
    /// frames in presentation order.
    static func largestWindow(_ units: [EncodedFrame], frames: Int) -> Int {
        let sizes = units.sorted { $0.pts < $1.pts }.map { $0.annexBSample().count }
        var sum = sizes.prefix(frames).reduce(0, +), best = sum
        for i in frames..<max(frames, sizes.count) {
            sum += sizes[i] - sizes[i - frames]
            best = max(best, sum)
        }
        return best
    }

    @Test func averageBitrateIsPlainABR() throws {
        let plan = X264Encoder.Options.ratePlan(.init(rateControl: .averageBitrate(1_500_000), limits: []),
                                                      vbvMaxBitrate: nil, vbvBufferDuration: nil,
                                                      vbvInitialDelayPercentage: nil, frameRate: 30)
        #expect(plan == X264Encoder.RatePlan(method: .abr, bitrate: 1500))
        #expect(!plan.hasVBV)
        let encoder = try X264Encoder(options: X264Support.config { $0.rateControl = .averageBitrate(1_500_000) })
        #expect(encoder.activeSettings.vbv == nil)
    }

    @Test func dataRateLimitsHoldInEveryWindow() throws {
        // 500 kbit per second and 100 kbit per 0.1 s asked of 1.2 Mbit/s of noise.
        let limits = [DataRateLimit(bytes: 62_500, seconds: 1), DataRateLimit(bytes: 12_500, seconds: 0.1)]
        let encoder = try X264Encoder(options: X264Support.config {
            $0.rateControl = .averageBitrate(1_200_000); $0.dataRateLimits = limits; $0.expectedFrameRate = 30
        })
        let out = try Self.encodeNoise(encoder, count: 90)
        #expect(Self.largestWindow(out, frames: 30) <= 62_500)
        #expect(Self.largestWindow(out, frames: 3) <= 12_500)
        // The limits bind: without them the same frames take far more.
        let free = try Self.encodeNoise(X264Encoder(options: X264Support.config { $0.rateControl = .averageBitrate(1_200_000) }),
                                        count: 90)
        #expect(Self.largestWindow(free, frames: 30) > 100_000)
    }

    @Test func limitsSetLaterHoldFromThenOn() throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.rateControl = .constantQuality(20) })
        let out = try Self.encodeNoise(encoder, count: 90) { i in
            if i == 30 { try encoder.setDataRateLimits([DataRateLimit(bytes: 50_000, seconds: 1)]) }
        }
        let later = out.filter { $0.pts >= 30 }
        #expect(Self.largestWindow(later, frames: 30) <= 50_000)
        #expect(Self.largestWindow(out.filter { $0.pts < 30 }, frames: 30) > 50_000, "CRF 20 on noise is above the limit")
    }

    @Test func bitrateChangesReachTheirTargets() throws {
        // 1 -> 3 -> 0.5 Mbit/s, each held 2 s (60 frames at 30 fps), on noise at 320x192. The
        // change before the first frame makes the encoder retargetable (a reopen with nothing
        // to drain), so the two that follow are applied in place.
        let encoder = try X264Encoder(options: X264Support.config(320, 192) {
            $0.rateControl = .averageBitrate(2_000_000); $0.maxKeyframeInterval = 60
        })
        let out = try Self.encodeNoise(encoder, count: 180, width: 320, height: 192) { i in
            if i == 0 { try encoder.setAverageBitrate(1_000_000) }
            if i == 60 { try encoder.setAverageBitrate(3_000_000) }
            if i == 120 { try encoder.setAverageBitrate(500_000) }
        }
        var bytes = [0, 0, 0]
        for au in out { bytes[Int(au.pts) / 60] += au.annexBSample().count }
        let kbps = bytes.map { Double($0) * 8 / 2 / 1000 }
        #expect(abs(kbps[1] - 3000) / 3000 < 0.10, "\(kbps)")
        #expect(abs(kbps[2] - 500) / 500 < 0.10, "\(kbps)")
    }

    @Test func firstChangeReopensThenChangesApplyInPlace() throws {
        // medium: B-frames with B-pyramid, so DTS runs behind PTS and frames are held.
        let encoder = try X264Encoder(options: X264Support.config {
            $0.preset = .medium; $0.threads = 0; $0.rateControl = .averageBitrate(400_000); $0.maxKeyframeInterval = 250
        })
        let before = encoder.parameterSets
        var idrAt: [Int] = []
        let out = try Self.encodeNoise(encoder, count: 60) { i in
            if i == 20 {
                try encoder.setAverageBitrate(800_000)
                #expect(encoder.activeSettings.vbv == .init(maxBitrate: 800_000, bufferBits: 1_600_000))
            }
            if i == 40 { try encoder.setAverageBitrate(300_000) }
        }
        for au in out where au.nalUnits.contains(where: { $0.type == .idrSlice }) { idrAt.append(Int(au.pts)) }
        #expect(idrAt == [0, 20], "one IDR for the reopen at frame 20, none for the change in place at 40")
        #expect(out.count == 60 && Set(out.map(\.pts)) == Set(0..<60))
        #expect(zip(out, out.dropFirst()).allSatisfy { $0.dts < $1.dts }, "DTS keeps increasing across the reopen")
        #expect(out.allSatisfy { $0.dts <= $0.pts })
        #expect(encoder.parameterSets.map(\.bytes) == before.map(\.bytes), "same level, same SPS and PPS")
        #expect(encoder.activeSettings.rateControl == .averageBitrate(300_000))
    }

    @Test func qualityModeTakesABitrate() throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.rateControl = .constantQuality(10) })
        let out = try Self.encodeNoise(encoder, count: 90) { i in
            if i == 30 { try encoder.setAverageBitrate(200_000) }
        }
        #expect(encoder.activeSettings.rateControl == .averageBitrate(200_000))
        let before = out.filter { $0.pts < 30 }.reduce(0) { $0 + $1.byteCount }
        let after = out.filter { $0.pts >= 60 }.reduce(0) { $0 + $1.byteCount }
        #expect(abs(Double(after) * 8 - 200_000) / 200_000 < 0.15, "\(after * 8) bits in the last second")
        #expect(before > after * 3, "CRF 10 on noise takes far more")
    }

    @Test func constantBitrateFillsEveryWindow() throws {
        let encoder = try X264Encoder(options: X264Support.config {
            $0.rateControl = .constantBitrate(400_000); $0.vbvBufferDuration = 0.5; $0.allowFrameReordering = false
        })
        // Flat colour bars need far fewer bits: CBR pads with filler data.
        let out = try X264Support.encode(encoder, count: 90)
        let stream = try Bitstream(out)
        #expect(stream.types.joined().contains(.fillerData))
        let hrd = try #require(stream.sps?.vui.nalHRD)
        #expect(hrd.cpbs.first?.cbrFlag == true)
        // After the first window (the buffer's initial fill), each second carries the rate.
        let later = out.filter { $0.pts >= 30 }.reduce(0) { $0 + $1.annexBSample().count }
        #expect(abs(Double(later) * 8 / 2 - 400_000) / 400_000 < 0.05, "\(Double(later) * 8 / 2) bit/s")
    }

    @Test func variableBitrateKeepsItsVBV() throws {
        let encoder = try X264Encoder(options: X264Support.config {
            $0.rateControl = .variableBitrate(300_000); $0.vbvMaxBitrate = 600_000; $0.vbvBufferDuration = 0.5
        })
        #expect(encoder.activeSettings.vbv == .init(maxBitrate: 600_000, bufferBits: 300_000))
        let out = try Self.encodeNoise(encoder, count: 60)
        // At most the buffer plus a second of the peak rate in any second.
        #expect(Self.largestWindow(out, frames: 30) * 8 <= 300_000 + 600_000)
    }

    @Test func timestampsMustIncreaseInOneTimescale() throws {
        let encoder = try X264Encoder(options: X264Support.config())
        let first = try VideoFrame(width: 160, height: 96, format: .i420, pts: 7, timescale: 30)
        _ = try encoder.encode(first)
        #expect(throws: X264Error(.invalidTimestamp, "")) { try encoder.encode(first) }
        var earlier = first
        earlier.pts = 6
        #expect(throws: X264Error(.invalidTimestamp, "")) { try encoder.encode(earlier) }
        var rescaled = first
        (rescaled.pts, rescaled.timescale) = (8 * 3000, 90_000)
        #expect(throws: X264Error(.invalidTimestamp, "")) { try encoder.encode(rescaled) }
        var next = first
        next.pts = 8
        _ = try encoder.encode(next)
        #expect(try (encoder.flush()).map(\.pts).sorted() == [7, 8])
    }

    @Test(.enabled(if: Tool.required("x264"), "needs the x264 CLI"))
    func sameBitstreamAsTheX264CLI() throws {
        // 45 frames of the test pattern as Y4M; the same settings for both encoders.
        let source = try TestPatternSource(width: 160, height: 96, frameCount: 45)
        var y4m = Array("YUV4MPEG2 W160 H96 F30:1 Ip A1:1 C420jpeg\n".utf8)
        var frames: [VideoFrame] = []
        for i in 0..<45 {
            let f = try source.makeFrame(i)
            frames.append(f)
            y4m += Array("FRAME\n".utf8)
            for (p, plane) in f.planes.enumerated() {
                let (w, h) = p == 0 ? (160, 96) : (80, 48)
                for row in 0..<h { y4m += plane.bytes[row * plane.bytesPerRow..<row * plane.bytesPerRow + w] }
            }
        }
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.y4m", output = dir + "/out.264"
        try Data(y4m).write(to: URL(fileURLWithPath: input))
        try Support.run("x264", ["--quiet", "--preset", "veryfast", "--bitrate", "300", "--keyint", "30",
                                 "--threads", "1", "--sar", "1:1", "-o", output, input]).checked("x264")
        let cli = try AnnexB.split([UInt8](Data(contentsOf: URL(fileURLWithPath: output))))
        let encoder = try X264Encoder(options: X264Support.config {
            $0.rateControl = .averageBitrate(300_000); $0.maxKeyframeInterval = 30; $0.pixelAspectRatio = (1, 1)
            $0.repeatParameterSets = true  // the x264 CLI's default
            $0.expectedFrameRate = 30  // the Y4M's F30:1, which the CLI writes as VUI timing
        })
        var ours: [EncodedFrame] = []
        for f in frames { ours += try encoder.encode(f) }
        ours += try encoder.flush()
        let mine = ours.flatMap(\.nalUnits)
        #expect(cli.count > 45)
        // The same stream as the CLI's: parameter sets byte for byte, the same NAL units in the
        // same order, each slice the same size up to a few bytes. Not byte-exact in this
        // process: libx264's SIMD reads up to 16 bytes past its own buffers (valgrind shows
        // it), so with other tests allocating in parallel the last macroblock of a picture can
        // come out a byte or two different. Run alone in its own process, h264 encode gives
        // the CLI's stream to the byte (Docs/Encoding.md).
        #expect(cli.map(\.type) == mine.map(\.type))
        #expect(cli.filter { $0.type == .sps || $0.type == .pps }.map(\.bytes)
                == mine.filter { $0.type == .sps || $0.type == .pps }.map(\.bytes))
        for (a, b) in zip(cli, mine) where a.type.isVCL {
            #expect(abs(a.count - b.count) <= max(4, a.count / 50), "slice of \(a.count) bytes vs \(b.count)")
        }
        let total = (cli.reduce(0) { $0 + $1.count }, mine.reduce(0) { $0 + $1.count })
        #expect(abs(total.0 - total.1) <= total.0 / 100)
    }
}
