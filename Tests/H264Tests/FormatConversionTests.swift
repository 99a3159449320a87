import Testing
@testable import H264

@Suite struct FormatConversionTests {
    static let sps = AVCDecoderConfigurationRecordTests.highSPS
    static let pps = AVCDecoderConfigurationRecordTests.highPPS
    static let aud: [UInt8] = [0x09, 0x10]
    static let sei: [UInt8] = [0x06, 0x05, 0x01, 0x55, 0x80]
    static let idr: [UInt8] = [0x65, 0x88, 0x84]       // first_mb_in_slice 0
    static let idr2: [UInt8] = [0x65, 0x40, 0x84]      // first_mb_in_slice 1 (same picture)
    static let p: [UInt8] = [0x41, 0x9A, 0x02]

    static func annexB(_ units: [[UInt8]]) -> [UInt8] { units.flatMap { [0, 0, 0, 1] + $0 } }

    @Test func annexBToAVCCMovesParameterSetsOutOfBand() throws {
        let stream = Self.annexB([Self.aud, Self.sps, Self.pps, Self.sei, Self.idr, Self.idr2, Self.aud, Self.p,
                                  Self.aud, Self.sps, Self.pps, Self.idr])
        let avcc = try FormatConversion.annexBToAVCC(stream[...])
        let units = try AVCC.split(avcc.bytes).map { Array($0.bytes) }
        #expect(units == [Self.aud, Self.sei, Self.idr, Self.idr2, Self.aud, Self.p, Self.aud, Self.idr])
        #expect(avcc.configuration.serialized() == AVCDecoderConfigurationRecordTests.highRecord)

        let kept = try FormatConversion.annexBToAVCC(stream[...], lengthSize: .two, placement: .inBand)
        #expect(try AVCC.split(kept.bytes, lengthSize: .two).map { Array($0.bytes) }
                == [Self.aud, Self.sps, Self.pps, Self.sei, Self.idr, Self.idr2, Self.aud, Self.p, Self.aud, Self.sps, Self.pps, Self.idr])
        #expect(kept.configuration.nalUnitLengthSize == .two)
    }

    @Test func avccToAnnexBInsertsAtAccessUnitStart() throws {
        let avcc = try FormatConversion.annexBToAVCC(Self.annexB([Self.aud, Self.sps, Self.pps, Self.sei, Self.idr, Self.idr2,
                                                                  Self.aud, Self.p, Self.sei, Self.idr])[...])
        let back = try FormatConversion.avccToAnnexB(avcc.bytes[...], configuration: avcc.configuration)
        #expect(try AnnexB.split(back).map { Array($0.bytes) } == [
            Self.aud, Self.sps, Self.pps, Self.sei, Self.idr, Self.idr2,
            Self.aud, Self.p,
            Self.sps, Self.pps, Self.sei, Self.idr,
        ])
    }

    @Test func noSPSIsAnError() {
        #expect(throws: H264Error(.missingParameterSet, "")) {
            try FormatConversion.annexBToAVCC(Self.annexB([Self.aud, Self.p])[...])
        }
    }

    @Test func accessUnitBoundaries() throws {
        var d = AccessUnitBoundaryDetector()
        let seq = [Self.aud, Self.sps, Self.idr, Self.idr2, Self.p, Self.sei, Self.p, Self.idr]
        let starts = try seq.map { d.startsAccessUnit(try NALUnit($0)) }
        #expect(starts == [false, false, false, false, true, true, false, true])
    }

    /// Annex-B -> AVCC -> Annex-B keeps every NAL unit that is not a parameter set, in order;
    /// every IDR access unit gets an SPS and a PPS before its first slice.
    @Test(.enabled(if: CorpusFiles.isPresent, "needs ../shared/corpus"), arguments: CorpusFiles.annexBStreams)
    func corpusRoundTrip(_ path: String) throws {
        let bytes = try CorpusFiles.read(path)
        let original: [NALUnit]
        do { original = try AnnexB.split(bytes) } catch { return }  // not an Annex-B stream
        guard original.contains(where: { $0.type == .sps }) else { return }
        for placement in [FormatConversion.ParameterSetPlacement.outOfBand, .inBand] {
            let avcc = try FormatConversion.annexBToAVCC(bytes[...], placement: placement)
            let back = try AnnexB.split(try FormatConversion.avccToAnnexB(avcc.bytes[...], configuration: avcc.configuration))
            let isPS: (NALUnit) -> Bool = { $0.type == .sps || $0.type == .pps || $0.type == .spsExtension }
            #expect(sameNALs(back.filter { !isPS($0) }, original.filter { !isPS($0) }), "\(placement)")
            if placement == .inBand {
                // Everything in band stays, in order: the original is a subsequence of the output.
                var i = 0
                for unit in back where i < original.count && sameBytes(unit.bytes, original[i].bytes) { i += 1 }
                #expect(i == original.count)
            }
            var d = AccessUnitBoundaryDetector()
            var seenSPS = false, seenPPS = false, checkedAU = false
            for unit in back {
                if d.startsAccessUnit(unit) { seenSPS = false; seenPPS = false; checkedAU = false }
                if unit.type == .sps { seenSPS = true }
                if unit.type == .pps { seenPPS = true }
                if unit.type == .idrSlice && !checkedAU {
                    #expect(seenSPS || seenPPS, "IDR access unit without parameter sets")
                    checkedAU = true
                }
            }
        }
    }
}
