import Testing
import H264Fixtures
import TestSupport
@testable import H264

/// ``SEIInserter`` on fixture streams: where the new SEI NAL unit goes, which frames get which
/// messages (presentation order, B-frames included), pic_timing and recovery_point handling,
/// and that nothing else changes.
@Suite struct SEIInserterTests {
    static func run(_ input: [UInt8], chunk: Int = Int.max, _ inserter: inout SEIInserter) throws -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < input.count {
            let end = min(input.count, i + chunk)
            try inserter.append(input[i..<end], to: &out)
            i = end
        }
        try inserter.finish(to: &out)
        return out
    }

    static func run(_ input: [UInt8], chunk: Int = Int.max, schedule: SEIInsertionSchedule,
                    options: SEIInserter.Options = .init()) throws -> (bytes: [UInt8], inserter: SEIInserter) {
        var inserter = SEIInserter(schedule: schedule, options: options)
        let out = try run(input, chunk: chunk, &inserter)
        return (out, inserter)
    }

    /// Access units of a stream in presentation order, each with its SEI messages parsed with
    /// the SPS facts of the stream's first SPS.
    static func picturesInPresentationOrder(_ bytes: [UInt8]) throws -> [(au: AccessUnit, messages: [SEIMessage])] {
        var parser = AccessUnitParser()
        parser.append(bytes)
        parser.finish()
        var units: [AccessUnit] = []
        while let au = try parser.next() { units.append(au) }
        let sps = try #require(try AnnexB.split(bytes).first { $0.type == .sps }.map { try SequenceParameterSet(rbsp: $0.rbsp) })
        let context = TestSEIContext.single(sps.seiTimingInfo)
        return try units.filter { !$0.flags.hasNoPicture }.sorted { ($0.pts ?? 0) < ($1.pts ?? 0) }.map { au in
            (au, try au.nalUnits.filter { $0.type == .sei }.flatMap { try SEI.parse($0, context: context).messages })
        }
    }

    static let fixtures: [Fixture] = [.mainCABACBFrames, .seiHRD, .openGOP, .intraRefresh, .aud, .highBPyramid, .paffFields, .baselineCAVLC]

    /// With nothing to insert, the output is the input.
    @Test(arguments: fixtures)
    func nothingToInsertIsIdentity(_ fixture: Fixture) throws {
        let bytes = fixture.bytes()
        let (out, inserter) = try Self.run(bytes, chunk: 997, schedule: SEIInsertionSchedule())
        #expect(out == bytes)
        #expect(inserter.problemCount == 0 && inserter.insertedMessageCount == 0)
    }

    /// Each frame carries its own presentation index, B-frames or not, whatever the chunking;
    /// the new SEI NAL unit is the last NAL unit before the first slice.
    @Test(arguments: [Fixture.mainCABACBFrames, .highBPyramid, .baselineCAVLC, .openGOP])
    func messagesLandOnTheirFrames(_ fixture: Fixture) throws {
        let bytes = fixture.bytes()
        let uuid: [UInt8] = Array(0..<16)
        let inserter = SEIInserter { point in
            [try! .userDataUnregistered(uuid: uuid, payload: [UInt8(truncatingIfNeeded: point.presentationIndex)])]
        }
        var a = inserter, b = inserter
        let whole = try Self.run(bytes, &a)
        #expect(try Self.run(bytes, chunk: 5, &b) == whole)
        let pictures = try Self.picturesInPresentationOrder(whole)
        #expect(pictures.count == a.picturesWithInsertions && pictures.count >= 8)
        for (frame, picture) in pictures.enumerated() {
            let ours = picture.messages.compactMap { m -> [UInt8]? in
                if case .userDataUnregistered(let u) = m.payload, u.uuid == uuid { return u.payload }
                return nil
            }
            #expect(ours == [[UInt8(frame)]], "frame \(frame)")
            let types = picture.au.nalUnits.map(\.type)
            let firstVCL = try #require(types.firstIndex { $0.isVCL })
            #expect(types[firstVCL - 1] == .sei, "frame \(frame)")
            #expect(types[..<firstVCL].allSatisfy { !$0.isVCL })
        }
        // Everything else is unchanged: removing the new messages gives the input back.
        var remove = HeaderEdits()
        remove.removedSEIPayloadTypes = [.userDataUnregistered]
        let stripped = try AnnexBHeaderEditor.edit(whole[...], edits: remove)
        let original = try AnnexBHeaderEditor.edit(bytes[...], edits: remove)
        #expect(stripped == original)
    }

    /// sei-hrd.264 has a buffering_period and a pic_timing (with pic_struct) on its pictures:
    /// an inserted time code replaces the pic_timing, keeping its delays, and stays behind the
    /// buffering_period.
    @Test func timecodeMergesWithTheStreamsPicTiming() throws {
        let bytes = Fixture.seiHRD.bytes()
        var schedule = SEIInsertionSchedule()
        schedule.timecode = .init(start: try SMPTETimecode(parsing: "01:00:00:00"), framesPerSecond: 25)
        let (out, inserter) = try Self.run(bytes, schedule: schedule)
        #expect(inserter.problemCount == 0)
        let before = try Self.picturesInPresentationOrder(bytes), after = try Self.picturesInPresentationOrder(out)
        #expect(before.count == after.count)
        for (frame, (old, new)) in zip(before, after).enumerated() {
            let oldTiming = old.messages.compactMap { m -> SEIPicTiming? in if case .picTiming(let p) = m.payload { return p }; return nil }
            let newTiming = new.messages.compactMap { m -> SEIPicTiming? in if case .picTiming(let p) = m.payload { return p }; return nil }
            #expect(newTiming.count == 1, "frame \(frame)")
            #expect(newTiming.first?.cpbRemovalDelay == oldTiming.first?.cpbRemovalDelay)
            #expect(newTiming.first?.dpbOutputDelay == oldTiming.first?.dpbOutputDelay)
            #expect(newTiming.first?.timecode?.description == "01:00:00:\(frame < 10 ? "0" : "")\(frame)")
            if old.messages.first?.payloadType == .bufferingPeriod { #expect(new.messages.first?.payloadType == .bufferingPeriod) }
        }
    }

    /// Without pic_struct_present_flag a time code cannot be carried: left out and reported,
    /// unless the inserter sets the flag in the SPS.
    @Test func timecodeNeedsPicStruct() throws {
        let bytes = Fixture.mainCABACBFrames.bytes()
        var schedule = SEIInsertionSchedule()
        schedule.timecode = .init(start: try SMPTETimecode(parsing: "00:00:10:00"))
        let refused = try Self.run(bytes, schedule: schedule)
        #expect(refused.bytes == bytes)
        #expect(refused.inserter.problemCount > 0 && refused.inserter.problems.first?.error.code == .unsupported)

        let (out, inserter) = try Self.run(bytes, schedule: schedule, options: .init(setsPicStructPresent: true))
        #expect(inserter.problemCount == 0)
        let sps = try #require(try AnnexB.split(out).first { $0.type == .sps }.map { try SequenceParameterSet(rbsp: $0.rbsp) })
        #expect(sps.vui.picStructPresentFlag)
        let pictures = try Self.picturesInPresentationOrder(out)
        for (frame, picture) in pictures.enumerated() {
            let codes = picture.messages.compactMap { m -> SMPTETimecode? in if case .picTiming(let p) = m.payload { return p.timecode }; return nil }
            #expect(codes == [try SMPTETimecode(parsing: "00:00:10:00").advanced(by: frame, framesPerSecond: 25)])
        }
        // Only the SPS changed besides the new SEI: the slices are the input's.
        #expect(try AnnexB.split(out).filter { $0.type.isVCL }.map { Array($0.bytes) } == AnnexB.split(bytes).filter { $0.type.isVCL }.map { Array($0.bytes) })
    }

    /// A time code keeps the picture's own pic_struct (mbaff-tff.264: 3, top then bottom field,
    /// two clock timestamps), and a field pair is one frame whose first field gets pic_struct 1
    /// (paff-fields.264, after the SPS edit).
    @Test func timecodesFitThePictureStructure() throws {
        var schedule = SEIInsertionSchedule()
        schedule.timecode = .init(start: try SMPTETimecode(parsing: "12:00:00:00"), framesPerSecond: 25)
        let mbaff = try Self.run(Fixture.mbaffTFF.bytes(), schedule: schedule)
        #expect(mbaff.inserter.problemCount == 0)
        for (frame, picture) in try Self.picturesInPresentationOrder(mbaff.bytes).enumerated() {
            let timings = picture.messages.compactMap { m -> SEIPicTiming? in if case .picTiming(let p) = m.payload { return p }; return nil }
            #expect(timings.map(\.picStruct) == [3] && timings.first?.clockTimestamps.count == 2, "frame \(frame)")
            #expect(timings.first?.timecode?.description == "12:00:00:0\(frame)")
        }
        let fields = try Self.run(Fixture.paffFields.bytes(), schedule: schedule, options: .init(setsPicStructPresent: true))
        #expect(fields.inserter.problemCount == 0)
        let structs = try AnnexB.split(fields.bytes).filter { $0.type == .sei }.flatMap { unit in
            try SEI.parse(unit, context: TestSEIContext.single(SEITimingInfo(nalHRD: nil, vclHRD: nil, picStructPresent: true))).messages
        }.compactMap { m -> UInt8? in if case .picTiming(let p) = m.payload { return p.picStruct }; return nil }
        // One time code per frame, in its first (top) field: pic_struct 1.
        let fieldCount = try AnnexB.split(fields.bytes).filter { $0.type.isVCL }.count
        #expect(structs.count * 2 == fieldCount && structs.count >= 4 && structs.allSatisfy { $0 == 1 })
        #expect(fields.inserter.picturesWithInsertions == structs.count)
    }

    /// open-gop.264 has recovery points on its non-IDR I pictures: an inserted one replaces
    /// each (never two in one picture), and the default frames are the I pictures without one.
    @Test func recoveryPointsReplaceTheStreamsOwn() throws {
        let bytes = Fixture.openGOP.bytes()
        let before = try Self.picturesInPresentationOrder(bytes)
        let marked = before.enumerated().filter { $0.element.messages.contains { $0.payloadType == .recoveryPoint } }.map(\.offset)
        #expect(!marked.isEmpty)
        var schedule = SEIInsertionSchedule()
        schedule.recoveryPoints = .init(recoveryFrameCount: 7, frames: FrameSet(frames: marked))
        let after = try Self.picturesInPresentationOrder(try Self.run(bytes, schedule: schedule).bytes)
        for (frame, picture) in after.enumerated() {
            let points = picture.messages.compactMap { m -> SEIRecoveryPoint? in if case .recoveryPoint(let r) = m.payload { return r }; return nil }
            #expect(points.map(\.recoveryFrameCount) == (marked.contains(frame) ? [7] : []), "frame \(frame)")
        }
        // Default frames: I pictures that are not IDR and have no recovery point: none here.
        var defaults = SEIInsertionSchedule()
        defaults.recoveryPoints = .init(recoveryFrameCount: 0)
        #expect(try Self.run(bytes, schedule: defaults).bytes == bytes)
    }

    /// With room for about one access unit, pictures go out as soon as they are complete:
    /// every NAL unit still comes out once, in order, and every frame still gets its message.
    /// A larger access unit is copied without insertion.
    @Test func heldBytesBound() throws {
        let bytes = Fixture.highBPyramid.bytes()
        var schedule = SEIInsertionSchedule()
        schedule.add(try .userDataUnregistered(uuid: Array(0..<16), payload: [1]), on: .all)
        let units = try Self.picturesInPresentationOrder(bytes).map(\.au)
        let largest = units.map(\.payloadSize).max() ?? 0
        let (out, inserter) = try Self.run(bytes, chunk: 101, schedule: schedule, options: .init(maximumHeldBytes: largest + 64))
        let pictures = units.count
        #expect(inserter.picturesWithInsertions == pictures && inserter.insertedMessageCount == pictures)
        var remove = HeaderEdits()
        remove.removedSEIPayloadTypes = [.userDataUnregistered]
        #expect(try AnnexBHeaderEditor.edit(out[...], edits: remove) == AnnexBHeaderEditor.edit(bytes[...], edits: remove))
        let tiny = try Self.run(bytes, chunk: 101, schedule: schedule, options: .init(maximumHeldBytes: 1))
        #expect(tiny.bytes == bytes && tiny.inserter.insertedMessageCount == 0 && tiny.inserter.problemCount > 0)
    }

    /// Bytes that are not a stream come out bounded, never trapping.
    @Test func hostileInputs() throws {
        var rng = SplitMix64(seed: 18)
        for n in [0, 1, 3, 4, 17, 300, 4096] {
            var junk = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if n > 8 { junk[2] = 1; junk[3] = 0x65 }
            let inserter = SEIInserter { _ in [.recoveryPoint(frames: 1)] }
            var a = inserter
            let out = try Self.run(junk, chunk: 7, &a)
            #expect(out.count <= junk.count + 64 * (a.picturesWithInsertions + 1))
        }
    }

    /// Picture order counts that keep falling (20,000 pictures, reorder depth 16): the first
    /// pictures never came first in POC order, so every later access unit waited with them, in
    /// a queue searched once per picture (2.4 MB took 404 MB and 323 s in `h264 edit
    /// --timecode`). Now a picture waits behind at most its reorder depth + 32 pictures: the
    /// queue never holds more than 49, every picture gets its message, and each picture
    /// numbered early is reported.
    @Test func fallingOrderCountsKeepTheQueueBounded() throws {
        let bytes = try StreamBuilder.fallingPictureOrderCounts(count: 20_000)
        var schedule = SEIInsertionSchedule()
        schedule.add(try .userDataUnregistered(uuid: Array(0..<16), payload: [1]), on: .all)
        let (out, inserter) = try Self.run(bytes, chunk: 4096, schedule: schedule)
        #expect(inserter.maximumQueuedCount == 16 + 33)
        #expect(inserter.picturesWithInsertions == 20_000)
        #expect(inserter.problemCount > 20_000 / 49)
        #expect(inserter.problems.allSatisfy { $0.error.code == .limitExceeded && $0.decodeIndex != nil })
        var remove = HeaderEdits()
        remove.removedSEIPayloadTypes = [.userDataUnregistered]
        #expect(try AnnexBHeaderEditor.edit(out[...], edits: remove) == AnnexBHeaderEditor.edit(bytes[...], edits: remove))
    }
}
