import Foundation
import H264
import H264Fixtures
import MP4
import Testing
import TestSupport

/// A file whose samples alternate between two large sample descriptions (issue 27: 40,000
/// samples took 143 s where 10,000 took 23 s, the records re-learnt and the parameter sets
/// re-inserted at every switch). Reading it as Annex-B or as access units does work and
/// writes output in proportion to the file.
@Suite struct MP4AlternatingDescriptionTests {
    /// Two descriptions of the same 32x32 stream (IDR every 32 samples, skipped P pictures
    /// between): their SPS differ only in the HRD bit rates of their 32 CPB entries (about
    /// 1 KB each), their PPS 0 is the same, and each record also holds `paddingSets` more PPS
    /// (ids 1 and up, about 2 KB each, different in each record) that no slice uses.
    static func alternatingFile(samples: Int, paddingSets: Int = 100, sameSPS: Bool = false) throws -> [UInt8] {
        var options = StreamBuilder.SequenceOptions(width: 32, height: 32, profileIDC: 66)
        options.frameRate = (25, 1)
        var builder = try StreamBuilder(options)
        try builder.append(.init(.i, idr: true))
        for _ in 1..<32 { try builder.append(.init(.p)) }
        let pps0 = builder.accessUnits[0].first { $0.type == .pps }!
        func record(_ variant: UInt32) throws -> MP4SampleDescription {
            var sps = builder.sps
            var hrd = HRDParameters()
            hrd.cpbs = (0..<32).map { i in
                var cpb = HRDParameters.CPB()
                cpb.bitRateValueMinus1 = UInt32.max - 2 - UInt32(i) - (sameSPS ? 0 : variant)
                cpb.cpbSizeValueMinus1 = UInt32.max - 2 - UInt32(i)
                return cpb
            }
            sps.vui.nalHRD = hrd
            sps.vui.vclHRD = hrd
            let spsUnit = try NALUnit(header: NALUnitHeader(nalRefIdc: 3, nalUnitType: .sps), rbsp: try sps.rbsp())
            let padding = (1...paddingSets).map { id in
                try! NALUnit([0x68] + MP4ParameterSetTests.ueBytes([id, 0]) + Array(repeating: UInt8(0x80 + variant), count: 2000))
            }
            return try MP4SampleDescription(decoderConfiguration: try AVCDecoderConfigurationRecord(parameterSets: [spsUnit, pps0] + padding))
        }
        let descriptions = [try record(0), try record(1)]
        let file = MP4MemoryFile()
        let writer = try MP4Writer(file: file, options: .init(timescale: 25, layout: .mediaFirst,
                                                              repeatsParameterSetsAfterFormatChange: false))
        for i in 0..<samples {
            let units = builder.accessUnits[i % 32].filter { $0.type == .slice || $0.type == .idrSlice }
            try writer.append(MP4Sample(data: try AVCC.write(units, lengthSize: .four)[...], decodeTime: Int64(i), presentationTime: Int64(i),
                                        duration: 1, flags: MP4SampleFlags(isSync: i % 32 == 0, dependsOn: i % 32 == 0 ? .no : .yes,
                                                                           isDependedOn: .yes)),
                              description: descriptions[i % 2])
        }
        try writer.finish()
        return file.bytes
    }

    /// The H.264 track of `file`, with its sample sizes and the parameter sets of its records.
    static func open(_ file: [UInt8]) throws -> (reader: MP4Reader, track: MP4Track, sampleBytes: Int, sps: [NALUnit]) {
        let reader = try MP4Reader(file)
        let track = try #require(reader.videoTrack)
        let sampleBytes = try reader.sampleInfos(of: track).reduce(0) { $0 + $1.size }
        let sps = track.descriptions.compactMap { $0.decoderConfiguration?.sequenceParameterSets.first }
        return (reader, track, sampleBytes, sps)
    }

    /// Switching between descriptions whose SPS and PPS 0 are equal (only the unused PPS differ)
    /// adds nothing: the Annex-B is the samples plus SPS and PPS 0 at each sync sample, exactly,
    /// for N and 4N samples (each switch used to repeat them, and re-read both records).
    @Test(arguments: [500, 2000])
    func equalSetsAreNotInsertedAtSwitches(samples: Int) throws {
        let file = try Self.alternatingFile(samples: samples, sameSPS: true)
        let (reader, track, sampleBytes, sps) = try Self.open(file)
        #expect(track.descriptions.count == 2 && sps[0] == sps[1])
        let pps = try #require(track.descriptions[0].decoderConfiguration?.pictureParameterSets.first)
        let syncSamples = (samples + 31) / 32
        let annexB = try reader.annexB(of: track)
        #expect(annexB.count == sampleBytes + syncSamples * (sps[0].count + 4 + pps.count + 4))
        // The access units: the sets once, in front of the first sample (nothing at sync samples).
        var it = reader.accessUnits(of: track)
        var setBytes = 0
        var withSets: [Int] = []
        while let au = try it.next() {
            let sets = au.nalUnits.filter { $0.type.isParameterSet }
            if !sets.isEmpty { withSets.append(au.index) }
            setBytes += sets.reduce(0) { $0 + $1.count }
        }
        #expect(withSets == [0])
        #expect(setBytes == sps[0].count + pps.count)
    }

    /// Descriptions whose SPS differ: every switch needs the other SPS, and gets it (PPS 0,
    /// equal in both, only at sync samples), while the bytes added stay within the documented
    /// bound (the samples' and each record's bytes once, plus 256 KiB): 4N samples add four
    /// times the SPS of N where the budget allows, and never more than the bound.
    @Test(arguments: [400, 1600])
    func changedSetsAreInsertedWithinTheBudget(samples: Int) throws {
        let file = try Self.alternatingFile(samples: samples)
        let (reader, track, sampleBytes, sps) = try Self.open(file)
        #expect(sps[0] != sps[1])
        let records = track.descriptions.reduce(0) { $0 + ($1.decoderConfiguration?.parameterSets.reduce(0) { $0 + $1.count } ?? 0) }
        let bound = sampleBytes + records + (256 << 10)
        let annexB = try reader.annexB(of: track)
        let units = try AnnexB.split(annexB)
        let inserted = units.filter { $0.type.isParameterSet }
        #expect(inserted.reduce(0) { $0 + $1.count } <= bound)
        #expect(annexB.count == sampleBytes + inserted.reduce(0) { $0 + $1.count + 4 })  // start codes for lengths
        let budgetAllowsAll = samples * (sps[0].count + 4) < records + (256 << 10)
        if budgetAllowsAll {
            #expect(inserted.filter { $0.type == .sps }.count == samples)
            #expect(inserted.filter { $0.type == .pps }.count == (samples + 31) / 32)
        } else {
            #expect(inserted.filter { $0.type == .sps }.count < samples)
        }
        // The same for the access units (what `convert` to FLV reads): the sets added to the
        // samples stay within the bound (each switch used to add both records, 200 KB).
        var it = reader.accessUnits(of: track)
        var added = 0
        while let au = try it.next() { added += au.nalUnits.filter { $0.type.isParameterSet }.reduce(0) { $0 + $1.count } }
        #expect(added <= bound)
    }

    /// The Annex-B of a file that switches description at every sample decodes in FFmpeg: every
    /// frame, no error.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"))
    func alternatingAnnexBDecodesInFFmpeg() throws {
        let samples = 400
        let (reader, track, _, _) = try Self.open(try Self.alternatingFile(samples: samples))
        let path = try MP4TestSupport.temporaryFile(try reader.annexB(of: track), name: "alternating.h264")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let decoded = try FFmpeg.decode(path)
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
        #expect(try FFmpeg.frameMD5s(file: path, inputFormat: "h264").count == samples)
    }

    /// Segmented for HLS, the alternating file (records of about 200 KB, SPS differing) is taken
    /// (not refused because a format change comes before its init segment's bytes), and its
    /// output stays within twice the samples' bytes plus the first init segment and the
    /// per-sample and per-segment overhead: the records are not copied per switch.
    @Test func segmentingTheAlternatingFileIsBounded() throws {
        let file = try Self.alternatingFile(samples: 640)
        let (reader, track, sampleBytes, _) = try Self.open(file)
        var w = try MP4FragmentWriter(options: .init(timescale: Int64(track.timescale), targetDuration: .seconds(1)))
        var output = 0
        var pieces = 0
        var firstInit = 0
        for info in try reader.sampleInfos(of: track) {
            for piece in try w.append(try reader.sample(info), description: track.descriptions[info.descriptionIndex]) {
                if piece.kind == .initialization && firstInit == 0 { firstInit = piece.bytes.count } else { output += piece.bytes.count }
                pieces += 1
            }
        }
        for piece in try w.finish() { output += piece.bytes.count; pieces += 1 }
        #expect(firstInit > 200_000)
        #expect(w.segmentCount == 20)
        #expect(output <= 2 * sampleBytes + 16 * 640 + 1024 * pieces, "\(output) bytes for \(sampleBytes) of samples")
    }
}
