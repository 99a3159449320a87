import Foundation
import H264Fixtures
import Testing
@testable import H264

/// Every syntax and access-unit fact of the manifest, checked against this package's parsers:
/// the SPS (profile, level, chroma format, bit depths, cropped and coded size, interlace, POC
/// type, resolutions), the PPS (entropy coder), slice headers (slice type counts, field and
/// reference-B slices), SEI (payload type counts) and the access-unit layer (access-unit count,
/// slices per access unit, frame count; AVCC access-unit sizes and IDR counts). Access-unit
/// sizes and IDR counts of Annex B streams are checked in `AccessUnitFixtureTests`, NAL unit
/// type counts in `FixturesTests`.
@Suite struct FixtureFactsTests {
    /// The stream as Annex B NAL units: an AVCC file with its configuration record's parameter
    /// sets in front.
    static func nalUnits(_ fixture: Fixture) throws -> [NALUnit] {
        let bytes = fixture.bytes()
        guard fixture.facts.kind == .avcc else { return try AnnexB.split(bytes, leadingData: .skip) }
        let record = try AVCDecoderConfigurationRecord(parsing: try #require(fixture.configurationRecord()))
        return record.parameterSets + (try AVCC.split(bytes, lengthSize: record.nalUnitLengthSize))
    }

    /// The facts that describe syntax: the stream a fixture's syntax facts were measured on
    /// (missing-pps.264's SPS facts are baseline-cavlc.264's).
    static func syntaxUnits(_ fixture: Fixture) throws -> [NALUnit] {
        let units = try nalUnits(fixture)
        if !units.contains(where: { $0.type == .sps }), fixture == .missingPPS { return try nalUnits(.baselineCAVLC) }
        return units
    }

    @Test(arguments: Fixture.all)
    func sequenceParameterSetFacts(_ fixture: Fixture) throws {
        let facts = fixture.facts
        let units = try Self.syntaxUnits(fixture)
        let spss = try units.filter { $0.type == .sps }.map { try SequenceParameterSet(rbsp: $0.rbsp) }
        let sps = try #require(spss.first, "\(fixture)")
        #expect(Int(sps.profileIDC) == facts.profileIDC, "\(fixture)")
        #expect(Int(sps.levelIDC) == facts.levelIDC, "\(fixture)")
        #expect(Int(sps.chromaFormatIDC) == facts.chromaFormatIDC, "\(fixture)")
        #expect(Int(sps.bitDepthLumaMinus8) + 8 == facts.bitDepthLuma, "\(fixture)")
        #expect(Int(sps.bitDepthChromaMinus8) + 8 == facts.bitDepthChroma, "\(fixture)")
        #expect(sps.width == facts.width && sps.height == facts.height, "\(fixture)")
        #expect(sps.codedWidth == facts.codedWidth && sps.codedHeight == facts.codedHeight, "\(fixture)")
        #expect(sps.frameMbsOnlyFlag == facts.frameMBsOnly && sps.mbAdaptiveFrameFieldFlag == facts.mbaff, "\(fixture)")
        #expect(Int(sps.picOrderCntType) == facts.pocType, "\(fixture)")
        var resolutions: [FixtureFacts.Size] = []
        for s in spss where resolutions.last != FixtureFacts.Size(width: s.width, height: s.height) {
            resolutions.append(FixtureFacts.Size(width: s.width, height: s.height))
        }
        #expect(resolutions == facts.resolutions, "\(fixture)")
    }

    @Test(arguments: Fixture.all)
    func sliceAndSEIFacts(_ fixture: Fixture) throws {
        let facts = fixture.facts
        var store = ParameterSetStore()
        var sliceTypes: [String: Int] = [:]
        var fieldSlices = 0, referenceB = 0
        var seiTypes: [Int: Int] = [:]
        var entropy: FixtureFacts.EntropyCoder?
        for unit in try Self.nalUnits(fixture) {
            switch unit.type {
            case .sps: store.insert(try SequenceParameterSet(rbsp: unit.rbsp))
            case .pps:
                let pps = try PictureParameterSet(rbsp: unit.rbsp, context: store)
                store.insert(pps)
                if entropy == nil { entropy = pps.entropyCodingModeFlag ? .cabac : .cavlc }
            case .slice, .idrSlice:
                // missing-pps.264's slices have no PPS; truncated.264's last slice is cut, but
                // its header is whole.
                guard let header = try? SliceHeader.parse(unit, context: store).header else { continue }
                sliceTypes[["P", "B", "I", "SP", "SI"][Int(header.sliceKind.rawValue)], default: 0] += 1
                if header.fieldPicFlag { fieldSlices += 1 }
                if header.isB && unit.nalRefIdc > 0 { referenceB += 1 }
            case .sei:
                for message in try SEI.parse(unit, context: store).messages {
                    seiTypes[Int(message.payloadType.rawValue), default: 0] += 1
                }
            default: break
            }
        }
        #expect(entropy == facts.entropyCoder, "\(fixture)")
        #expect(sliceTypes == facts.sliceTypeCounts, "\(fixture)")
        #expect(fieldSlices == facts.fieldSlices, "\(fixture)")
        #expect(referenceB == facts.referenceBSlices, "\(fixture)")
        if facts.expect.missingPPS {
            // FFmpeg cannot decompose this stream, so the manifest has no SEI counts; the SEI
            // NAL units are baseline-cavlc.264's.
            #expect(facts.seiPayloadTypeCounts.isEmpty)
            #expect(seiTypes == Fixture.baselineCAVLC.facts.seiPayloadTypeCounts)
        } else {
            #expect(seiTypes == facts.seiPayloadTypeCounts, "\(fixture)")
        }
    }

    @Test(arguments: Fixture.all)
    func accessUnitFacts(_ fixture: Fixture) throws {
        let facts = fixture.facts
        let units = try Self.nalUnits(fixture)
        let (accessUnits, _) = AccessUnits.assemble(annexB: AnnexB.write(units)[...])
        #expect(accessUnits.count == facts.accessUnitCount, "\(fixture)")
        let slicesPerAU = accessUnits.map { $0.nalUnits.filter { $0.type == .slice || $0.type == .idrSlice }.count }
        #expect(slicesPerAU.max() == facts.maxSlicesPerAccessUnit, "\(fixture)")
        #expect(Self.frameCount(accessUnits, decodable: !facts.expect.missingPPS) == facts.frameCount, "\(fixture)")
        if let lengthSize = facts.lengthSize {
            // AVCC: each access unit's NAL units with their lengths; SPS and PPS are in the record.
            let sizes = accessUnits.map { au in
                au.nalUnits.filter { $0.type != .sps && $0.type != .pps }.reduce(0) { $0 + lengthSize + $1.count }
            }
            #expect(sizes == facts.accessUnitSizes, "\(fixture)")
            #expect(accessUnits.filter(\.flags.isSync).count == facts.idrCount, "\(fixture)")
        }
    }

    /// Frames a decoder outputs: frame access units, and field access units counted once per
    /// complementary pair (two fields of opposite parity in a row).
    static func frameCount(_ units: [AccessUnit], decodable: Bool) -> Int {
        guard decodable else { return 0 }
        var frames = 0
        var pendingField: PictureStructure?
        for au in units where !au.flags.hasNoPicture {
            switch au.structure {
            case .frame:
                frames += 1
                pendingField = nil
            case let field:
                if let pending = pendingField, pending != field {
                    pendingField = nil
                } else {
                    frames += 1
                    pendingField = field
                }
            }
        }
        return frames
    }
}
