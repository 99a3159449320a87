import Testing
@testable import H264

@Suite struct AccessUnitFlagsFromNALUnitsTests {
    /// A slice NAL unit: header byte, then first_mb_in_slice = 0 and the given slice_type.
    static func slice(type: UInt8, refIdc: UInt8, sliceType: UInt32) throws -> NALUnit {
        var w = BitWriter()
        w.writeUE(0)
        w.writeUE(sliceType)
        w.writeUE(0)  // pic_parameter_set_id
        w.writeTrailingBits()
        return try NALUnit([refIdc << 5 | type] + EmulationPrevention.ebsp(from: w.bytes))
    }

    @Test func idrIsSyncAndIntra() throws {
        let au = [try NALUnit([0x67, 0x42]), try NALUnit([0x68, 0xCE]), try Self.slice(type: 5, refIdc: 3, sliceType: 7)]
        let f = AccessUnitFlags(accessUnit: au)
        #expect(f.isSync && f.isDependedOnByOthers && !f.dependsOnOthers && f.hasParameterSets && !f.hasNoPicture)
    }

    @Test func referencePFrame() throws {
        let f = AccessUnitFlags(accessUnit: [try Self.slice(type: 1, refIdc: 2, sliceType: 5)])
        #expect(!f.isSync && f.isDependedOnByOthers && f.dependsOnOthers && !f.hasParameterSets)
    }

    @Test func disposableBFrame() throws {
        let f = AccessUnitFlags(accessUnit: [try NALUnit([0x06, 0x05, 0x01, 0x00, 0x80]), try Self.slice(type: 1, refIdc: 0, sliceType: 6)])
        #expect(!f.isSync && !f.isDependedOnByOthers && f.dependsOnOthers)
    }

    @Test func nonIDRIntraPicture() throws {
        let f = AccessUnitFlags(accessUnit: [try Self.slice(type: 1, refIdc: 1, sliceType: 2), try Self.slice(type: 1, refIdc: 1, sliceType: 7)])
        #expect(!f.isSync && !f.dependsOnOthers)
        let mixed = AccessUnitFlags(accessUnit: [try Self.slice(type: 1, refIdc: 1, sliceType: 2), try Self.slice(type: 1, refIdc: 1, sliceType: 0)])
        #expect(mixed.dependsOnOthers)
        // A damaged slice header counts as predicted.
        #expect(AccessUnitFlags(accessUnit: [try NALUnit([0x21, 0x00])]).dependsOnOthers)
        #expect(AccessUnitFlags(accessUnit: [try NALUnit([0x09, 0xF0])]).hasNoPicture)
    }

    @Test func encodedFrameRendering() throws {
        let units = [try NALUnit([0x67, 1, 2]), try Self.slice(type: 5, refIdc: 3, sliceType: 7)]
        let au = EncodedFrame(nalUnits: units, pts: 3, dts: 1, timescale: 30)
        #expect(au.isSyncSample && au.byteCount == 3 + units[1].count)
        #expect(au.annexBSample() == [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 0, 1] + Array(units[1].bytes))
        #expect(try au.avccSample(lengthSize: .four).prefix(7) == [0, 0, 0, 3, 0x67, 1, 2])
        #expect(try au.avccSample(lengthSize: .two).prefix(5) == [0, 3, 0x67, 1, 2])
        #expect(try au.avccSample(lengthSize: .one).prefix(4) == [3, 0x67, 1, 2])
        let big = EncodedFrame(nalUnits: [try NALUnit([0x65] + [UInt8](repeating: 0x11, count: 300))], pts: 0, dts: 0, timescale: 1)
        #expect(throws: H264Error(.nalUnitTooLarge, "")) { try big.avccSample(lengthSize: .one) }
        // One timestamp model: the frame's own clock as SampleTimestamps, converted exactly.
        #expect(au.timestamps == SampleTimestamps(pts: 3, dts: 1, timescale: 30))
        #expect(au.timestamps(timescale: 1000)! == (dts: 33, pts: 100))
        let shared = try EncodedFrame(storage: [0x67, 1, 0x68, 2], ranges: [0..<2, 2..<4], pts: 0, dts: 0, timescale: 1)
        #expect(shared.nalUnits.map(\.type) == [.sps, .pps])
        #expect(throws: H264Error(.invalidArgument, "")) { try EncodedFrame(storage: [0x67], ranges: [0..<2], pts: 0, dts: 0, timescale: 1) }
    }
}
