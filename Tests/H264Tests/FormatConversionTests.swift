import Testing
@testable import H264
import TestSupport

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
        #expect(try avcc.configuration.serialized() == AVCDecoderConfigurationRecordTests.highRecord)

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

    /// The one-pass conversion (scan and copy together) equals the two-pass one: same bytes and
    /// record, or the same error.
    static func onePassAgrees(_ stream: ArraySlice<UInt8>, _ lengthSize: AVCC.LengthSize, _ placement: FormatConversion.ParameterSetPlacement,
                              _ leadingData: AnnexB.LeadingDataPolicy) -> Bool {
        var twoPass: [UInt8] = []
        let a: Result<AVCDecoderConfigurationRecord, H264Error> = Result { () throws(H264Error) in
            try FormatConversion.splitThenWrite(stream, appendingTo: &twoPass, lengthSize: lengthSize, placement: placement, leadingData: leadingData)
        }
        let b: Result<FormatConversion.AVCCStream, H264Error> = Result { () throws(H264Error) in
            try FormatConversion.annexBToAVCC(stream, lengthSize: lengthSize, placement: placement, leadingData: leadingData)
        }
        switch (a, b) {
        case (.success(let ra), .success(let rb)): return ra == rb.configuration && sameBytes(twoPass[...], rb.bytes[...])
        case (.failure(let ea), .failure(let eb)): return ea.code == eb.code
        default: return false
        }
    }

    @Test func onePassEqualsTwoPassOnRandomStreams() throws {
        var rng = SplitMix64(seed: 11)
        let pieces: [[UInt8]] = [Self.aud, Self.sps, Self.pps, Self.sei, Self.idr, Self.idr2, Self.p, [0x41] + [UInt8](repeating: 0x77, count: 70),
                                 [0x65, 0x88] + [UInt8](repeating: 0x99, count: 300), [0x80, 1], [0x61, 0, 0, 3, 1]]
        for _ in 0..<400 {
            var stream: [UInt8] = rng.next() % 5 == 0 ? [0x12] : []
            for _ in 0..<Int(rng.next() % 12) {
                stream += rng.next() % 2 == 0 ? [0, 0, 1] : [0, 0, 0, 1]
                stream += pieces[Int(rng.next() % UInt64(pieces.count))]
                if rng.next() % 4 == 0 { stream += [0, 0] }
            }
            for size in [AVCC.LengthSize.one, .two, .four] {
                for placement in [FormatConversion.ParameterSetPlacement.outOfBand, .inBand] {
                    #expect(Self.onePassAgrees(stream[...], size, placement, rng.next() % 2 == 0 ? .reject : .skip))
                }
            }
        }
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
    func onePassEqualsTwoPassOnCorpus() throws {
        for path in Corpus.annexBStreams where (try? Corpus.read(path).count) ?? 0 < 700_000 {
            let bytes = try Corpus.read(path)
            #expect(Self.onePassAgrees(bytes[...], .four, .outOfBand, .skip), "\(path)")
            #expect(Self.onePassAgrees(bytes[...], .two, .inBand, .reject), "\(path)")
        }
    }

    @Test func onePassNeedsRoom() {
        let stream = Self.annexB([Self.sps, Self.pps, Self.idr])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: stream.count, alignment: 1)
        defer { buffer.deallocate() }
        #expect(throws: H264Error(.invalidArgument, "")) { try FormatConversion.annexBToAVCC(stream[...], into: buffer) }
    }

    @Test func noSPSIsAnError() {
        #expect(throws: H264Error(.missingParameterSet, "")) {
            try FormatConversion.annexBToAVCC(Self.annexB([Self.aud, Self.p])[...])
        }
    }

    /// Annex-B -> AVCC -> Annex-B keeps every NAL unit that is not a parameter set, in order;
    /// every IDR access unit gets an SPS and a PPS before its first slice.
    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"), arguments: Corpus.annexBStreams)
    func corpusRoundTrip(_ path: String) throws {
        let bytes = try Corpus.read(path)
        let original = try AnnexB.split(bytes, leadingData: .skip)
        try #require(original.contains(where: { $0.type == .sps }), "no SPS in \(path)")
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
            for au in groupedAccessUnits(back) where au.contains(where: { $0.type == .idrSlice }) {
                let firstIDR = au.firstIndex { $0.type == .idrSlice }!
                #expect(au[..<firstIDR].contains { $0.type == .sps || $0.type == .pps },
                        "IDR access unit without parameter sets")
            }
        }
    }
}

/// NAL units grouped into access units by the access-unit layer.
func groupedAccessUnits(_ units: [NALUnit]) -> [[NALUnit]] {
    var assembler = AccessUnitAssembler()
    var out: [[NALUnit]] = []
    for unit in units {
        if let au = try? assembler.push(unit) { out.append(au.nalUnits) }
    }
    if let au = assembler.finish() { out.append(au.nalUnits) }
    return out
}
