import Testing
@testable import H264

/// The one sample model: the same names and renderings on encoder output and parsed access units.
@Suite struct AccessUnitSampleTests {
    static let sps = try! NALUnit([0x67, 0x42, 0x00, 0x0A])
    static let pps = try! NALUnit([0x68, 0xCE])
    static let aud = try! NALUnit([0x09, 0xF0])
    static let idr = try! NALUnit([0x65, 0x88, 0x80])
    static let nonIDR = try! NALUnit([0x01, 0x98])
    // A recovery point SEI (payloadType 6, size 1, recovery_frame_cnt 0 ...) before a non-IDR slice.
    static let recovery = try! NALUnit([0x06, 0x06, 0x01, 0xC4, 0x80])

    static func annexB(_ units: [NALUnit]) -> [UInt8] { AnnexB.write(units) }

    @Test func syncSampleAndRandomAccessPointOnBothTypes() throws {
        let idrFrame = EncodedFrame(nalUnits: [Self.idr], pts: 0, dts: 0, timescale: 30)
        let pFrame = EncodedFrame(nalUnits: [Self.nonIDR], pts: 1, dts: 1, timescale: 30)
        #expect(idrFrame.isSyncSample && idrFrame.isRandomAccessPoint)
        #expect(!pFrame.isSyncSample && !pFrame.isRandomAccessPoint)

        let open = AccessUnit(nalUnits: [Self.recovery, Self.nonIDR], index: 0, flags: AccessUnitFlags(accessUnit: [Self.recovery, Self.nonIDR]))
        #expect(!open.isSyncSample)
        #expect(open.isRandomAccessPoint, "a recovery point is a random-access point, not a sync sample")
        let parsedIDR = AccessUnit(nalUnits: [Self.idr], index: 0, flags: AccessUnitFlags(accessUnit: [Self.idr]))
        #expect(parsedIDR.isSyncSample && parsedIDR.isRandomAccessPoint)
    }

    @Test func annexBPutsParameterSetsBeforeEachSyncSampleOnce() throws {
        let sets = [Self.sps, Self.pps]
        let idr = EncodedFrame(nalUnits: [Self.aud, Self.idr], pts: 0, dts: 0, timescale: 30)
        // After the delimiter, before the slice.
        #expect(idr.annexBSample(parameterSets: sets) == Self.annexB([Self.aud, Self.sps, Self.pps, Self.idr]))
        // As carried, without given sets.
        #expect(idr.annexBSample() == Self.annexB([Self.aud, Self.idr]))
        // Not before a non-IDR sample.
        let p = EncodedFrame(nalUnits: [Self.nonIDR], pts: 1, dts: 1, timescale: 30)
        #expect(p.annexBSample(parameterSets: sets) == Self.annexB([Self.nonIDR]))
        // In-band sets are replaced, never written twice; or dropped on request.
        let inBand = EncodedFrame(nalUnits: [Self.sps, Self.pps, Self.idr], pts: 0, dts: 0, timescale: 30)
        #expect(inBand.annexBSample(parameterSets: sets) == Self.annexB([Self.sps, Self.pps, Self.idr]))
        #expect(inBand.annexBSample(includeParameterSets: false) == Self.annexB([Self.idr]))
        // The same rendering on a parsed access unit.
        let parsed = AccessUnit(nalUnits: [Self.idr], index: 0, flags: AccessUnitFlags(accessUnit: [Self.idr]))
        #expect(parsed.annexBSample(parameterSets: sets) == Self.annexB([Self.sps, Self.pps, Self.idr]))
    }

    @Test func avccWithAndWithoutParameterSets() throws {
        let inBand = EncodedFrame(nalUnits: [Self.sps, Self.pps, Self.idr], pts: 0, dts: 0, timescale: 30)
        #expect(try inBand.avccSample(includeParameterSets: false) == AVCC.write([Self.idr]))
        #expect(try inBand.avccSample() == AVCC.write([Self.sps, Self.pps, Self.idr]))
        #expect(try inBand.avccSample(lengthSize: .two, includeParameterSets: false) == [0, 3] + Array(Self.idr.bytes))
        let parsed = AccessUnit(nalUnits: inBand.nalUnits, index: 0, flags: inBand.flags)
        #expect(try parsed.avccSample(includeParameterSets: false) == inBand.avccSample(includeParameterSets: false))
    }
}
