import Foundation
import H264
import H264Fixtures
import MP4
import Testing
import TestSupport

/// CMAF segments and the HLS playlist: what players require of them (FIELD-NOTES: MSE, HLS,
/// Chromium's sync rule, trun versions, brands, tfdt, data_offset, edit lists).
@Suite struct MP4FragmentTests {
    typealias S = MP4TestSupport

    static func segments(_ fixture: Fixture, target: Duration = .nanoseconds(1), options: (inout MP4FragmentWriter.Options) -> Void = { _ in })
    throws -> [MP4Segment] {
        let samples = try S.samples(fixture.bytes())
        let timescale = try #require(S.timescale(fixture.bytes()))
        var o = MP4FragmentWriter.Options(timescale: timescale, targetDuration: target)
        o.maximumFragmentDuration = .seconds(Int64.max)  // one fragment per segment unless a test asks
        options(&o)
        var w = try MP4FragmentWriter(options: o)
        var out: [MP4Segment] = []
        for (d, s) in samples { out += try w.append(s, description: d) }
        out += try w.finish()
        return out
    }

    @Test func segmentsStartWithSyncSamples() throws {
        let segments = try Self.segments(.baselineCAVLC)  // two IDRs
        let media = segments.filter { $0.kind == .media }
        #expect(segments.first?.kind == .initialization)
        #expect(media.count == Fixture.baselineCAVLC.facts.idrCount)
        #expect(media.allSatisfy { $0.startsWithSyncSample && $0.isIndependent })
        #expect(media.map(\.sequenceNumber) == Array(1...UInt32(media.count)))
        // Back to back they make a file whose samples are the stream's, each segment's first sync.
        let file = segments.flatMap(\.bytes)
        let reader = try MP4Reader(file)
        let infos = try reader.sampleInfos(of: try #require(reader.videoTrack))
        #expect(infos.count == media.reduce(0) { $0 + $1.sampleCount })
        var k = 0
        for m in media {
            #expect(infos[k].flags.isSync)
            #expect(infos[k].flags.isKeyframe)  // Chromium: sync and not depending on others
            k += m.sampleCount
        }
    }

    @Test func segmentsAreCutAtTheTargetDuration() throws {
        let media = try Self.segments(.baselineCAVLC, target: .nanoseconds(1), options: { $0.cutting = .anySample })
            .filter { $0.kind == .media }
        #expect(media.count == Fixture.baselineCAVLC.facts.accessUnitCount)  // one sample each
        let whole = try Self.segments(.baselineCAVLC, target: .seconds(3600)).filter { $0.kind == .media }
        #expect(whole.count == 1)
    }

    /// Init segment: brands, mvex/trex, zero durations, empty tables, an edit list when the
    /// first sample is presented later than decoded.
    @Test func initSegmentBoxes() throws {
        let segments = try Self.segments(.mainCABACBFrames, options: { $0.compositionTimes = .editList })
        let initial = try #require(segments.first { $0.kind == .initialization }).bytes
        let ftyp = try #require(try S.payload(["ftyp"], in: initial))
        let brands = stride(from: 8, to: ftyp.count, by: 4).map { MP4FourCC(rawValue: S.u32(ftyp, $0)) }
        #expect(MP4FourCC(rawValue: S.u32(ftyp, 0)) == "iso6")
        #expect(brands.contains("iso6") && brands.contains("iso5") && brands.contains("cmfc"))
        #expect(try S.payload(["moov", "mvex", "trex"], in: initial) != nil)
        let mvhd = try #require(try S.payload(["moov", "mvhd"], in: initial))
        #expect(S.u32(mvhd, 16) == 0)  // duration 0
        let stsz = try #require(try S.payload(S.stblPath + ["stsz"], in: initial))
        #expect(S.u32(stsz, 8) == 0)
        let elst = try #require(try S.payload(["moov", "trak", "edts", "elst"], in: initial))
        #expect(S.u32(elst, 4) == 1)
        #expect(S.u32(elst, 8) == 0)  // segment_duration 0: the whole media
        #expect(Int32(bitPattern: S.u32(elst, 12)) > 0)  // media_time: the first composition offset
        #expect(try S.payload(["moov", "trak", "mdia", "minf", "stbl", "stsd", "avc1", "avcC"], in: initial) != nil)
    }

    /// Media segments: styp, moof with mfhd, tfhd default-base-is-moof, tfdt version 1, trun
    /// version 0 with positive offsets (version 1 with negative ones), data_offset to the mdat.
    @Test func mediaSegmentBoxes() throws {
        for negative in [false, true] {
            let segments = try Self.segments(.mainCABACBFrames, options: { $0.compositionTimes = negative ? .negativeOffsets : .editList })
            let seg = try #require(segments.first { $0.kind == .media }).bytes
            let top = try MP4BoxTree.nodes(in: seg).filter { $0.depth == 0 }.map { $0.header.type.description }
            #expect(top == ["styp", "moof", "mdat"])
            let tfhd = try #require(try S.payload(["moof", "traf", "tfhd"], in: seg))
            #expect(S.u32(tfhd, 0) & 0x02_0000 != 0)
            let tfdt = try #require(try S.payload(["moof", "traf", "tfdt"], in: seg))
            #expect(tfdt.first == 1)
            let trun = try #require(try S.payload(["moof", "traf", "trun"], in: seg))
            #expect(trun.first == (negative ? 1 : 0))
            let moof = try #require(try S.node(["moof"], in: seg))
            let mdat = try #require(try S.node(["mdat"], in: seg))
            #expect(UInt64(S.u32(trun, 8)) == mdat.offset + 8 - moof.offset)  // data_offset from the moof to the data
            let initial = segments.first { $0.kind == .initialization }!.bytes
            let hasEdit = try S.payload(["moov", "trak", "edts"], in: initial) != nil
            #expect(hasEdit == !negative)
            // Either way the first presented sample is at 0.
            let reader = try MP4Reader(segments.flatMap(\.bytes))
            let infos = try reader.sampleInfos(of: try #require(reader.videoTrack))
            #expect(infos.map(\.presentationTime).min() == 0)
        }
    }

    @Test func segmentIndexWhenAsked() throws {
        let segments = try Self.segments(.baselineCAVLC, options: { $0.writesSegmentIndex = true })
        for seg in segments where seg.kind == .media {
            let sidx = try #require(try S.payload(["sidx"], in: seg.bytes))
            #expect(sidx.first == 1)
            let moof = try #require(try S.node(["moof"], in: seg.bytes))
            let referenced = S.u32(sidx, 32) & 0x7FFF_FFFF
            #expect(UInt64(referenced) == UInt64(seg.bytes.count) - moof.offset)
            #expect(Int64(S.u32(sidx, 36)) == seg.duration)
            #expect(S.u32(sidx, 40) >> 31 == 1)  // starts_with_SAP
        }
    }

    /// A new avcC sends a new init segment before the segment that uses it.
    @Test func formatChangeSendsNewInitSegment() throws {
        let segments = try Self.segments(.resolutionChange)
        let kinds = segments.map(\.kind)
        #expect(kinds.filter { $0 == .initialization }.count == 2)
        let second = try #require(segments.lastIndex { $0.kind == .initialization })
        #expect(second > 1 && segments[second + 1].kind == .media)
        #expect(segments[second + 1].initializationNumber == 2)
        #expect(segments[second + 1].startsWithSyncSample)
        #expect(segments[second - 1].initializationNumber == 1)
    }

    /// The init segments after the first may add at most the samples' bytes to the output: a
    /// stream that changes format every few bytes gets its changes in band, not an init segment
    /// and a media segment per sample (many times its input). The credit is the whole stream's,
    /// not the bytes since the last init segment.
    @Test func formatChangesTooCloseTogetherGoInBand() throws {
        let samples = try S.samples(Fixture.resolutionChange.bytes())
        let (a, b) = (samples[0].0, try #require(samples.first { $0.0 != samples[0].0 }).0)
        let tiny = { (i: Int64) in MP4Sample(data: [0, 0, 0, 2, 0x65, 0x88], decodeTime: i * 3000, presentationTime: i * 3000,
                                             flags: MP4SampleFlags(isSync: true)) }
        var w = try MP4FragmentWriter(options: .init(timescale: 90_000, targetDuration: .seconds(1 << 24),  // no cut by duration
                                                     parameterSetChanges: .newInitializationSegment,
                                                     maximumSegmentDuration: .seconds(1 << 24), maximumFragmentDuration: .seconds(1 << 24)))
        var out = try w.append(tiny(0), description: a)
        #expect(out.map(\.kind) == [.initialization])
        let initSize = out[0].bytes.count
        out = try w.append(tiny(1), description: b)
        #expect(out.isEmpty)
        #expect(w.formatChangesCarriedInBand == 1)
        #expect(w.initializationCount == 1)
        // The writer takes the next change with an init segment once the stream's samples hold
        // as many bytes as it: about initSize / 6 tiny samples, not one per change.
        var t: Int64 = 2
        while true {
            out = try w.append(tiny(t), description: t % 2 == 0 ? a : b)
            t += 1
            if !out.isEmpty { break }
            #expect(t < Int64(initSize))
        }
        #expect(out.map(\.kind) == [.media, .initialization])
        #expect(out[1].isDiscontinuity)
        #expect(t > 4)
        #expect(w.initializationCount == 2)
        #expect(w.formatChangesCarriedInBand == t - 2)  // samples 1...t-2 changed in band
    }

    @Test func playlistText() throws {
        var p = HLSMediaPlaylist(timescale: 90_000, playlistType: .vod)
        p.entries = [.map(uri: "init.mp4"), .segment(uri: "a.m4s", duration: 180_000), .segment(uri: "b.m4s", duration: 225_000),
                     .discontinuity, .map(uri: "init-2.mp4"), .segment(uri: "c.m4s", duration: 45_045)]
        p.hasEnded = true
        #expect(p.text == """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:3
        #EXT-X-MEDIA-SEQUENCE:0
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:2.000000,
        a.m4s
        #EXTINF:2.500000,
        b.m4s
        #EXT-X-DISCONTINUITY
        #EXT-X-MAP:URI="init-2.mp4"
        #EXTINF:0.500500,
        c.m4s
        #EXT-X-ENDLIST

        """)
    }

    /// The segment writer's directory: init, segments, playlist; FFmpeg plays the playlist with
    /// every frame and no error.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), arguments: [Fixture.baselineCAVLC, .mainCABACBFrames, .resolutionChange])
    func segmentDirectoryPlaysInFFmpeg(_ fixture: Fixture) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let samples = try S.samples(fixture.bytes())
        let timescale = try #require(S.timescale(fixture.bytes()))
        let hls = try HLSSegmentWriter(directory: dir, options: .init(timescale: timescale, targetDuration: .nanoseconds(1)))
        for (d, s) in samples { try hls.append(s, description: d) }
        try hls.finish()
        let text = String(decoding: Support.readFile(dir + "/index.m3u8"), as: UTF8.self)
        #expect(text == hls.playlist.text)  // rendered line by line as segments came, the same
        #expect(text.contains("#EXT-X-MAP:URI=\"init.mp4\""))
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n"))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.contains("init.mp4") && names.contains("segment-00001.m4s"))
        #expect(!names.contains { $0.hasSuffix(".tmp") })
        let r = try Support.run("ffmpeg", ["-v", "error", "-i", dir + "/index.m3u8", "-f", "framecrc", "-"])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        let frames = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(frames.count == samples.count)
    }
}
