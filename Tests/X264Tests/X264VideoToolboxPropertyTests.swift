import Testing
import H264
import H264Video
@testable import X264
import TestSupport

/// Each VideoToolbox-style property, checked in the bitstream read back with the core's parsers.
@Suite struct X264VideoToolboxPropertyTests {
    @Test func entropyModeSetsEntropyCodingModeFlag() throws {
        for (mode, preset, flag) in [(X264Encoder.EntropyMode?.none, X264Encoder.Preset.veryfast, true),
                                     (.cavlc, .veryfast, false), (.cabac, .ultrafast, true), (nil, .ultrafast, false)] {
            let encoder = try X264Encoder(options: X264Support.config { $0.entropyMode = mode; $0.preset = preset })
            let stream = try Bitstream(X264Support.encode(encoder, count: 2))
            #expect(stream.pps?.entropyCodingModeFlag == flag, "\(String(describing: mode)) \(preset)")
            #expect(encoder.activeSettings.entropyMode == (flag ? .cabac : .cavlc))
        }
    }

    @Test(arguments: [1, 2, 3, 5])
    func referenceBufferCountIsMaxNumRefFrames(_ count: Int) throws {
        // medium: 3 refs, 3 B-frames with B-pyramid (which alone would need 4).
        let encoder = try X264Encoder(options: X264Support.config {
            $0.preset = .medium; $0.referenceFrameCount = count; $0.rateControl = .constantQP(30)
        })
        let stream = try Bitstream(X264Support.encode(encoder, count: 16))
        #expect(stream.sps?.maxNumRefFrames == UInt32(count))
        #expect(encoder.activeSettings.referenceFrameCount == count)
        // Fewer than 2: no B-frames; fewer than 4: B-frames are not references.
        let bSlices = stream.slices.filter { $0.header.isB }
        if count < 2 { #expect(bSlices.isEmpty) } else { #expect(!bSlices.isEmpty) }
        if count < 4 { #expect(bSlices.allSatisfy { $0.nal.nalRefIdc == 0 }) }
    }

    @Test(arguments: [0, 1, 3, 8])
    func maxFrameDelayCountBoundsTheFramesHeld(_ n: Int) throws {
        let config = X264Support.config { $0.preset = .medium; $0.threads = 0; $0.maxFrameDelayCount = n }
        let encoder = try X264Encoder(options: config)
        #expect(encoder.activeSettings.maximumFrameDelay <= n)
        let source = try TestPatternSource(width: 160, height: 96, frameCount: 24)
        var out: [EncodedFrame] = []
        for i in 0..<24 {
            out += try encoder.encode(source.makeFrame(i))
            #expect(out.count >= i + 1 - n, "after frame \(i) only \(out.count) access units came out")
        }
        out += try encoder.flush()
        #expect(out.count == 24)
        // The bumping delay the SPS announces fits in the bound too.
        let vui = try #require(Bitstream(out, parameterSets: encoder.parameterSets).sps?.vui)
        #expect(vui.bitstreamRestrictionFlag, "x264 writes bitstream_restriction for a progressive non-intra stream")
        #expect(Int(vui.maxNumReorderFrames) <= n)
    }

    @Test func unboundedDelayIsLonger() throws {
        // The bound above does something: medium's own delay is more than 8 frames.
        let encoder = try X264Encoder(options: X264Support.config { $0.preset = .medium; $0.threads = 0 })
        #expect(encoder.activeSettings.maximumFrameDelay > 8)
    }

    @Test func lookaheadFrameCountDelaysOutputByThatMany() throws {
        let encoder = try X264Encoder(options: X264Support.config {
            $0.preset = .medium; $0.threads = 1; $0.allowFrameReordering = false; $0.lookaheadFrameCount = 5
        })
        #expect(encoder.activeSettings.lookaheadFrameCount == 5)
        let source = try TestPatternSource(width: 160, height: 96, frameCount: 12)
        var firstOutput: Int?
        for i in 0..<12 where firstOutput == nil {
            if try !encoder.encode(source.makeFrame(i)).isEmpty { firstOutput = i }
        }
        #expect(firstOutput == 5, "the sixth frame in releases the first")
    }

    @Test func openGOPKeyframesAreIPicturesWithRecoveryPoints() throws {
        func keyframes(_ open: Bool) throws -> (idr: Int, recoveryI: Int) {
            let encoder = try X264Encoder(options: X264Support.config {
                $0.preset = .medium; $0.maxKeyframeInterval = 10; $0.allowOpenGOP = open; $0.rateControl = .constantQP(26)
            })
            let stream = try Bitstream(X264Support.encode(encoder, count: 40, pattern: .noise))
            let idr = Set(stream.slices.filter(\.isIDR).map(\.accessUnit)).count
            let recovery = Set(stream.sei.filter { $0.value.contains { $0.payloadType == .recoveryPoint } }.map(\.key))
            let recoveryI = Set(stream.slices.filter { !$0.isIDR && $0.isIntra && recovery.contains($0.accessUnit) }.map(\.accessUnit))
            return (idr, recoveryI.count)
        }
        let closed = try keyframes(false), open = try keyframes(true)
        #expect(closed.idr >= 4 && closed.recoveryI == 0)
        #expect(open.idr == 1 && open.recoveryI >= 3, "\(open)")
    }

    @Test func noTemporalCompressionCodesEveryFrameAsIDR() throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.allowTemporalCompression = false })
        let stream = try Bitstream(X264Support.encode(encoder, count: 8))
        #expect(stream.slices.count == 8 && stream.slices.allSatisfy(\.isIDR))
    }

    @Test func colourDescriptionAndPixelAspectRatioInTheVUI() throws {
        let encoder = try X264Encoder(options: X264Support.config {
            $0.color = .init(primaries: 9, transfer: 16, matrix: 9, fullRange: true)
            $0.pixelAspectRatio = (64, 45)
        })
        let sps = try #require(Bitstream(X264Support.encode(encoder, count: 2)).sps)
        #expect(sps.vui.colourDescriptionPresentFlag)
        #expect(sps.vui.colourPrimaries == 9 && sps.vui.transferCharacteristics == 16 && sps.vui.matrixCoefficients == 9)
        #expect(sps.vui.videoFullRangeFlag)
        #expect(sps.sampleAspectRatio.map { [$0.width, $0.height] } == [64, 45])
        let square = try X264Encoder(options: X264Support.config { $0.pixelAspectRatio = (4, 3) })
        #expect(try Bitstream(X264Support.encode(square, count: 1)).sps?.sampleAspectRatio.map { [$0.width, $0.height] } == [4, 3])
    }

    @Test func hdrMetadataSEIOnKeyframes() throws {
        var volume = SEIMasteringDisplayColourVolume()
        volume.displayPrimariesX = [8500, 6550, 35400]  // BT.2020 green, blue, red (x 50000)
        volume.displayPrimariesY = [39850, 2300, 14600]
        volume.whitePointX = 15635
        volume.whitePointY = 16450
        volume.maxDisplayMasteringLuminance = 10_000_000
        volume.minDisplayMasteringLuminance = 50
        let light = SEIContentLightLevelInfo(maxContentLightLevel: 1000, maxPicAverageLightLevel: 400)
        let encoder = try X264Encoder(options: X264Support.config {
            $0.masteringDisplayColourVolume = volume; $0.contentLightLevelInfo = light; $0.maxKeyframeInterval = 5
        })
        let stream = try Bitstream(X264Support.encode(encoder, count: 11))
        let keyframes = Set(stream.slices.filter(\.isIDR).map(\.accessUnit))
        #expect(keyframes.count >= 3)
        for au in keyframes {
            let payloads = stream.sei[au, default: []].map(\.payload)
            #expect(payloads.contains(.masteringDisplayColourVolume(volume)), "access unit \(au)")
            #expect(payloads.contains(.contentLightLevelInfo(light)), "access unit \(au)")
        }
    }

    @Test func frameQPBounds() throws {
        let capped = try X264Encoder(options: X264Support.config { $0.rateControl = .constantQuality(45); $0.maxFrameQP = 30 })
        let low = try Bitstream(X264Support.encode(capped, count: 10, pattern: .noise)).slices.map(\.qp)
        #expect(!low.isEmpty && low.allSatisfy { $0 <= 30 }, "\(low)")
        let floored = try X264Encoder(options: X264Support.config { $0.rateControl = .constantQuality(5); $0.minFrameQP = 35 })
        let high = try Bitstream(X264Support.encode(floored, count: 10, pattern: .noise)).slices.map(\.qp)
        #expect(!high.isEmpty && high.allSatisfy { $0 >= 35 }, "\(high)")
        // Without the bounds the same settings go past them.
        let free = try X264Encoder(options: X264Support.config { $0.rateControl = .constantQuality(45) })
        #expect(try Bitstream(X264Support.encode(free, count: 10, pattern: .noise)).slices.contains { $0.qp > 30 })
    }

    @Test func qualityFixesTheQP() throws {
        #expect(X264Encoder.RateControl.quality(0.5) == .constantQP(26))
        #expect(X264Encoder.RateControl.quality(1) == .constantQP(0))
        #expect(X264Encoder.RateControl.constantQualityFactor(0.5) == .constantQuality(25.5))
        let encoder = try X264Encoder(options: X264Support.config { $0.rateControl = .quality(0.25); $0.allowFrameReordering = false })
        // The moving test pattern: noise made every frame an I frame (a scene cut), and the check
        // of P slices below checked nothing.
        let stream = try Bitstream(X264Support.encode(encoder, count: 6))
        let predicted = stream.slices.filter { !$0.isIntra }
        #expect(predicted.count >= 3, "\(predicted.count) P slices in 6 frames")
        #expect(predicted.allSatisfy { $0.qp == 38 }, "\(predicted.map(\.qp))")
    }

    @Test func moreFramesHintsMakeStitchableParameterSets() throws {
        // A constant QP is otherwise the PPS's pic_init_qp; stitchable streams all say 26.
        let plain = try X264Encoder(options: X264Support.config { $0.rateControl = .constantQP(35) })
        #expect(try Bitstream(X264Support.encode(plain, count: 1)).pps?.picInitQpMinus26 != 0)
        for edit: (inout X264Encoder.Options) -> Void in [{ $0.moreFramesBeforeStart = true }, { $0.moreFramesAfterEnd = true }] {
            let encoder = try X264Encoder(options: X264Support.config { $0.rateControl = .constantQP(35); edit(&$0) })
            #expect(try Bitstream(X264Support.encode(encoder, count: 1)).pps?.picInitQpMinus26 == 0)
        }
    }

    @Test func readBackReportsWhatTheBitstreamSays() throws {
        // ultrafast uses no CABAC, B-frames or 8x8 transforms: x264 signals constrained
        // baseline although High was asked for.
        let encoder = try X264Encoder(options: X264Support.config { $0.preset = .ultrafast; $0.level = ProfileLevel.Level(levelIDC: 31) })
        let settings = encoder.activeSettings
        let sps = try #require(Bitstream(X264Support.encode(encoder, count: 2)).sps)
        #expect(settings.profileIDC == Int(sps.profileIDC) && settings.profile == .baseline)
        #expect(settings.levelIDC == Int(sps.levelIDC) && settings.levelIDC == 31)
        #expect(settings.maxConsecutiveBFrames == 0)
        let auto = try X264Encoder(options: X264Support.config()).activeSettings
        #expect(auto.profile == .high && auto.levelIDC > 0 && auto.maximumFrameDelay > 0)
    }
}
