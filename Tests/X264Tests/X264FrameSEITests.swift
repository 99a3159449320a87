import Foundation
import Testing
import H264
import H264Video
import TestSupport
@testable import X264

/// Per-frame SEI messages through `FrameEncodeOptions.seiMessages`: captions and user data via
/// x264's `extra_sei` (memory x264 frees), time codes and recovery points put into the access
/// unit as it comes out; each on the frame it was given with, B-frames reordering or not.
@Suite struct X264FrameSEITests {
    static let uuid: [UInt8] = Array(100..<116)

    /// Encodes `count` frames with `messages(i)` on frame i; the access units in presentation
    /// order, each with its SEI messages parsed with the encoder's SPS.
    static func encode(_ encoder: X264Encoder, count: Int, messages: (Int) throws -> [SEIMessage]) throws -> [(EncodedFrame, [SEIMessage])] {
        let c = encoder.options
        let source = try TestPatternSource(width: c.width, height: c.height, frameCount: count, pattern: .colorBars)
        var out: [EncodedFrame] = []
        for i in 0..<count {
            out += try encoder.encode(try source.makeFrame(i), options: FrameEncodeOptions(seiMessages: try messages(i)))
        }
        out += try encoder.flush()
        let sps = try #require(try encoder.parameterSets.first { $0.type == .sps }.map { try SequenceParameterSet(rbsp: $0.rbsp) })
        let context = SEIContext(timing: sps.seiTimingInfo)
        return try out.sorted { $0.pts < $1.pts }.map { au in
            (au, try au.nalUnits.filter { $0.type == .sei }.flatMap { try SEI.parse($0, context: context).messages })
        }
    }

    struct SEIContext: SyntaxContext {
        let timing: SEITimingInfo
        var activeSEITimingInfo: SEITimingInfo? { timing }
        func seiTimingInfo(forSPS id: Int) -> SEITimingInfo? { timing }
    }

    @Test(arguments: [0, 3])
    func captionsAndUserDataOnTheirFrames(bFrames: Int) throws {
        let encoder = try X264Encoder(options: X264Support.config { $0.maxConsecutiveBFrames = bFrames })
        let captioned: Set<Int> = [1, 4, 5, 17]
        let pictures = try Self.encode(encoder, count: 24) { i in
            var m: [SEIMessage] = []
            if captioned.contains(i) { m.append(try .captions(A53CaptionData(constructs: [.init(type: .ntscField1, data1: 0x80, data2: UInt8(i))]))) }
            if i % 7 == 0 { m.append(try .userDataUnregistered(uuid: Self.uuid, payload: [UInt8(i)])) }
            return m
        }
        #expect(pictures.count == 24)
        if bFrames > 0 { #expect(pictures.contains { $0.0.pts != $0.0.dts }, "no reordering: the test would not check it") }
        for (i, (au, messages)) in pictures.enumerated() {
            let captions = messages.compactMap { m -> A53CaptionData? in if case .userDataRegistered(let r) = m.payload { return r.captions }; return nil }
            #expect(captions.map { $0.constructs.map(\.data2) } == (captioned.contains(i) ? [[UInt8(i)]] : []), "frame \(i)")
            let userData = messages.compactMap { m -> [UInt8]? in
                if case .userDataUnregistered(let u) = m.payload, u.uuid == Self.uuid { return u.payload }
                return nil
            }
            #expect(userData == (i % 7 == 0 ? [[UInt8(i)]] : []), "frame \(i)")
            let firstSlice = try #require(au.nalUnits.firstIndex { $0.type.isVCL })
            #expect(au.nalUnits[firstSlice...].allSatisfy { $0.type.isVCL })
        }
        #expect(ExtraSEILedger.outstandingBlocks(owner: encoder.seiOwner) == 0)
    }

    /// x264 frees what it was given even for frames it still holds when the encoder goes away
    /// without a flush.
    @Test func extraSEIFreedWhenClosedWithFramesHeld() throws {
        var owner = 0
        do {
            let encoder = try X264Encoder(options: X264Support.config { $0.lookaheadFrameCount = 20 })
            owner = encoder.seiOwner
            let source = try TestPatternSource(width: 160, height: 96, frameCount: 10, pattern: .colorBars)
            for i in 0..<10 {
                _ = try encoder.encode(try source.makeFrame(i), options: FrameEncodeOptions(seiMessages: [try .userDataUnregistered(uuid: Self.uuid, payload: [1, 2, 3])]))
            }
            #expect(encoder.delayedFrames > 0)
            #expect(ExtraSEILedger.outstandingBlocks(owner: owner) > 0)
        }
        #expect(ExtraSEILedger.outstandingBlocks(owner: owner) == 0)
    }

    /// A time code on every frame, counting up in presentation order; one pic_timing per
    /// picture (x264's gives way), with x264's HRD delays when it has NAL HRD.
    @Test(arguments: [false, true])
    func timecodesOnEveryFrame(hrd: Bool) throws {
        let encoder = try X264Encoder(options: X264Support.config {
            $0.pictureTiming = true
            $0.maxConsecutiveBFrames = 2
            if hrd { $0.rateControl = .constantBitrate(300_000) }
        })
        let start = try SMPTETimecode(parsing: "09:59:59:20")
        let sps = try #require(try encoder.parameterSets.first { $0.type == .sps }.map { try SequenceParameterSet(rbsp: $0.rbsp) })
        #expect(sps.seiTimingInfo.picStructPresent && sps.seiTimingInfo.cpbDpbDelaysPresent == hrd)
        let timing = sps.seiTimingInfo
        let pictures = try Self.encode(encoder, count: 20) { i in
            [SEIMessage(.picTiming(SEIPicTiming(timing: timing, timecode: start.advanced(by: i, framesPerSecond: 30))))]
        }
        for (i, (_, messages)) in pictures.enumerated() {
            let timings = messages.compactMap { m -> SEIPicTiming? in if case .picTiming(let p) = m.payload { return p }; return nil }
            #expect(timings.count == 1, "frame \(i)")
            #expect(timings.first?.timecode == start.advanced(by: i, framesPerSecond: 30), "frame \(i)")
            if hrd && i > 0 { #expect(timings.first?.cpbRemovalDelay != 0, "frame \(i): x264's delay kept") }
        }
    }

    @Test func refusedMessages() throws {
        let plain = try X264Encoder(options: X264Support.config())
        let frame = try TestPatternSource(width: 160, height: 96, frameCount: 1, pattern: .colorBars).makeFrame(0)
        let timing = SEITimingInfo(nalHRD: nil, vclHRD: nil, picStructPresent: true)
        let picTiming = SEIMessage(.picTiming(SEIPicTiming(timing: timing, timecode: try SMPTETimecode(parsing: "00:00:00:00"))))
        #expect { try plain.encode(frame, options: FrameEncodeOptions(seiMessages: [picTiming])) } throws: { ($0 as? X264Error)?.code == .invalidArgument }
        let period = SEIMessage(.bufferingPeriod(SEIBufferingPeriod(seqParameterSetID: 0, timing: timing)))
        #expect { try plain.encode(frame, options: FrameEncodeOptions(seiMessages: [period])) } throws: { ($0 as? X264Error)?.code == .invalidArgument }
        // Nothing was handed to x264 for the refused frames.
        #expect(ExtraSEILedger.outstandingBlocks(owner: plain.seiOwner) == 0)
        #expect(try plain.encode(frame, options: .none).count <= 1)
    }

    /// An inserted recovery point replaces the one x264 writes at each intra refresh.
    @Test func recoveryPointReplacesX264s() throws {
        let encoder = try X264Encoder(options: X264Support.config {
            $0.periodicIntraRefresh = true
            $0.maxKeyframeInterval = 10
        })
        let pictures = try Self.encode(encoder, count: 40) { i in i == 8 ? [.recoveryPoint(frames: 3)] : [] }
        let counts = pictures.map { $0.1.compactMap { m -> UInt16? in if case .recoveryPoint(let r) = m.payload { return r.recoveryFrameCount }; return nil } }
        #expect(counts[8] == [3])
        // x264 writes its own at each refresh start: the first P picture 10 frames or more
        // after the last start (frames 12, 24, 36 with this preset's B-frames).
        #expect(counts[12] == [11] && counts[24] == [11] && counts[36] == [11], "\(counts)")
        #expect(counts.allSatisfy { $0.count <= 1 })
    }
}
