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

/// One timestamp model: `SampleTimestamps` on both sample types, and the one conversion every
/// muxer uses (nearest tick, halves away from zero, exact in integers).
@Suite struct SampleTimestampsTests {
    @Test func bothSampleTypesExposeTheSameModel() throws {
        let units = [try NALUnit([0x65, 0x88, 0x80])]
        let frame = EncodedFrame(nalUnits: units, pts: 3_000, dts: -3_000, timescale: 90_000)
        var au = AccessUnit(nalUnits: units, index: 0)
        #expect(au.timestamps == nil, "an access unit without assigned times has none")
        au.pts = 3_000
        au.dts = -3_000
        au.duration = 3_000
        au.timeBase = TimeBase(numerator: 1, denominator: 90_000)
        #expect(frame.timestamps == SampleTimestamps(pts: 3_000, dts: -3_000, timescale: 90_000))
        #expect(au.timestamps == SampleTimestamps(pts: 3_000, dts: -3_000, duration: 3_000, timescale: 90_000))
        #expect(frame.timestamps(timescale: 1000)! == (dts: -33, pts: 33))
        #expect(au.timestamps(timescale: 1000)! == (dts: -33, pts: 33))
        #expect(frame.timestamps(timescale: 0) == nil)
        let ms = au.timestamps!.rescaled(to: 1000)
        #expect(ms.duration == 33 && ms.timeBase == TimeBase(numerator: 1, denominator: 1000))
        #expect(au.timestamps!.presentationSeconds == 3_000.0 / 90_000)
    }

    @Test func rescaleRoundsToNearestHalvesAwayFromZero() {
        let ms = TimeBase(numerator: 1, denominator: 1000)
        #expect(ms.rescale(1, to: 2) == 0)            // 0.002
        #expect(TimeBase(numerator: 1, denominator: 4).rescale(1, to: 2) == 1)    // 0.5 -> 1
        #expect(TimeBase(numerator: 1, denominator: 4).rescale(-1, to: 2) == -1)  // -0.5 -> -1
        #expect(TimeBase(numerator: 1, denominator: 4).rescale(3, to: 2) == 2)    // 1.5 -> 2
        #expect(TimeBase(numerator: 1001, denominator: 60_000).rescale(2, to: 90_000) == 3003)
        #expect(TimeBase(numerator: 1, denominator: 0).rescale(5, to: 90_000) == 0)
        #expect(TimeBase(numerator: -1, denominator: 1000).rescale(5, to: 1000) == -5)
    }

    /// A nanosecond clock at 2^62 ns (146 years) converts to 90 kHz exactly, where double
    /// precision is off; results past Int64 saturate.
    @Test func rescaleIsExactForLargeTimes() {
        let ns = TimeBase(numerator: 1, denominator: 1_000_000_000)
        let t: Int64 = 1 << 62 | 12_345  // 4611686018427400249 ns
        // t * 90000 / 1e9 = t * 9 / 100000; exact quotient and remainder:
        let (q, r) = (t / 100_000 * 9 + (t % 100_000) * 9 / 100_000, (t % 100_000) * 9 % 100_000)
        #expect(ns.rescale(t, to: 90_000) == q + (r * 2 >= 100_000 ? 1 : 0))
        #expect(ns.rescale(-t, to: 90_000) == -(q + (r * 2 >= 100_000 ? 1 : 0)))
        #expect(TimeBase(numerator: 1, denominator: 1).rescale(Int64.max / 2, to: 1000) == Int64.max)
        #expect(TimeBase(numerator: 1, denominator: 1).rescale(Int64.min / 2, to: 1000) == Int64.min)
        #expect(TimeBase(numerator: 1, denominator: 1).rescale(Int64.min, to: 1) == Int64.min)
    }
}
