import H264
import H264Fixtures
import Testing

/// The snippets of the H264 catalog (Sources/H264/H264.docc); each marked region is shown, as
/// it is, in an article (Docs/check-snippets.py checks it).
@Suite struct H264Snippets {
    /// A fixture with B-frames, cut in 1,000-byte chunks as a socket would deliver it.
    static let fixture = Fixture.mainCABACBFrames
    static let chunks: [ArraySlice<UInt8>] = {
        let bytes = fixture.bytes()
        return stride(from: 0, to: bytes.count, by: 1000).map { bytes[$0..<min($0 + 1000, bytes.count)] }
    }()

    @Test func annexBStreamParser() throws {
        let chunks = Self.chunks
        // snippet: annexb-stream-parser
        var parser = AnnexBStreamParser()
        var units: [NALUnit] = []
        for chunk in chunks {                          // the bytes as they arrive, cut anywhere
            parser.append(chunk)
            while let unit = try parser.next() { units.append(unit) }
        }
        parser.finish()                                // the stream ended: the last NAL unit
        while let unit = try parser.next() { units.append(unit) }
        // end snippet
        var counts: [UInt8: Int] = [:]
        for unit in units { counts[unit.type.rawValue, default: 0] += 1 }
        #expect(counts == Self.fixture.facts.nalTypeCounts)
    }

    @Test func accessUnitParser() throws {
        let chunks = Self.chunks
        var muxed: [(isSync: Bool, dts: Int64, pts: Int64)] = []
        func mux(_ au: AccessUnit, isSync: Bool, dts: Int64, pts: Int64) { muxed.append((isSync, dts, pts)) }
        // snippet: access-unit-parser
        var parser = AccessUnitParser()
        var accessUnits: [AccessUnit] = []
        for chunk in chunks {
            parser.append(chunk)
            while let au = try parser.next() { accessUnits.append(au) }
        }
        parser.finish()
        while let au = try parser.next() { accessUnits.append(au) }

        for au in accessUnits {
            // au.timestamps: PTS and DTS on the stream's clock; or converted, rounded:
            let ms = au.timestamps(timescale: 1000)!
            mux(au, isSync: au.isSyncSample, dts: ms.dts, pts: ms.pts)
        }
        // end snippet
        let facts = Self.fixture.facts
        #expect(accessUnits.count == facts.accessUnitCount)
        #expect(muxed.filter(\.isSync).count == facts.idrCount)
        #expect(muxed.first?.isSync == true)
        let dts = muxed.map(\.dts), pts = muxed.map(\.pts)
        #expect(zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 })
        // B-frames: presentation order differs from decoding order, every PTS at or after its DTS.
        #expect(pts != pts.sorted())
        #expect(zip(pts, dts).allSatisfy { $0 >= $1 })
        #expect(Set(pts).count == pts.count)
    }

    @Test func annexBToAVCC() throws {
        let stream = Self.fixture.bytes()
        // snippet: annexb-to-avcc
        let avcc = try FormatConversion.annexBToAVCC(stream[...])   // 4-byte lengths
        let record = avcc.configuration                             // the SPS and PPS, out of band
        let avcC = try record.serialized()                          // the avcC box payload
        let units = try AVCC.split(avcc.bytes, lengthSize: record.nalUnitLengthSize)
        // end snippet
        let facts = Self.fixture.facts
        let parameterSets = (facts.nalTypeCounts[7] ?? 0) + (facts.nalTypeCounts[8] ?? 0)
        #expect(units.count == facts.nalTypeCounts.values.reduce(0, +) - parameterSets)
        #expect(!units.contains { $0.type == .sps || $0.type == .pps })
        #expect(try AVCDecoderConfigurationRecord(parsing: avcC[...]).sequenceParameterSets.count == 1)
    }
}
