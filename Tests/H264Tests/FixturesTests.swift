import Foundation
import H264Fixtures
import Testing
import TestSupport
@testable import H264

/// The fixture set: every stream loads, the manifest describes exactly the shipped files, and
/// every fact the core can check today holds.
@Suite struct FixturesTests {
    static let annexB = Fixture.all.filter { $0.facts.kind == .annexB }
    static let avcc = Fixture.all.filter { $0.facts.kind == .avcc }

    @Test(arguments: Fixture.all)
    func loads(_ fixture: Fixture) {
        let facts = fixture.facts
        #expect(facts.file == fixture.fileName)
        #expect(fixture.bytes().count == facts.byteCount)
        #expect(facts.accessUnitSizes.count == facts.accessUnitCount)
        #expect(facts.accessUnitSizes.reduce(0, +) == facts.byteCount)
        #expect(facts.resolutions.first == FixtureFacts.Size(width: facts.width, height: facts.height))
    }

    @Test func manifestListsEveryFileAndNothingElse() throws {
        let manifest = FixtureManifest.shared
        #expect(manifest.fixtures.map(\.file) == Fixture.all.map(\.fileName).sorted())
        #expect(Set(manifest.fixtures.map(\.file)).count == manifest.fixtures.count)
        let shipped = try FileManager.default.contentsOfDirectory(atPath: Fixture.streamsDirectory.path)
        let listed = manifest.fixtures.map(\.file) + manifest.fixtures.compactMap(\.configurationFile)
        #expect(Set(shipped) == Set(listed))
        #expect(shipped.count == listed.count)
    }

    @Test func theSetStaysSmall() throws {
        let total = Fixture.all.reduce(0) { $0 + $1.facts.byteCount }
        #expect(total < 500_000)
        #expect(Fixture.all.allSatisfy { $0.facts.byteCount < 16_384 })
    }

    @Test(arguments: annexB)
    func annexBNALTypeCounts(_ fixture: Fixture) throws {
        let facts = fixture.facts
        let policy: AnnexB.LeadingDataPolicy = facts.expect.leadingGarbageBytes > 0 ? .skip : .reject
        let units = try AnnexB.split(fixture.bytes(), leadingData: policy)
        #expect(Self.typeCounts(units) == facts.nalTypeCounts)
    }

    @Test(arguments: annexB)
    func profileAndLevelBytesOfTheFirstSPS(_ fixture: Fixture) throws {
        // profile_idc and level_idc are the first and third bytes after the NAL header: fixed
        // 8-bit fields, readable without an SPS parser.
        let units = try AnnexB.split(fixture.bytes(), leadingData: .skip)
        let sps = try #require(units.first { $0.type == .sps })
        let rbsp = Array(sps.rbsp)
        try #require(rbsp.count >= 3)
        #expect(Int(rbsp[0]) == fixture.facts.profileIDC)
        #expect(Int(rbsp[2]) == fixture.facts.levelIDC)
    }

    @Test func leadingGarbageIsRejectedOrSkipped() throws {
        let fixture = Fixture.leadingGarbage
        #expect(throws: H264Error(.missingStartCode, "")) { try AnnexB.split(fixture.bytes()) }
        let skipped = try AnnexB.split(fixture.bytes(), leadingData: .skip)
        #expect(skipped.first?.bytes.startIndex == fixture.facts.expect.leadingGarbageBytes + 4)
        try #expect(skipped.map { Array($0.bytes) } == AnnexB.split(Fixture.baselineCAVLC.bytes()).map { Array($0.bytes) })
    }

    @Test func trailingZerosBelongToTheFraming() throws {
        let facts = Fixture.trailingZeros.facts
        #expect(facts.expect.trailingZeroBytesPerNAL == 3)
        let units = try AnnexB.split(Fixture.trailingZeros.bytes())
        let reference = try AnnexB.split(Fixture.baselineCAVLC.bytes())
        #expect(units.map { Array($0.bytes) } == reference.map { Array($0.bytes) })
        #expect(units.allSatisfy { $0.bytes.last != 0 })
    }

    @Test func missingPPS() throws {
        let fixture = Fixture.missingPPS
        #expect(fixture.facts.expect.missingPPS)
        #expect(fixture.facts.entropyCoder == nil)
        let units = try AnnexB.split(fixture.bytes())
        #expect(!units.contains { $0.type == .pps })
        #expect(units.contains { $0.type == .idrSlice })
    }

    @Test func truncatedInTheMiddleOfANALUnit() throws {
        let expect = Fixture.truncated.facts.expect
        #expect(expect.truncated)
        let units = try AnnexB.split(Fixture.truncated.bytes())
        let last = try #require(units.last)
        #expect(last.type.rawValue == expect.truncatedNALType)
        #expect(last.count == expect.truncatedNALSize)
    }

    @Test func emulationPreventionCornerCases() throws {
        let expect = Fixture.emulationPrevention.facts.expect
        let units = try AnnexB.split(Fixture.emulationPrevention.bytes())
        let index = try #require(expect.craftedSEINALIndex)
        try #require(index < units.count)
        let sei = units[index]
        #expect(sei.type == .sei)
        #expect(Array(sei.bytes) == expect.craftedSEINAL)
        #expect(Array(sei.rbspWithHeader) == expect.craftedSEIRBSP)
        #expect(sei.count - sei.rbspWithHeader.count == expect.craftedSEIEmulationPreventionBytes)
        // user_data_unregistered: payloadType 5, payloadSize, uuid_iso_iec_11578, payload bytes.
        let uuid = try #require(expect.userDataUnregisteredUUID)
        let payload = try #require(expect.userDataUnregisteredPayload)
        #expect(Array(sei.rbsp) == [5, UInt8(uuid.count + payload.count)] + uuid + payload + [0x80])
        // Back to the carried form, bit-exact.
        #expect(EmulationPrevention.ebsp(from: sei.rbspWithHeader) == expect.craftedSEINAL)
    }

    @Test func cabacZeroWordsEndEverySlice() throws {
        let expect = Fixture.cabacZeroWords.facts.expect
        let suffix = try #require(expect.sliceNALSuffix)
        let slices = try AnnexB.split(Fixture.cabacZeroWords.bytes()).filter { $0.type == .slice || $0.type == .idrSlice }
        #expect(!slices.isEmpty)
        for slice in slices {
            #expect(Array(slice.bytes.suffix(suffix.count)) == suffix)
            // In the RBSP each cabac_zero_word is 0x0000.
            #expect(Array(slice.rbsp.suffix(2 * expect.cabacZeroWordsPerSlice)) == Array(repeating: 0, count: 2 * expect.cabacZeroWordsPerSlice))
        }
    }

    @Test(arguments: avcc)
    func avccLengthsWalkTheFileExactly(_ fixture: Fixture) throws {
        let facts = fixture.facts
        let lengthSize = try #require(facts.lengthSize)
        let bytes = fixture.bytes()
        var units: [NALUnit] = []
        var position = 0
        while position < bytes.count {
            try #require(bytes.count - position >= lengthSize)
            let length = bytes[position..<(position + lengthSize)].reduce(0) { $0 << 8 | Int($1) }
            position += lengthSize
            try #require(length > 0 && bytes.count - position >= length)
            units.append(try NALUnit(bytes[position..<(position + length)]))
            position += length
        }
        #expect(position == bytes.count)
        #expect(Self.typeCounts(units) == facts.nalTypeCounts)
        #expect(!units.contains { facts.expect.removedNALTypes.contains($0.type.rawValue) })

        // The AVCDecoderConfigurationRecord: version 1, profile and level, lengthSizeMinusOne.
        let record = try #require(fixture.configurationRecord())
        try #require(record.count >= 7)
        #expect(record[0] == 1)
        #expect(Int(record[1]) == facts.profileIDC)
        #expect(Int(record[3]) == facts.levelIDC)
        #expect(Int(record[4] & 3) + 1 == lengthSize)
    }

    @Test(.enabled(if: FFmpeg.isPresent, "ffprobe is not installed"), arguments: annexB)
    func accessUnitSizesMatchFFprobe(_ fixture: Fixture) throws {
        let r = try FFmpeg.ffprobe(["-v", "quiet", "-f", "h264", "-show_packets", "-show_entries", "packet=size",
                                    "-of", "csv=p=0", fixture.url.path]).checked("ffprobe")
        let sizes = r.output.split(whereSeparator: \.isNewline).compactMap { Int($0) }
        #expect(sizes == fixture.facts.accessUnitSizes)
    }

    static func typeCounts(_ units: [NALUnit]) -> [UInt8: Int] {
        units.reduce(into: [:]) { $0[$1.type.rawValue, default: 0] += 1 }
    }
}
