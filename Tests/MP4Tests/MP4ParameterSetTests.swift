import H264
import MP4
import Testing

/// Parameter sets between MP4 and the core: descriptions made by `MP4SampleBuilder`, and the
/// sets `MP4Reader.writeAnnexB` puts back in band (both through `ParameterSetInserter`).
@Suite struct MP4ParameterSetTests {
    static func unit(_ bytes: [UInt8]) -> NALUnit { try! NALUnit(bytes) }

    /// A High profile SPS (id 0), and PPS 0 and 1 on it.
    static let sps = unit(hex("67640014ace4109b016a0c0c0d4a000003000200000300791e285224"))
    static let pps0 = unit(hex("68ebecb22c"))
    static let pps1 = unit([0x68, 0x58])

    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    /// `ue(v)` codes behind `prefix` bits, then a stop bit, as bytes.
    static func ueBytes(_ values: [Int]) -> [UInt8] {
        var bits: [Bool] = []
        for v in values {
            let code = v + 1
            let width = Int.bitWidth - code.leadingZeroBitCount
            bits += Array(repeating: false, count: width - 1)
            bits += (0..<width).reversed().map { code >> $0 & 1 == 1 }
        }
        bits.append(true)
        while bits.count % 8 != 0 { bits.append(false) }
        return stride(from: 0, to: bits.count, by: 8).map { i in bits[i..<(i + 8)].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) } }
    }

    /// A slice NAL unit (IDR or not) whose header names `pps`.
    static func slice(idr: Bool, pps: Int) -> NALUnit { unit([idr ? 0x65 : 0x41] + ueBytes([0, 7, pps])) }

    static func accessUnit(_ units: [NALUnit], _ index: Int) -> AccessUnit {
        var au = AccessUnit(nalUnits: units, index: index, flags: AccessUnitFlags(accessUnit: units))
        au.dts = Int64(index)
        au.pts = Int64(index)
        au.timeBase = TimeBase(numerator: 1, denominator: 25)
        return au
    }

    /// A stream that defines two PPS and switches between them keeps one description, so a
    /// fragmented file (one `moov`) takes it; avc1 samples carry no SPS or PPS.
    @Test func switchingBetweenDefinedParameterSetsKeepsOneDescription() throws {
        var builder = MP4SampleBuilder(timescale: 25)
        let file = MP4MemoryFile()
        let writer = try MP4FragmentedFileWriter(file: file, options: .init(timescale: 25, targetDuration: .seconds(1)))
        var descriptions: [MP4SampleDescription] = []
        let pictures = [[Self.sps, Self.pps0, Self.pps1, Self.slice(idr: true, pps: 0)], [Self.slice(idr: false, pps: 1)],
                        [Self.slice(idr: false, pps: 0)], [Self.slice(idr: false, pps: 1)]]
        for (i, units) in pictures.enumerated() {
            let (description, sample) = try builder.sample(Self.accessUnit(units, i))
            descriptions.append(description)
            #expect(try AVCC.split(sample.data, lengthSize: .four).allSatisfy { $0.type == .slice || $0.type == .idrSlice })
            try writer.append(sample, description: description)
        }
        try writer.finish()
        #expect(Set(descriptions).count == 1)
        #expect(descriptions[0].decoderConfiguration?.pictureParameterSets == [Self.pps0, Self.pps1])
        let reader = try MP4Reader(file.bytes)
        #expect(try reader.sampleInfos(of: try #require(reader.videoTrack)).count == pictures.count)
    }

    /// Descriptions whose avcC records hold 16 PPS of 15 KiB, and 300 sync samples whose 16
    /// slices name them all, in one description or switching between two at every sample:
    /// Annex-B out stays within twice the file plus 256 KiB (every set before every sync
    /// sample would be 74 MB; a record counted again at each switch, as much).
    @Test(arguments: [false, true])
    func annexBFromHostileRecordsIsBounded(switching: Bool) throws {
        func record(_ filler: UInt8) throws -> MP4SampleDescription {
            let sets = (0..<16).map { Self.unit([0x68] + Self.ueBytes([$0, 0]) + Array(repeating: filler, count: 15 << 10)) }
            return try MP4SampleDescription(decoderConfiguration: try AVCDecoderConfigurationRecord(parameterSets: [Self.sps] + sets))
        }
        let descriptions = [try record(0xFF), try record(0xFE)]
        let sample = try AVCC.write((0..<16).map { Self.slice(idr: true, pps: $0) }, lengthSize: .four)
        let file = MP4MemoryFile()
        let writer = try MP4Writer(file: file, options: .init(timescale: 25, layout: .mediaFirst,
                                                              repeatsParameterSetsAfterFormatChange: false))
        for i in 0..<300 {
            try writer.append(MP4Sample(data: sample, decodeTime: Int64(i), presentationTime: Int64(i), duration: 1,
                                        flags: MP4SampleFlags(isSync: true, dependsOn: .no, isDependedOn: .yes)),
                              description: descriptions[switching ? i % 2 : 0])
        }
        try writer.finish()
        let reader = try MP4Reader(file.bytes)
        let track = try #require(reader.videoTrack)
        #expect(track.descriptions.count == (switching ? 2 : 1))
        let annexB = try reader.annexB(of: track)
        #expect(annexB.count <= 2 * file.bytes.count + (256 << 10))
        // The first sample still gets every set it uses.
        let units = try AnnexB.split(annexB)
        #expect(units.prefix(17).map(\.type) == [.sps] + Array(repeating: .pps, count: 16))
    }
}
