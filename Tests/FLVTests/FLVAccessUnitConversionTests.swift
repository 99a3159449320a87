import H264
import Testing
import FLV

@Suite struct FLVAccessUnitConversionTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xE0, 0x0A, 0x96, 0x52, 0x85, 0x89, 0xC8]
    static let pps: [UInt8] = [0x68, 0xC9, 0x23, 0x88]

    /// An access unit at `dts`/`pts` in 1/25 s, an IDR (with the parameter sets) or a P slice.
    static func au(_ index: Int, dts: Int64, pts: Int64, idr: Bool) throws -> AccessUnit {
        let units = try (idr ? [sps, pps, [0x65, 0x88, 0x84, 0x21]] : [[0x41, 0x9A, UInt8(index)]]).map { try NALUnit($0) }
        var au = AccessUnit(nalUnits: units, index: index, flags: AccessUnitFlags(accessUnit: units))
        au.dts = dts
        au.pts = pts
        au.timeBase = TimeBase(numerator: 1, denominator: 25)
        return au
    }

    /// Access units whose first DTS is negative (frame reordering before an edit list): every
    /// time moves later by the same amount, composition times stay, one sequence header, the
    /// chunks written add up to the file.
    @Test func negativeFirstDTSMovesEveryTimeLater() throws {
        var queue = [try Self.au(0, dts: -2, pts: 0, idr: true), try Self.au(1, dts: -1, pts: 2, idr: false),
                     try Self.au(2, dts: 0, pts: 1, idr: false)]
        var file: [UInt8] = []
        var chunks = 0
        try FLVConversion.accessUnitsToFLV(metadata: FLVMetadata(width: 160, height: 96, frameRate: 25, duration: 0.12),
                                           next: { queue.isEmpty ? nil : queue.removeFirst() },
                                           write: { file += $0; chunks += 1 })
        #expect(chunks >= 1)
        let track = try FLVVideoTrack(reading: file)
        #expect(track.segments.count == 1)
        #expect(track.hasEndOfSequence)
        #expect(track.samples.map(\.dts) == [0, 40, 80])
        #expect(track.samples.map(\.pts) == [80, 160, 120])
        #expect(track.samples.map(\.isKeyframe) == [true, false, false])
    }
}
