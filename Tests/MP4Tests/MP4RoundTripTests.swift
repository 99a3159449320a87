import H264
import H264Fixtures
import MP4
import Testing

/// Write, then read back, every fixture in every layout: the reader returns the samples the
/// writer took (bytes, decoding-time steps, composition offsets, sync flags, descriptions),
/// and the Annex-B it makes of them holds the fixture's NAL units.
@Suite struct MP4RoundTripTests {
    enum Output: String, CaseIterable, Sendable {
        case fastStart, mediaFirst, fragmentedEditList, fragmentedNegativeOffsets
    }

    static let cases: [(Fixture, Output)] = MP4TestSupport.annexBFixtures.flatMap { f in Output.allCases.map { (f, $0) } }

    /// Writes `samples` to an in-memory file.
    static func write(_ samples: [(MP4SampleDescription, MP4Sample)], _ output: Output, timescale: Int64) throws -> [UInt8] {
        let file = MP4MemoryFile()
        let writer: any MP4SampleWriting
        switch output {
        case .fastStart, .mediaFirst:
            writer = try MP4Writer(file: file, options: .init(timescale: timescale, layout: output == .fastStart ? .fastStart : .mediaFirst))
        case .fragmentedEditList, .fragmentedNegativeOffsets:
            var o = MP4FragmentWriter.Options(timescale: timescale, targetDuration: .milliseconds(200))
            o.compositionTimes = output == .fragmentedNegativeOffsets ? .negativeOffsets : .editList
            writer = try MP4FragmentedFileWriter(file: file, options: o)
        }
        for (d, s) in samples { try writer.append(s, description: d) }
        try writer.finish()
        return file.bytes
    }

    @Test(arguments: cases)
    func roundTrip(_ fixture: Fixture, _ output: Output) throws {
        let annexB = fixture.bytes()
        var samples = try MP4TestSupport.samples(annexB)
        try #require(!samples.isEmpty)
        let builderTimescale = try #require(MP4TestSupport.timescale(annexB))
        let descriptionCount = Set(samples.map(\.0)).count
        let fragmented = output == .fragmentedEditList || output == .fragmentedNegativeOffsets
        if fragmented && descriptionCount > 1 {
            // One fragmented file has one moov: a format change goes in band (checked in
            // MP4FragmentTests); here the samples of the first description.
            samples = samples.filter { $0.0 == samples[0].0 }
        }
        // A fragmented file starts at its first IDR access unit (what comes before cannot be
        // decoded).
        let lengthSize = samples[0].0.decoderConfiguration?.nalUnitLengthSize ?? .four
        if fragmented, let first = samples.firstIndex(where: { $0.1.randomAccess(lengthSize: lengthSize, recoveryPoints: false) == .idr }) {
            samples.removeFirst(first)
        }
        let bytes = try Self.write(samples, output, timescale: builderTimescale)
        let reader = try MP4Reader(bytes)
        #expect(!reader.hasTruncatedTail)
        #expect(reader.isFragmented == (output == .fragmentedEditList || output == .fragmentedNegativeOffsets))
        let track = try #require(reader.videoTrack)
        #expect(Int64(track.timescale) == builderTimescale)
        let infos = try reader.sampleInfos(of: track)
        try #require(infos.count == samples.count)
        let shift = infos[0].decodeTime - samples[0].1.decodeTime
        // Negative offsets present the first sample at its decoding time, and the reader then
        // moves decoding times earlier by the most negative offset.
        // A progressive file takes the smallest composition offset out when all are above 0.
        let minimumOffset = max(0, samples.map(\.1.compositionOffset).min() ?? 0)
        let ptsShift = output == .fragmentedNegativeOffsets ? samples[0].1.compositionOffset - track.decodeDelay
            : output == .fragmentedEditList ? 0 : minimumOffset
        for (k, info) in infos.enumerated() {
            let (description, sample) = samples[k]
            let read = try reader.sample(info)
            // The first sample after a format change carries its parameter sets in band too.
            let changed = k > 0 && samples[k - 1].0 != description
            let expected = changed ? try sample.carryingParameterSets(of: try #require(description.decoderConfiguration)) : sample
            #expect(read.data == expected.data, "sample \(k) bytes")
            #expect(info.decodeTime - shift == sample.decodeTime, "sample \(k) DTS")
            #expect(info.presentationTime - shift == sample.presentationTime - ptsShift, "sample \(k) PTS")
            // The fragment writer flags IDR access units sync, judged from their NAL units; the
            // builder also flags recovery points (as FFmpeg does for progressive files).
            let isIDR = sample.randomAccess(lengthSize: lengthSize, recoveryPoints: false) == .idr
            #expect(info.flags.isSync == (fragmented ? isIDR : sample.flags.isSync), "sample \(k) sync")
            #expect(info.flags.dependsOn == sample.flags.dependsOn, "sample \(k) depends_on")
            #expect(info.flags.isDependedOn == sample.flags.isDependedOn, "sample \(k) is_depended_on")
            #expect(track.descriptions[info.descriptionIndex] == description, "sample \(k) description")
        }
        // The presentation starts at 0 (edit list or shifted offsets).
        #expect(infos.map(\.presentationTime).min() == 0)
        // Annex-B out: the fixture's NAL units but parameter sets, in order.
        let annexBOut = try reader.annexB(of: track)
        let expected = MP4TestSupport.pictureNALUnits(annexB)
        let got = MP4TestSupport.pictureNALUnits(annexBOut)
        if descriptionCount == 1 || output == .fastStart || output == .mediaFirst {
            #expect(got == expected)
        }
        // The first sample carries its parameter sets again.
        let firstUnits = try AnnexB.split(annexBOut[...])
        #expect(firstUnits.contains { $0.type == .sps } && firstUnits.contains { $0.type == .pps })
    }
}

extension MP4TestSupport {
    /// The timescale the builder uses for an Annex-B stream.
    static func timescale(_ annexB: [UInt8]) -> Int64? {
        let (units, _) = AccessUnits.assemble(annexB: annexB[...], leadingData: .skip)
        return units.first?.timeBase.map { MP4SampleBuilder.suggestedTimescale(for: $0) }
    }
}
