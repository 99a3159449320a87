import H264
import H264Fixtures
import MP4
import Testing

@Suite struct MP4AccessUnitIteratorTests {
    /// A track that changes description (a resolution change): one access unit per sample, with
    /// the sample's times, and the new record's parameter sets in band in exactly the first
    /// sample of each description (put there by the reader for the first sample, which lacks
    /// them; carried by the writer's samples after each change, so not added twice).
    @Test func parameterSetsAtEachDescriptionsFirstSample() throws {
        let reader = try MP4Reader(try MP4TestSupport.mp4(Fixture.resolutionChange.bytes()).bytes)
        let track = try #require(reader.videoTrack)
        try #require(track.descriptions.count >= 2)
        let infos = try reader.sampleInfos(of: track)
        var accessUnits = reader.accessUnits(of: track)
        var index = 0
        var previous = -1
        while let au = try accessUnits.next() {
            let info = try #require(index < infos.count ? infos[index] : nil)
            #expect(au.index == info.index && au.dts == info.decodeTime && au.pts == info.presentationTime)
            let startsDescription = info.descriptionIndex != previous
            let record = try #require(track.descriptions[info.descriptionIndex].decoderConfiguration)
            let leading = Array(au.nalUnits.prefix(record.parameterSets.count))
            #expect((leading == record.parameterSets) == startsDescription, "sample \(index)")
            previous = info.descriptionIndex
            index += 1
        }
        #expect(index == infos.count && index == track.sampleCount)
    }
}
