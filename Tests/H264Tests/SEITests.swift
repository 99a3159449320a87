import Foundation
import H264Fixtures
import Testing
@testable import H264
import TestSupport

private func unit(_ hex: String) throws -> NALUnit { try NALUnit(SEITestSupport.hex(hex)) }

@Suite struct SEITraceTests {
    /// Every vector's trace equals FFmpeg 5.1's, element by element, and the NAL unit
    /// re-serialises byte-identically.
    @Test(arguments: SEITraceVectors.all.indices)
    func matchesFFmpegTraceAndRoundTrips(index: Int) throws {
        let v = SEITraceVectors.all[index]
        let nal = try unit(v.hex)
        let context = SEITestSupport.context(v.context)
        let trace = try SEI.trace(nal, context: context).flatMap(\.expanded).map(\.description)
        let expected = v.trace.components(separatedBy: " | ")
        #expect(trace == expected)
        for options in [SEIParseOptions.default, .ffmpegTrace, .framingOnly] {
            let sei = try SEI.parse(nal, context: context, options: options)
            #expect(try sei.write() == Array(nal.bytes))
        }
    }

    @Test func traceKeepsElementsUpToAnError() throws {
        // A recovery point whose size claims 3 bytes but the NAL unit ends after 2.
        let nal = try NALUnit([0x06, 0x06, 0x03, 0x96, 0xAC])
        var elements: [TraceElement] = []
        #expect(throws: H264Error(.truncated, "")) {
            try SEI.trace(nal, context: EmptySyntaxContext(), into: &elements)
        }
        #expect(elements.map(\.name) == ["forbidden_zero_bit", "nal_ref_idc", "nal_unit_type",
                                         "last_payload_type_byte", "last_payload_size_byte"])
    }
}

@Suite struct SEIPayloadTests {
    private static let ctxC = SEITestSupport.context("c")

    private func roundTrip(_ payloads: [SEIPayload], context: some SyntaxContext = ctxC) throws -> SEINALUnit {
        let sei = SEINALUnit(messages: payloads.map { SEIMessage($0) })
        let bytes = try sei.write()
        let parsed = try SEI.parse(try NALUnit(bytes), context: context)
        #expect(parsed.messages.map(\.payload) == payloads)
        #expect(try parsed.write() == bytes)
        return parsed
    }

    @Test func bufferingPeriodAndPicTimingWithClockTimestamps() throws {
        let t = SEITestSupport.contexts["c"]!.active!
        var pt = SEIPicTiming(timing: t)
        pt.cpbRemovalDelay = 8191
        pt.dpbOutputDelay = 3
        pt.picStruct = 6
        var full = SEIClockTimestamp()
        full.fullTimestamp = true
        full.seconds = 59; full.minutes = 1; full.hours = 23
        var partial = SEIClockTimestamp()
        partial.seconds = 5; partial.minutes = 6
        pt.clockTimestamps = [full, nil, partial]
        let bp = SEIBufferingPeriod(seqParameterSetID: 0, timing: t, nal: [.init(delay: 0xFFFFF, delayOffset: 1)])
        _ = try roundTrip([.bufferingPeriod(bp), .picTiming(pt)])
    }

    @Test func vclHRDAndTimeOffset() throws {
        let hrd = HRDFieldLengths(cpbCount: 2, initialCPBRemovalDelayLength: 32, cpbRemovalDelayLength: 32,
                                  dpbOutputDelayLength: 1, timeOffsetLength: 31)
        let t = SEITimingInfo(nalHRD: nil, vclHRD: hrd, picStructPresent: true)
        let ctx = TestSEIContext(sps: [7: t], active: nil)
        let bp = SEIBufferingPeriod(seqParameterSetID: 7, timing: t, vcl: [.init(delay: .max, delayOffset: 0), .init(delay: 1, delayOffset: 2)])
        var pt = SEIPicTiming(timing: t)
        pt.cpbRemovalDelay = .max
        pt.dpbOutputDelay = 1
        var ts = SEIClockTimestamp()
        ts.timeOffset = -1
        pt.clockTimestamps = [ts]
        // The buffering period activates SPS 7 for the pic_timing after it (no active SPS otherwise).
        _ = try roundTrip([.bufferingPeriod(bp), .picTiming(pt)], context: ctx)
    }

    @Test func otherPayloads() throws {
        var pan = SEIPanScanRect()
        pan.id = 9
        pan.rectangles = [.init(left: -1, right: 2, top: -300, bottom: 400), .init()]
        pan.repetitionPeriod = 16384
        var cancelledPan = SEIPanScanRect()
        cancelledPan.cancel = true
        var drpm = SEIDecRefPicMarkingRepetition(frameMBsOnly: false)
        drpm.originalFrameNum = 12
        drpm.originalFieldPic = true
        drpm.originalBottomField = true
        drpm.marking.adaptiveRefPicMarkingModeFlag = true
        var op3 = DecRefPicMarking.Operation(operation: 3)
        op3.differenceOfPicNumsMinus1 = 4
        op3.longTermFrameIdx = 1
        var op4 = DecRefPicMarking.Operation(operation: 4)
        op4.maxLongTermFrameIdxPlus1 = 2
        drpm.marking.operations = [op3, op4, .init(operation: 5)]
        var idr = SEIDecRefPicMarkingRepetition(frameMBsOnly: false)
        idr.originalIDR = true
        idr.marking.longTermReferenceFlag = true
        var fpa = SEIFramePackingArrangement()
        fpa.arrangementType = 3
        fpa.contentInterpretationType = 1
        fpa.gridPositions = [1, 2, 3, 4]
        fpa.repetitionPeriod = 1
        var fpaQuincunx = SEIFramePackingArrangement()
        fpaQuincunx.quincunxSampling = true
        fpaQuincunx.extensionFlag = true
        var orientation = SEIDisplayOrientation()
        orientation.horizontalFlip = true
        orientation.anticlockwiseRotation = 0x4000
        orientation.repetitionPeriod = 2
        var mdcv = SEIMasteringDisplayColourVolume()
        mdcv.displayPrimariesX = [1, 2, 65535]
        mdcv.displayPrimariesY = [4, 5, 6]
        mdcv.maxDisplayMasteringLuminance = .max
        let payloads: [SEIPayload] = [
            .panScanRect(pan), .panScanRect(cancelledPan), .fillerPayload(SEIFillerPayload(count: 300)),
            .userDataRegistered(SEIUserDataRegistered(countryCode: 0xB5, payload: [0, 0x31, 0x47])),
            .userDataRegistered(SEIUserDataRegistered(countryCode: 0xFF, countryCodeExtension: 3, payload: [])),
            .userDataUnregistered(SEIUserDataUnregistered(uuid: SEIUserDataUnregistered.x264UUID, payload: Array("x264 - core".utf8) + [0])),
            .recoveryPoint(SEIRecoveryPoint(recoveryFrameCount: 65535, exactMatch: true, brokenLink: false, changingSliceGroupIDC: 2)),
            .decRefPicMarkingRepetition(drpm), .decRefPicMarkingRepetition(idr),
            .framePackingArrangement(fpa), .framePackingArrangement(fpaQuincunx),
            .displayOrientation(orientation), .masteringDisplayColourVolume(mdcv),
            .contentLightLevelInfo(SEIContentLightLevelInfo(maxContentLightLevel: 1000, maxPicAverageLightLevel: 400)),
            .alternativeTransferCharacteristics(SEIAlternativeTransferCharacteristics(preferredTransferCharacteristics: 18)),
            .raw(type: SEIPayloadType(1000), bytes: Array(0..<255) + [0, 0, 3]),
        ]
        let parsed = try roundTrip(payloads)
        if case .userDataUnregistered(let u) = parsed.messages[5].payload { #expect(u.text == "x264 - core") }
        #expect(parsed.messages.last?.rawReason == .unknownType)
    }

    @Test func ffmpegOptionsKeepFramePackingAndMarkingRepetitionRaw() throws {
        let payloads: [SEIPayload] = [.framePackingArrangement(SEIFramePackingArrangement()),
                                      .decRefPicMarkingRepetition(SEIDecRefPicMarkingRepetition())]
        let bytes = try SEINALUnit(messages: payloads.map { SEIMessage($0) }).write()
        let sei = try SEI.parse(try NALUnit(bytes), context: Self.ctxC, options: .ffmpegTrace)
        #expect(sei.messages.allSatisfy { $0.payload.isRaw && $0.rawReason == .keptByOptions })
        #expect(try sei.write() == bytes)
    }

    @Test func x264FramePackingValues() throws {
        let sei = try SEI.parse(try unit("062d07818100000300012080"), context: Self.ctxC)
        guard case .framePackingArrangement(let f) = sei.messages[0].payload else { Issue.record("not parsed"); return }
        #expect(f.arrangementType == 3 && f.contentInterpretationType == 1 && f.repetitionPeriod == 1 && !f.cancel)
    }

    @Test func extendedTypeAndSizeBytes() throws {
        let payload = [UInt8](repeating: 7, count: 600)
        let sei = SEINALUnit(messages: [SEIMessage(.raw(type: SEIPayloadType(600), bytes: payload))])
        let bytes = try sei.write()
        // 600 = 255 + 255 + 90 for both the type and the size.
        #expect(Array(bytes[1...6]) == [0xFF, 0xFF, 90, 0xFF, 0xFF, 90])
        let parsed = try SEI.parse(try NALUnit(bytes), context: EmptySyntaxContext())
        #expect(parsed.messages[0].payload == .raw(type: SEIPayloadType(600), bytes: payload))
        let trace = try SEI.trace(try NALUnit(bytes), context: EmptySyntaxContext()).flatMap(\.expanded).prefix(9).map(\.description)
        #expect(trace.suffix(6) == ["8 ff_byte = 255", "16 ff_byte = 255", "24 last_payload_type_byte = 90",
                                    "32 ff_byte = 255", "40 ff_byte = 255", "48 last_payload_size_byte = 90"])
    }

    @Test func payloadExtensionAndAlignmentBitsArePreserved() throws {
        // A recovery point followed by 5 reserved_payload_extension_data bits.
        let nal = try unit("0606040096ada080")
        let sei = try SEI.parse(nal, context: EmptySyntaxContext())
        #expect(sei.messages[0].trailer == SEIPayloadTrailer(extensionData: [0b10110], extensionBitCount: 5))
        #expect(try sei.write() == Array(nal.bytes))
    }

    @Test func trailingZeroBytesArePreserved() throws {
        // A recovery point, rbsp_trailing_bits, then four zero bytes (carried as 00 00 03 00 00 03).
        let nal = try unit("060601848000000300000300")
        let sei = try SEI.parse(try NALUnit(Array(nal.bytes.dropLast())), context: EmptySyntaxContext())
        #expect(sei.trailingZeroBytes == 4)
        #expect(try sei.write() == Array(nal.bytes.dropLast()))
    }

    @Test func missingSPSKeepsTimingPayloadsRaw() throws {
        let nal = try unit("06000693c6d02328c080")  // buffering_period naming SPS 0
        let sei = try SEI.parse(nal, context: EmptySyntaxContext())
        #expect(sei.messages[0].rawReason == .missingSPS(id: 0))
        #expect(sei.messages[0].payload.isRaw)
        #expect(try sei.write() == Array(nal.bytes))
        let pt = try SEI.parse(try unit("06010300080880"), context: EmptySyntaxContext())
        #expect(pt.messages[0].rawReason == .noActiveSPS)
    }

    @Test func payloadTypeNames() {
        #expect(SEIPayloadType(name: "user_data_unregistered") == .userDataUnregistered)
        #expect(SEIPayloadType(name: "147") == .alternativeTransferCharacteristics)
        #expect(SEIPayloadType(name: "nonsense") == nil)
        #expect(SEIPayloadType.recoveryPoint.description == "recovery_point")
    }
}

@Suite struct SEIEditTests {
    @Test func removesOneMessageTypeAndKeepsTheRestByteForByte() throws {
        // recovery point, user data unregistered, display orientation, ..., from a hand-made NAL unit.
        let v = SEITraceVectors.all.first { $0.hex.hasPrefix("0606030096ac0515") }!
        let nal = try unit(v.hex)
        let before = try SEI.parse(nal, context: EmptySyntaxContext(), options: .framingOnly)
        let out = try #require(try SEI.removingMessages(ofType: .userDataUnregistered, from: nal))
        let after = try SEI.parse(try NALUnit(out), context: EmptySyntaxContext(), options: .framingOnly)
        #expect(after.messages == before.messages.filter { $0.payloadType != .userDataUnregistered })
        #expect(out.count == nal.count - 23)
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
    func removesX264SettingsFromAStream() throws {
        let units = try SEITestSupport.seiUnits(ofCorpus: "cros-codecs/64x64-I-P.h264")
        let x264 = try #require(units.first)
        let sei = try SEI.parse(x264, context: EmptySyntaxContext())
        guard case .userDataUnregistered(let u) = sei.messages[0].payload else { Issue.record("not user data"); return }
        #expect(u.uuid == SEIUserDataUnregistered.x264UUID)
        #expect(u.text?.hasPrefix("x264 - core") == true)
        #expect(try SEI.removingMessages(ofType: .userDataUnregistered, from: x264) == nil)
    }

    @Test func removingTheOnlyMessageDropsTheNALUnit() throws {
        let nal = try unit("06000693c6d02328c080")
        #expect(try SEI.removingMessages(ofType: .bufferingPeriod, from: nal) == nil)
        #expect(try SEI.removingMessages(ofType: .userDataUnregistered, from: nal) == Array(nal.bytes))
    }
}

@Suite struct SEIHostileInputTests {
    @Test func sizePastTheEnd() throws {
        #expect(throws: H264Error(.truncated, "")) {
            try SEI.parse(try NALUnit([0x06, 0x05, 0xFF, 0xFF, 0x10, 1, 2, 3, 0x80]), context: EmptySyntaxContext())
        }
    }

    @Test func tooManyMessages() throws {
        var rbsp: [UInt8] = [0x06]
        for _ in 0..<300 { rbsp += [0x06, 0x01, 0x84] }  // 300 recovery points
        rbsp.append(0x80)
        let nal = try NALUnit(EmulationPrevention.ebsp(from: rbsp))
        #expect(throws: H264Error(.limitExceeded, "")) { try SEI.parse(nal, context: EmptySyntaxContext()) }
        let lenient = SEIParseOptions(maxMessages: 300)
        #expect(try SEI.parse(nal, context: EmptySyntaxContext(), options: lenient).messages.count == 300)
    }

    /// 128 messages of 300 bytes: tracing stays linear (a look-ahead never copies the element
    /// list), and each message's bytes are two run elements (the UUID, the payload).
    @Test func bigNALUnitTraces() throws {
        let message = SEIMessage(.userDataUnregistered(SEIUserDataUnregistered(payload: Array(repeating: 0x41, count: 284))))
        let bytes = try SEINALUnit(messages: Array(repeating: message, count: 128)).write()
        let elements = try SEI.trace(try NALUnit(bytes), context: EmptySyntaxContext())
        let runs: Int = 3 + 128 * (3 + 2) + 8  // header, (type, ff_byte + size, UUID, payload) each, trailing bits
        let expanded: Int = 3 + 128 * (3 + 300) + 8  // one per byte
        #expect(elements.count == runs)
        #expect(elements.reduce(0) { $0 + $1.elementCount } == expanded)
        let payload = try #require(elements.first { $0.syntaxName == SyntaxName("user_data_payload_byte", 0) })
        #expect(payload.run?.count == 284 && payload.expanded.last?.name == "user_data_payload_byte[283]")
        #expect(payload.expanded.last?.bitPosition == payload.bitPosition + 283 * 8)
    }

    /// A 4 MiB user-data payload is one trace element that refers to its bytes: no element (and
    /// no name string) per byte.
    @Test func longPayloadIsOneElement() throws {
        let payload = [UInt8](repeating: 0x41, count: 4 << 20)
        let message = SEIMessage(.userDataUnregistered(SEIUserDataUnregistered(payload: payload)))
        let nal = try SEINALUnit(messages: [message]).nalUnit()
        var count = 0
        var bytes = 0
        try SEI.trace(nal, context: EmptySyntaxContext(), sink: { count += 1; bytes += $0.run?.count ?? 0 })
        // The header, the type, the size (an ff_byte per 255 bytes of it), the UUID and payload
        // runs, the trailing bits.
        let sizeElements = (payload.count + 16) / 255 + 1
        let expected: Int = 3 + 1 + sizeElements + 2 + 8
        #expect(count == expected)
        #expect(bytes == 16 + payload.count)
    }

    @Test func notAnSEINALUnit() throws {
        #expect(throws: H264Error(.invalidArgument, "")) { try SEI.parse(try NALUnit([0x67, 0x42]), context: EmptySyntaxContext()) }
    }

    @Test func payloadsCannotReadIntoTheNextMessage() throws {
        // A pan-scan rect of size 1 whose ue(v) needs more bits than the byte holds.
        #expect(throws: H264Error(.truncated, "")) {
            try SEI.parse(try NALUnit([0x06, 0x02, 0x01, 0x00, 0x06, 0x01, 0x84, 0x80]), context: EmptySyntaxContext())
        }
        // user_data_unregistered shorter than its UUID.
        #expect(throws: H264Error(.truncated, "")) {
            try SEI.parse(try NALUnit([0x06, 0x05, 0x02, 0x01, 0x02, 0x80]), context: EmptySyntaxContext())
        }
        // A payload whose last byte is zero has no bit_equal_to_one.
        #expect(throws: H264Error(.invalidBitstream, "")) {
            try SEI.parse(try NALUnit([0x06, 0x06, 0x02, 0x84, 0x00, 0x80]), context: EmptySyntaxContext())
        }
    }

    /// Every prefix of every vector either parses or throws a typed error; nothing traps. A
    /// prefix that cuts a message always throws.
    @Test(arguments: SEITraceVectors.all.indices)
    func truncationAtEveryByte(index: Int) throws {
        let v = SEITraceVectors.all[index]
        let bytes = SEITestSupport.hex(v.hex)
        let context = SEITestSupport.context(v.context)
        var failures = 0
        for n in 1..<bytes.count {
            let nal = try NALUnit(Array(bytes[0..<n]))
            var parsed = false
            do {
                _ = try SEI.parse(nal, context: context)
                parsed = true
            } catch {
                failures += 1
            }
            var elements: [TraceElement] = []
            do { try SEI.trace(nal, context: context, into: &elements) } catch {}
            if n <= 3 { #expect(!parsed) }
        }
        #expect(failures > 0)
    }

    /// Deterministic random SEI NAL units and bit flips of the vectors: errors, never traps.
    @Test func randomInput() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        let context = SEITestSupport.context("c")
        var parsed = 0
        for i in 0..<1500 {
            var bytes: [UInt8]
            if i % 2 == 0 {
                bytes = [0x06] + (0..<Int(next() % 40)).map { _ in UInt8(truncatingIfNeeded: next()) }
            } else {
                let v = SEITraceVectors.all[Int(next() % UInt64(SEITraceVectors.all.count))]
                bytes = SEITestSupport.hex(v.hex)
                let bit = Int(next() % UInt64((bytes.count - 1) * 8)) + 8
                bytes[bit / 8] ^= UInt8(0x80 >> (bit % 8))
            }
            guard let nal = try? NALUnit(bytes) else { continue }
            if let sei = try? SEI.parse(nal, context: context) {
                parsed += 1
                _ = try? sei.write()
            }
            _ = try? SEI.trace(nal, context: context)
        }
        #expect(parsed > 0)
    }
}

@Suite(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
struct SEICorpusTests {
    @Test(arguments: SEITestSupport.corpusSEIStreams.map(\.path))
    func everySEINALUnitRoundTrips(path: String) throws {
        let key = SEITestSupport.corpusSEIStreams.first { $0.path == path }!.context
        let context = SEITestSupport.context(key)
        let units = try SEITestSupport.seiUnits(ofCorpus: path)
        #expect(!units.isEmpty)
        for u in units {
            let sei = try SEI.parse(u, context: context)
            #expect(sei.messages.allSatisfy { $0.rawReason == nil })
            #expect(try sei.write() == Array(u.bytes))
        }
    }

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"),
          arguments: SEITestSupport.corpusSEIStreams.map(\.path))
    func traceMatchesFFmpeg(path: String) throws {
        let key = SEITestSupport.corpusSEIStreams.first { $0.path == path }!.context
        let context = SEITestSupport.context(key)
        let units = try SEITestSupport.seiUnits(ofCorpus: path)
        let frames = SEITestSupport.corpusSEIStreams.first { $0.path == path }!.frames
        let expected = try SEITestSupport.ffmpegSEITraces(ofCorpus: path, frames: frames)
        if frames == nil { #expect(units.count == expected.count) }
        #expect(!expected.isEmpty && units.count >= expected.count)
        for (u, e) in zip(units, expected) {
            #expect(try SEI.trace(u, context: context).flatMap(\.expanded).map(\.description) == e)
        }
    }

    /// Every SEI NAL unit of every Annex-B stream in the corpus re-serialises byte-identically
    /// with framing-only parsing (no SPS needed).
    @Test func framingOfEverySEINALUnitInTheCorpus() throws {
        let count = try SEITestSupport.framingRoundTrip(try Corpus.annexBStreams.map { ($0, try Corpus.read($0)) })
        #expect(count >= 256)
    }
}

@Suite struct SEIFixtureTests {
    /// The same over every Annex-B fixture: as many SEI NAL units as the manifest counts (the
    /// crafted-SEI fixture among them).
    @Test
    func framingOfEverySEINALUnitInFixtures() throws {
        let fixtures = Fixture.all.filter { $0.facts.kind == .annexB }
        let count = try SEITestSupport.framingRoundTrip(fixtures.map { ($0.rawValue, $0.bytes()) })
        let expected = fixtures.reduce(0) { $0 + ($1.facts.nalTypeCounts[6] ?? 0) }
        #expect(expected > 0)
        #expect(count == expected)
    }
}
