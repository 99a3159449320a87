import Testing
@testable import H264

/// The payloads SEI insertion builds: ATSC A/53 captions, SMPTE time codes in pic_timing, frame
/// sets, caption lists and message specs; each written and read back through the syntax layer.
@Suite struct SEIInsertionPayloadTests {
    static let twoConstructs = A53CaptionData(constructs: [
        .init(type: .ntscField1, data1: 0x94, data2: 0x20), .init(type: .ntscField1, data1: 0x94, data2: 0xAE),
    ])

    /// The registered payload is B5 0031 "GA94" 03, then cc_data: reserved 1, process 1,
    /// zero 0, cc_count 2 (0xC2), em_data FF, the constructs with marker bits (FC ...), FF.
    @Test func captionPayloadBytes() throws {
        let message = try SEIMessage.captions(Self.twoConstructs)
        #expect(try message.payloadBytes() == [0xB5, 0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, 0xC2, 0xFF,
                                                0xFC, 0x94, 0x20, 0xFC, 0x94, 0xAE, 0xFF])
    }

    @Test func captionsRoundTripThroughAnSEINALUnit() throws {
        let unit = try SEINALUnit(messages: [try .captions(Self.twoConstructs)]).nalUnit()
        let parsed = try SEI.parse(unit, context: EmptySyntaxContext())
        guard case .userDataRegistered(let payload) = parsed.messages.first?.payload else {
            Issue.record("not parsed as registered user data")
            return
        }
        #expect(payload.captions == Self.twoConstructs)
        #expect(payload.captions?.constructs.map(\.bytes) == [[0xFC, 0x94, 0x20], [0xFC, 0x94, 0xAE]])
    }

    /// FFmpeg's own A/53 writer puts 0 in the reserved bit and em_data: read all the same.
    @Test func captionsInFFmpegsForm() throws {
        let payload = SEIUserDataRegistered(countryCode: 0xB5, payload: [0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, 0x41, 0x00,
                                                                         0xF9, 0x80, 0x80, 0xFF])
        let captions = try #require(payload.captions)
        #expect(captions.processCCData && captions.emData == 0)
        #expect(captions.constructs == [.init(valid: false, type: .ntscField2, data1: 0x80, data2: 0x80)])
    }

    @Test(arguments: [
        SEIUserDataRegistered(countryCode: 0xB4, payload: [0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, 0xC1, 0xFF, 0xFC, 0x80, 0x80, 0xFF]),
        SEIUserDataRegistered(countryCode: 0xB5, payload: [0x00, 0x2F, 0x47, 0x41, 0x39, 0x34, 0x03, 0xC1, 0xFF, 0xFC, 0x80, 0x80, 0xFF]),
        SEIUserDataRegistered(countryCode: 0xB5, payload: [0x00, 0x31, 0x44, 0x54, 0x47, 0x31, 0x03, 0xC1, 0xFF, 0xFC, 0x80, 0x80, 0xFF]),
        SEIUserDataRegistered(countryCode: 0xB5, payload: [0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x06, 0xC1, 0xFF, 0xFC, 0x80, 0x80, 0xFF]),
        SEIUserDataRegistered(countryCode: 0xB5, payload: [0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, 0xC5, 0xFF, 0xFC, 0x80, 0x80, 0xFF]),
        SEIUserDataRegistered(countryCode: 0xB5, payload: [0x00, 0x31, 0x47, 0x41]),
    ])
    func notCaptions(_ payload: SEIUserDataRegistered) {
        #expect(payload.captions == nil)
    }

    @Test func captionLimits() throws {
        let many = A53CaptionData(constructs: Array(repeating: .init(type: .dtvccPacketData, data1: 0, data2: 0), count: 32))
        #expect(throws: H264Error.self) { try SEIMessage.captions(many) }
        #expect(throws: H264Error.self) { try A53CaptionData(tripleBytes: [0xFC, 0x94]) }
        #expect(try A53CaptionData(tripleBytes: [0xFF, 1, 2, 0xFA, 3, 4]).constructs
                == [.init(valid: true, type: .dtvccPacketStart, data1: 1, data2: 2), .init(valid: false, type: .dtvccPacketData, data1: 3, data2: 4)])
    }

    @Test func oddParity() {
        #expect(A53CaptionData.withOddParity(0x41) == 0xC1)  // 'A': two ones
        #expect(A53CaptionData.withOddParity(0x14) == 0x94)
        #expect(A53CaptionData.withOddParity(0x20) == 0x20)
        #expect(A53CaptionData.withOddParity(0x2F) == 0x2F)
        #expect((0...127).allSatisfy { A53CaptionData.withOddParity(UInt8($0)).nonzeroBitCount & 1 == 1 })
    }

    @Test func timecodeText() throws {
        #expect(try SMPTETimecode(parsing: "01:02:03:04").description == "01:02:03:04")
        #expect(try SMPTETimecode(parsing: "1:2:3:4") == SMPTETimecode(hours: 1, minutes: 2, seconds: 3, frames: 4))
        for bad in ["", "01:02:03", "24:00:00:00", "00:60:00:00", "00:00:60:00", "aa:00:00:00", "001:00:00:00", "01:02:03:04:05", "-1:00:00:00"] {
            #expect(throws: H264Error.self, "\(bad)") { try SMPTETimecode(parsing: bad) }
        }
    }

    @Test func timecodeCounting() throws {
        let t = try SMPTETimecode(parsing: "00:00:59:24")
        #expect(t.advanced(by: 1, framesPerSecond: 25).description == "00:01:00:00")
        #expect(t.advanced(by: 26, framesPerSecond: 25).description == "00:01:01:00")
        #expect(try SMPTETimecode(parsing: "23:59:59:29").advanced(by: 1, framesPerSecond: 30).description == "00:00:00:00")
        #expect(try SMPTETimecode(parsing: "10:00:00:00").advanced(by: 30 * 3600, framesPerSecond: 30).description == "11:00:00:00")
    }

    /// A pic_timing with a time code, coded with an SPS's HRD lengths (cpb_removal_delay 23 bits,
    /// dpb_output_delay 17, time_offset 5) and without HRD (time_offset 24 bits), reads back
    /// with the same values; the sizes are the bits D.1.3 gives.
    @Test(arguments: [(SEITestSupport.hrd(24, 23, 17, 5) as HRDFieldLengths?, 11), (nil, 9)])
    func picTimingTimecodeRoundTrip(_ hrd: HRDFieldLengths?, _ size: Int) throws {
        let timing = SEITimingInfo(nalHRD: hrd, vclHRD: nil, picStructPresent: true)
        let timecode = try SMPTETimecode(parsing: "10:11:12:13")
        let message = SEIMessage(.picTiming(SEIPicTiming(timing: timing, timecode: timecode, cpbRemovalDelay: 0x7F_FFFF, dpbOutputDelay: 3)))
        // 23 + 17 + pic_struct 4 + flag 1 + clock timestamp 36 + time_offset 5 = 86 bits; without
        // HRD 4 + 1 + 36 + 24 = 65 bits; then the alignment bits.
        #expect(try message.payloadBytes().count == size)
        let unit = try SEINALUnit(messages: [message]).nalUnit()
        let parsed = try SEI.parse(unit, context: TestSEIContext.single(timing))
        guard case .picTiming(let p) = parsed.messages.first?.payload else {
            Issue.record("pic_timing not parsed")
            return
        }
        #expect(p.timecode == timecode)
        #expect(p.cpbRemovalDelay == (hrd == nil ? 0 : 0x7F_FFFF) && p.dpbOutputDelay == (hrd == nil ? 0 : 3))
        #expect(p.clockTimestamps.first??.fullTimestamp == true)
    }

    @Test func picStructEditAddsAVUI() throws {
        var sps = SequenceParameterSet()
        sps.profileIDC = 66
        sps.levelIDC = 30
        #expect(!sps.seiTimingInfo.picStructPresent)
        try sps.setPicStructPresent()
        let back = try SequenceParameterSet(rbsp: try sps.rbsp()[...])
        #expect(back.seiTimingInfo.picStructPresent && back.vuiParametersPresentFlag)
        #expect(back.vui.timingInfoPresentFlag == false && back.vui.nalHRD == nil)
    }

    @Test func frameSets() throws {
        let set = try FrameSet(parsing: "0,10-12,100-/25,*/1000")
        #expect([0, 10, 11, 12, 100, 125, 1000, 2000].allSatisfy(set.contains))
        #expect(![1, 9, 13, 101, 124, 999].contains(where: set.contains))
        #expect(try FrameSet(parsing: set.description) == set)
        for bad in ["", ",", "a", "5-3", "1-2-3", "*/0", "-1", "1/", "1,,2", "9999999999"] {
            #expect(throws: H264Error.self, "\(bad)") { try FrameSet(parsing: bad) }
        }
    }

    @Test func captionList() throws {
        var schedule = SEIInsertionSchedule()
        try schedule.addCaptions(fromText: """
            # pop-on: load, erase non-displayed memory
            0: fc 94 20  fc94ae
            2: "HI!"   # three characters: two frames
            3: fc 94 2f
            """)
        func captions(_ frame: Int) -> [[UInt8]] {
            schedule.messages(for: Self.point(frame)).flatMap { message -> [[UInt8]] in
                guard case .userDataRegistered(let p) = message.payload else { return [] }
                return p.captions?.constructs.map(\.bytes) ?? []
            }
        }
        #expect(captions(0) == [[0xFC, 0x94, 0x20], [0xFC, 0x94, 0xAE]])
        #expect(captions(1) == [])
        #expect(captions(2) == [[0xFC, 0xC8, 0x49]])  // 'H' 0x48 -> C8, 'I' 0x49 stays
        #expect(captions(3) == [[0xFC, 0xA1, 0x80], [0xFC, 0x94, 0x2F]])  // '!' and a NUL, then EOC
        for (bad, line) in [("0: fc 94", 1), ("\n1 fc 94 20", 2), ("x: fc 94 20", 1), ("0: \"caf\u{E9}\"", 1), ("0: \"open", 1), ("0: zz 94 20", 1)] {
            var s = SEIInsertionSchedule()
            #expect { try s.addCaptions(fromText: bad) } throws: { ($0 as? H264Error)?.reason.contains("line \(line)") ?? false }
        }
        var full = SEIInsertionSchedule()
        #expect(throws: H264Error.self) { try full.addCaptions(fromText: String(repeating: "0: fc 94 20\n", count: 32)) }
    }

    @Test func messageSpecs() throws {
        var schedule = SEIInsertionSchedule()
        try schedule.add(parsing: "user-data-unregistered:00112233-4455-6677-8899-aabbccddeeff:48656c6c6f@0-5/2")
        try schedule.add(parsing: "user-data-registered:ff01abcd")
        try schedule.add(parsing: "recovery-point:3@7")
        let at2 = schedule.messages(for: Self.point(2))
        #expect(at2.count == 2)
        #expect(at2.first?.payload == .userDataUnregistered(SEIUserDataUnregistered(
            uuid: [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF], payload: Array("Hello".utf8))))
        #expect(at2.last?.payload == .userDataRegistered(SEIUserDataRegistered(countryCode: 0xFF, countryCodeExtension: 1, payload: [0xAB, 0xCD])))
        #expect(schedule.messages(for: Self.point(3)).count == 1)
        #expect(schedule.messages(for: Self.point(7)).last?.payload == .recoveryPoint(SEIRecoveryPoint(recoveryFrameCount: 3)))
        for bad in ["user-data-unregistered:0011:00", "user-data-unregistered:00112233445566778899aabbccddeeff", "user-data-registered:",
                    "user-data-registered:ff", "recovery-point:70000", "recovery-point:x", "pic-timing:00", "user-data-registered:b5@x"] {
            var s = SEIInsertionSchedule()
            #expect(throws: H264Error.self, "\(bad)") { try s.add(parsing: bad) }
        }
    }

    /// A picture point for schedule tests: decode and presentation index `frame`.
    static func point(_ frame: Int, intraWithoutIDR: Bool = false) -> SEIInsertionPoint {
        var au = AccessUnit(nalUnits: [], index: frame)
        au.flags.isIntraOnlyWithoutIDR = intraWithoutIDR
        return SEIInsertionPoint(decodeIndex: frame, presentationIndex: frame, accessUnit: au, timing: nil, framesPerSecond: nil)
    }

    @Test func scheduleTimecodeAndDefaultRecoveryPoints() throws {
        var schedule = SEIInsertionSchedule()
        schedule.timecode = .init(start: try SMPTETimecode(parsing: "00:00:00:28"))
        schedule.recoveryPoints = .init(recoveryFrameCount: 0)
        var point = Self.point(3)
        point.framesPerSecond = 30
        guard case .picTiming(let p) = schedule.messages(for: point).first?.payload else {
            Issue.record("no pic_timing")
            return
        }
        #expect(p.timecode?.description == "00:00:01:01")
        #expect(schedule.messages(for: Self.point(3)).count == 1)  // no recovery point on a P picture
        #expect(schedule.messages(for: Self.point(3, intraWithoutIDR: true)).last?.payloadType == .recoveryPoint)
    }
}
