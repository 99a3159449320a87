import H264
import Testing
import FLV

/// No caller rounds, shifts or re-derives anything for FLV: samples of any clock, with a
/// negative first DTS, go in as the encoder or the parser made them.
@Suite struct FLVSampleTimingTests {
    static let sps = try! NALUnit([0x67, 0x42, 0xE0, 0x0A, 0x96, 0x52, 0x85, 0x89, 0xC8])
    static let pps = try! NALUnit([0x68, 0xC9, 0x23, 0x88])
    static let idr = try! NALUnit([0x65, 0x88, 0x84, 0x21])
    static let p = try! NALUnit([0x41, 0x9A, 0x01])
    // A recovery point SEI before a non-IDR I slice: a random-access point that is not IDR.
    static let recovery = try! NALUnit([0x06, 0x06, 0x01, 0xC4, 0x80])
    static let openI = try! NALUnit([0x21, 0x88, 0x84, 0x21])

    /// Encoder output on a nanosecond clock, B-frame style (first DTS -66,666,667 ns), times
    /// not on millisecond boundaries: the builder rounds to the nearest millisecond, moves
    /// every time later by the first DTS, keeps PTS - DTS, flags random-access points; the
    /// writer takes it all. The same times as parsed access units give the same samples.
    @Test func encoderOutputOnAnyClockNeedsNoConversion() throws {
        let frameNS: Int64 = 33_333_333
        let units: [[NALUnit]] = [[Self.sps, Self.pps, Self.idr], [Self.p], [Self.p], [Self.recovery, Self.openI]]
        let dts: [Int64] = [-2, -1, 0, 1].map { $0 * frameNS }
        let pts: [Int64] = [0, 3, 1, 2].map { $0 * frameNS + 400_000 }  // +0.4 ms
        let frames = (0..<4).map { EncodedFrame(nalUnits: units[$0], pts: pts[$0], dts: dts[$0], timescale: 1_000_000_000) }
        var builder = FLVSampleBuilder()
        var writer = FLVWriter()
        var samples: [FLVVideoSample] = []
        for frame in frames {
            let built = try builder.sample(frame)
            if let avcC = built.avcC { try writer.writeDecoderConfiguration(avcC, timestamp: built.sample.dts) }
            try writer.writeSample(built.sample)
            samples.append(built.sample)
        }
        // -66.67 ms -> -67 ms first DTS: every time moves 67 ms later.
        #expect(samples.map(\.dts) == [0, 34, 67, 100])
        #expect(samples.map(\.pts) == [67, 167, 101, 134])  // 0.4, 100.4, 33.73, 67.07 ms rounded, + 67
        #expect(samples.map(\.isKeyframe) == [true, false, false, true])
        #expect(try FLVVideoTrack(reading: writer.bytes).samples == samples)

        // The same samples from access units timed on the same clock.
        var parsedBuilder = FLVSampleBuilder()
        let parsed = try (0..<4).map { i -> FLVVideoSample in
            var au = AccessUnit(nalUnits: units[i], index: i, flags: AccessUnitFlags(accessUnit: units[i]))
            au.pts = pts[i]
            au.dts = dts[i]
            au.timeBase = TimeBase(numerator: 1, denominator: 1_000_000_000)
            return try parsedBuilder.sample(au).sample
        }
        #expect(parsed == samples)
    }

    @Test func aSampleWithoutTimestampsIsATypedError() throws {
        var builder = FLVSampleBuilder()
        let au = AccessUnit(nalUnits: [Self.sps, Self.pps, Self.idr], index: 0)
        #expect(throws: FLVError(.invalidArgument, "")) { try builder.sample(au) }
    }
}
