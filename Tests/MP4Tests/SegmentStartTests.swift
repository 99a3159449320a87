import Foundation
import H264
import H264Fixtures
import MP4
import Testing
import TestSupport

/// Where segments start, how long they get, and what a packager holds, whatever the stream:
/// segments a player can start from (RFC 8216's EXT-X-INDEPENDENT-SEGMENTS, CMAF), cut within
/// jitter of the target, bounded when no start point comes, parameter-set changes in band.
@Suite struct SegmentStartTests {
    typealias S = MP4TestSupport

    /// The samples of a built stream (`script` as `h264 build-stream` takes it), at 25 fps
    /// (timescale 10,000: 400 ticks per picture).
    static func samples(_ script: String, _ configure: (inout StreamBuilder.SequenceOptions) -> Void = { _ in })
    throws -> [(MP4SampleDescription, MP4Sample)] {
        var options = StreamBuilder.SequenceOptions(width: 64, height: 48)
        options.frameRate = (25, 1)
        configure(&options)
        var builder = try StreamBuilder(options)
        try builder.append(script: script)
        return try S.samples(builder.annexB())
    }

    /// Every piece a writer makes of `samples`.
    static func pieces(_ samples: [(MP4SampleDescription, MP4Sample)], _ options: MP4FragmentWriter.Options) throws
    -> (pieces: [MP4Segment], writer: MP4FragmentWriter) {
        var w = try MP4FragmentWriter(options: options)
        var out: [MP4Segment] = []
        for (d, s) in samples { out += try w.append(s, description: d) }
        out += try w.finish()
        return (out, w)
    }

    static func script(_ groups: Int, _ group: String) -> String {
        Array(repeating: group, count: groups).joined(separator: " ")
    }

    /// Keyframes two ticks early every two seconds (1.99998 s, as a real FFmpeg-made MP4 has):
    /// segments of about 2 s, not 4 s, and a target duration of 2.
    @Test func timestampJitterDoesNotDoubleSegments() throws {
        let gop = "I! " + Array(repeating: "P", count: 49).joined(separator: " ")  // 50 pictures, 2 s at 25 fps
        var samples = try Self.samples(Self.script(10, gop))
        try #require(samples.count == 500)
        for k in samples.indices {
            let early: Int64 = k % 50 == 0 && k > 0 ? 2 : 0
            samples[k].1.decodeTime = Int64(k) * 400 - early
            samples[k].1.presentationTime = samples[k].1.decodeTime
            samples[k].1.duration = nil
        }
        let (pieces, _) = try Self.pieces(samples, .init(timescale: 10_000, targetDuration: .seconds(2)))
        let media = pieces.filter { $0.kind == .media }
        #expect(media.count == 10)
        #expect(media.allSatisfy { $0.isIndependent })
        // Without the tolerance each segment would wait for the next keyframe (4 s).
        let durations = Dictionary(grouping: pieces.filter { $0.kind != .initialization }, by: \.sequenceNumber)
            .mapValues { $0.reduce(0) { $0 + $1.duration } }
        #expect(durations.values.allSatisfy { abs($0 - 20_000) <= 4 })
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hls = try HLSSegmentWriter(directory: dir, options: .init(timescale: 10_000, targetDuration: .seconds(2)))
        for (d, s) in samples { try hls.append(s, description: d) }
        try hls.finish()
        #expect(hls.playlist.targetDuration == 2)
    }

    /// A stream without an IDR access unit: nothing a player could start from, so nothing is
    /// written and every sample is counted as dropped; `anySample` writes it, not independent.
    @Test func noStartPointWritesNothingAndSaysSo() throws {
        let samples = try Self.samples("I " + Array(repeating: "P", count: 39).joined(separator: " "))
        var writer = try MP4FragmentWriter(options: .init(timescale: 10_000, targetDuration: .milliseconds(40)))
        for (d, s) in samples { #expect(try writer.append(s, description: d).isEmpty) }
        #expect(throws: MP4Error(.noStartPoint, "")) { _ = try writer.finish() }
        #expect(writer.droppedLeadingSampleCount == 40)
        #expect(writer.segmentCount == 0)
        let dir0 = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir0) }
        let refusing = try HLSSegmentWriter(directory: dir0, options: .init(timescale: 10_000, targetDuration: .milliseconds(40)))
        for (d, s) in samples { try refusing.append(s, description: d) }
        #expect(throws: MP4Error(.noStartPoint, "")) { try refusing.finish() }
        #expect(!FileManager.default.fileExists(atPath: dir0 + "/index.m3u8"))
        let (anywhere, w2) = try Self.pieces(samples, .init(timescale: 10_000, targetDuration: .milliseconds(400), cutting: .anySample))
        #expect(w2.droppedLeadingSampleCount == 0)
        #expect(anywhere.filter { $0.kind == .media }.count == 4)
        #expect(anywhere.allSatisfy { !$0.isIndependent && !$0.startsWithSyncSample })
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hls = try HLSSegmentWriter(directory: dir, options: .init(timescale: 10_000, targetDuration: .milliseconds(400), cutting: .anySample))
        for (d, s) in samples { try hls.append(s, description: d) }
        try hls.finish()
        #expect(!hls.playlist.text.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
    }

    /// An MP4 whose sync flags say nothing (an empty `stss`) or lie (every sample sync): the
    /// segments still start at the IDR access units, and only those are written as sync.
    @Test(arguments: [false, true])
    func syncFlagsAreJudgedFromTheSamples(_ allSync: Bool) throws {
        var samples = try Self.samples(Self.script(4, "I! P P P P"))
        for k in samples.indices { samples[k].1.flags = allSync ? .sync : .nonSync }
        let (pieces, _) = try Self.pieces(samples, .init(timescale: 10_000, targetDuration: .milliseconds(200)))
        let media = pieces.filter { $0.kind == .media }
        #expect(media.count == 4 && media.allSatisfy { $0.isIndependent && $0.sampleCount == 5 })
        let reader = try MP4Reader(pieces.flatMap(\.bytes))
        let infos = try reader.sampleInfos(of: try #require(reader.videoTrack))
        #expect(infos.enumerated().filter { $0.element.flags.isSync }.map(\.offset) == [0, 5, 10, 15])
    }

    /// Samples before the first IDR cannot be decoded: they are dropped, and the first segment
    /// starts at the IDR.
    @Test func leadingSamplesBeforeTheFirstIDRAreDropped() throws {
        let samples = try Self.samples("I P P P I! P P P P P")
        let (pieces, writer) = try Self.pieces(samples, .init(timescale: 10_000, targetDuration: .seconds(100)))
        #expect(writer.droppedLeadingSampleCount == 4)
        let media = pieces.filter { $0.kind == .media }
        #expect(media.count == 1 && media[0].isIndependent && media[0].sampleCount == 6)
    }

    /// Recovery points (open GOP, intra refresh) start segments only when asked, and a segment
    /// that starts at one is not independent; their samples are not flagged sync otherwise.
    @Test func recoveryPointsStartSegmentsOnlyWhenAsked() throws {
        let gop = "I~ P P P P P P P P P"
        let samples = try Self.samples("I! P P P P P P P P P " + Self.script(3, gop))
        let strict = try Self.pieces(samples, .init(timescale: 10_000, targetDuration: .milliseconds(40)))
        #expect(strict.pieces.filter { $0.kind == .media }.count == 1)  // one IDR: one segment
        let file = strict.pieces.flatMap(\.bytes)
        let reader = try MP4Reader(file)
        let infos = try reader.sampleInfos(of: try #require(reader.videoTrack))
        #expect(infos.count == 40)
        #expect(infos.enumerated().filter { $0.element.flags.isSync }.map(\.offset) == [0])

        let relaxed = try Self.pieces(samples, .init(timescale: 10_000, targetDuration: .milliseconds(40), cutting: .atRandomAccessPoints))
        let media = relaxed.pieces.filter { $0.kind == .media }
        #expect(media.count == 4)
        #expect(media.map(\.isIndependent) == [true, false, false, false])
        #expect(media.allSatisfy { $0.startsWithSyncSample })
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hls = try HLSSegmentWriter(directory: dir, options: .init(timescale: 10_000, targetDuration: .milliseconds(40), cutting: .atRandomAccessPoints))
        for (d, s) in samples { try hls.append(s, description: d) }
        try hls.finish()
        #expect(!hls.playlist.text.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
    }

    /// x264's open GOP and intra refresh fixtures: every segment starts at an IDR access unit.
    @Test(arguments: [Fixture.openGOP, .intraRefresh, .paffFields, .paffPB])
    func fixtureSegmentsStartAtIDRPictures(_ fixture: Fixture) throws {
        let samples = try S.samples(fixture.bytes())
        let timescale = try #require(S.timescale(fixture.bytes()))
        let lengthSize = samples[0].0.decoderConfiguration?.nalUnitLengthSize ?? .four
        let (pieces, _) = try Self.pieces(samples, .init(timescale: timescale, targetDuration: .nanoseconds(1)))
        let media = pieces.filter { $0.kind == .media }
        #expect(!media.isEmpty)
        #expect(media.allSatisfy { $0.isIndependent })
        let idrs = samples.filter { $0.1.randomAccess(lengthSize: lengthSize, recoveryPoints: false) == .idr }.count
        #expect(media.count == idrs)
    }

    /// One IDR then only P pictures: segments end at the maximum duration (not one segment for
    /// the whole stream), those after the first are not independent, and every piece spans at
    /// most the fragment duration.
    @Test func segmentsWithoutStartPointsEndAtTheMaximum() throws {
        let samples = try Self.samples("I! " + Array(repeating: "P", count: 499).joined(separator: " "))  // 20 s
        var options = MP4FragmentWriter.Options(timescale: 10_000, targetDuration: .seconds(2), maximumSegmentDuration: .seconds(4),
                                                maximumFragmentDuration: .seconds(1))
        options.writesSegmentIndex = true
        let (pieces, writer) = try Self.pieces(samples, options)
        let media = pieces.filter { $0.kind == .media }
        #expect(media.count == 5)
        #expect(media.map(\.isIndependent) == [true, false, false, false, false])
        #expect(writer.segmentsCutWithoutStartPoint == 4)
        let fragments = pieces.filter { $0.kind != .initialization }
        #expect(fragments.count == 20)
        #expect(fragments.allSatisfy { $0.duration <= 10_000 })
        #expect(fragments.map(\.fragmentNumber) == Array(1...20))
        // Back to back the pieces make one file with every sample, once.
        let reader = try MP4Reader(pieces.flatMap(\.bytes))
        #expect(try reader.sampleInfos(of: try #require(reader.videoTrack)).count == 500)
    }

    /// 1-byte NAL units with no sync sample after the first: what the writer holds never passes
    /// its byte bound, bookkeeping counted, and the samples go out in bounded fragments.
    @Test func heldBytesStayWithinTheFragmentBound() throws {
        let description = try #require(try S.samples(Fixture.baselineCAVLC.bytes()).first?.0)
        let bound = 64 << 10
        var w = try MP4FragmentWriter(options: .init(timescale: 90_000, targetDuration: .seconds(1 << 24), maximumSegmentDuration: .seconds(1 << 24),
                                                     maximumFragmentDuration: .seconds(1 << 24), maximumFragmentBytes: bound))
        var most = 0
        var outputs = 0
        var written = 0
        for k in 0..<100_000 {
            let sample = MP4Sample(data: [0, 0, 0, 1, k == 0 ? 0x65 : 0x41], decodeTime: Int64(k), presentationTime: Int64(k),
                                   flags: .nonSync)
            for piece in try w.append(sample, description: description) where piece.kind != .initialization {
                outputs += 1
                written += piece.sampleCount
            }
            most = max(most, w.heldBytes)
        }
        #expect(most <= bound)
        #expect(most > bound - 5 - 64)  // the bound, not a smaller one, decides (a sample costs 5 bytes and its entry)
        written += try w.finish().reduce(0) { $0 + $1.sampleCount }
        #expect(written == 100_000)
        #expect(outputs >= 100_000 * 45 / bound)  // 5 bytes and at least 40 of bookkeeping each
    }

    /// What `h264 rtp-receive -o out.mp4`, `convert --mp4-layout fragmented` and `MP4Recorder`
    /// write: one fragmented file cut every second at any sample. One IDR then only P pictures
    /// (a sender that never sends another) makes a fragment a second, not one that grows.
    @Test func fragmentedFileCutsEverySecondWithoutSyncSamples() throws {
        let samples = try Self.samples("I! " + Array(repeating: "P", count: 1499).joined(separator: " "))  // 60 s
        let file = MP4MemoryFile()
        let writer = try MP4FragmentedFileWriter(file: file, options: .init(timescale: 10_000, targetDuration: .seconds(1),
                                                                            cutting: .anySample, compositionTimes: .editList))
        var most = 0
        var largest = 0
        for (d, s) in samples {
            try writer.append(s, description: d)
            most = max(most, writer.fragmentWriter.heldBytes)
            largest = max(largest, s.data.count)
        }
        try writer.finish()
        #expect(writer.fragmentCount == 60)
        #expect(most <= 25 * (largest + 48))  // one second of samples
        let reader = try MP4Reader(file.bytes)
        let infos = try reader.sampleInfos(of: try #require(reader.videoTrack))
        #expect(infos.count == 1500)
        #expect(infos.filter { $0.flags.isSync }.count == 1)
    }

    /// A picture presented before the IDR picture that precedes it in decoding order (an IDR
    /// with a POC above 0, as a conformance stream has): the fragmented file's edit list, written
    /// with the first sample's offset, is lowered at the end to that picture's time, so that no
    /// picture is cut off (GStreamer dropped two such pictures of CVWP2_TOSHIBA_E).
    @Test func fragmentedFileEditStartsAtTheEarliestPicture() throws {
        let samples = try Self.samples("I!@8 B@4^0 B@6^0 P@16 B@12^0 B@14^0 P@24") { $0.maxNumReorderFrames = 2 }
        let file = MP4MemoryFile()
        let writer = try MP4FragmentedFileWriter(file: file, options: .init(timescale: 10_000, targetDuration: .seconds(1),
                                                                            cutting: .anySample, compositionTimes: .editList))
        for (d, s) in samples { try writer.append(s, description: d) }
        let first = samples[0].1.compositionOffset
        let earliest = samples.map { $0.1.presentationTime - samples[0].1.decodeTime }.min()!
        #expect(earliest < first)
        #expect(writer.fragmentWriter.editMediaTime == first)
        try writer.finish()
        let track = try #require(try MP4Reader(file.bytes).videoTrack)
        #expect(track.presentationOffset == -earliest)  // media_time = earliest
        let infos = try MP4Reader(file.bytes).sampleInfos(of: track)
        #expect(infos.map(\.presentationTime).min() == 0)
    }

    /// Two streams with the same SPS and a different PPS one after the other: the change goes
    /// in band (an `avc3` init segment, not a discontinuity, and the segment's first sample
    /// carries the sets), where a new picture size makes a discontinuity.
    @Test func compatibleParameterSetChangesGoInBand() throws {
        let a = try Self.samples("I! P P P P")
        var b = try Self.samples("I! P P P P I P P P P") { $0.cabac = true; $0.profileIDC = 77 }
        for k in b.indices {
            b[k].1.decodeTime += 2_000
            b[k].1.presentationTime += 2_000
        }
        let samples = a + b
        #expect(a[0].0 != b[0].0)
        let (pieces, writer) = try Self.pieces(samples, .init(timescale: 10_000, targetDuration: .milliseconds(100)))
        let inits = pieces.filter { $0.kind == .initialization }
        #expect(inits.count == 2)
        #expect(inits.allSatisfy { !$0.isDiscontinuity })
        #expect(writer.sampleEntry?.format == "avc3")
        #expect(writer.formatChangesCarriedInBand == 0)
        let second = try #require(pieces.firstIndex { $0.kind == .initialization && $0.sequenceNumber == 2 })
        let reader = try MP4Reader(pieces[second].bytes + pieces[(second + 1)...].flatMap(\.bytes))
        let track = try #require(reader.videoTrack)
        #expect(track.descriptions.first?.format == "avc3")
        let first = try reader.sample(try #require(try reader.sampleInfos(of: track).first))
        let units = try AVCC.split(first.data)
        #expect(units.contains { $0.type == .sps } && units.contains { $0.type == .pps })

        let reconfigured = try Self.pieces(samples, .init(timescale: 10_000, targetDuration: .milliseconds(100),
                                                          parameterSetChanges: .newInitializationSegment))
        #expect(reconfigured.pieces.filter { $0.kind == .initialization }.map(\.isDiscontinuity) == [false, true])
        let resizedTimescale = try #require(S.timescale(Fixture.resolutionChange.bytes()))
        let resized = try Self.pieces(try S.samples(Fixture.resolutionChange.bytes()),
                                      .init(timescale: resizedTimescale, targetDuration: .nanoseconds(1)))
        #expect(resized.pieces.filter { $0.kind == .initialization }.map(\.isDiscontinuity) == [false, true])
    }

    /// Descriptions that alternate every tiny sample (same picture size, another PPS): the
    /// parameter sets carried in band are paid from the samples' bytes, so the output stays
    /// within twice the input plus the per-sample and per-fragment overhead, and what did not
    /// fit is counted.
    @Test func alternatingDescriptionsCannotMultiplyTheOutput() throws {
        let a = try #require(try Self.samples("I! P").first?.0)
        let b = try #require(try Self.samples("I! P") { $0.cabac = true }.first?.0)
        #expect(a != b && a.width == b.width && a.height == b.height)  // a change that goes in band
        var w = try MP4FragmentWriter(options: .init(timescale: 90_000, targetDuration: .seconds(1)))
        var output = 0
        var fragments = 0
        let count = 2_000
        for k in 0..<count {
            let sample = MP4Sample(data: [0, 0, 0, 2, 0x65, 0x88], decodeTime: Int64(k) * 3_000, presentationTime: Int64(k) * 3_000,
                                   flags: .sync)
            for piece in try w.append(sample, description: k % 2 == 0 ? a : b) {
                output += piece.bytes.count
                if piece.kind != .initialization { fragments += 1 }
            }
        }
        for piece in try w.finish() { output += piece.bytes.count; fragments += 1 }
        let input = 6 * count
        #expect(w.parameterSetsLeftOut > 0)
        #expect(output <= 2 * input + 16 * count + 1024 * (fragments + 2), "\(output) bytes out of \(input)")
    }

    /// A PPS that changes in the middle of a segment (at a picture that is not a start point)
    /// does not cut the segment: the picture carries its sets in band.
    @Test func parameterSetChangeMidSegmentStaysInTheSegment() throws {
        let a = try Self.samples("I! P P P P")
        var b = try Self.samples("I P P P P") { $0.cabac = true }
        for k in b.indices {
            b[k].1.decodeTime += 2_000
            b[k].1.presentationTime += 2_000
        }
        let (pieces, writer) = try Self.pieces(a + b, .init(timescale: 10_000, targetDuration: .seconds(10)))
        #expect(pieces.map(\.kind) == [.initialization, .media])
        #expect(writer.sampleEntry?.format == "avc1")  // the entry changes at the next segment
        let reader = try MP4Reader(pieces.flatMap(\.bytes))
        let track = try #require(reader.videoTrack)
        let infos = try reader.sampleInfos(of: track)
        #expect(infos.count == 10)
        let changed = try AVCC.split(try reader.sample(infos[5]).data)
        #expect(changed.contains { $0.type == .pps })
        let unchanged = try AVCC.split(try reader.sample(infos[6]).data)
        #expect(!unchanged.contains { $0.type == .pps })
    }

    /// A live sliding window: the playlist lists the last segments, counts those removed, keeps
    /// the init segment in force, and deletes segment files once they have been out of the
    /// playlist for a window.
    @Test func liveWindowSlides() throws {
        let gop = "I! P P P P"
        let samples = try Self.samples(Self.script(12, gop))
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hls = try HLSSegmentWriter(directory: dir, options: .init(timescale: 10_000, targetDuration: .milliseconds(200)), window: 3)
        var listedMost = 0
        for (d, s) in samples {
            try hls.append(s, description: d)
            let text = (try? String(contentsOfFile: dir + "/index.m3u8", encoding: .utf8)) ?? ""
            listedMost = max(listedMost, text.components(separatedBy: "#EXTINF").count - 1)
            // Every segment the playlist names is on disk, whole.
            for line in text.split(separator: "\n") where line.hasSuffix(".m4s") {
                #expect(FileManager.default.fileExists(atPath: dir + "/" + line))
            }
        }
        try hls.finish()
        #expect(listedMost == 3)
        let text = try String(contentsOfFile: dir + "/index.m3u8", encoding: .utf8)
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:9\n"))
        #expect(!text.contains("#EXT-X-PLAYLIST-TYPE"))
        #expect(text.contains("#EXT-X-MAP:URI=\"init.mp4\""))
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n"))
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
        #expect(names.contains("init.mp4"))
        #expect(!names.contains("segment-00006.m4s"))  // out of the playlist for more than a window
        #expect((7...12).allSatisfy { names.contains(String(format: "segment-%05d.m4s", $0)) })
        #expect(throws: MP4Error(.invalidArgument, "")) {
            _ = try HLSSegmentWriter(directory: dir, options: .init(timescale: 10_000, targetDuration: .milliseconds(200)), window: 2)
        }
    }

    /// The playlist written while segments come lists only whole segments.
    @Test func livePlaylistListsOnlyWholeSegments() throws {
        let samples = try Self.samples(Self.script(3, "I! P P P P P P P P P"))
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hls = try HLSSegmentWriter(directory: dir, options: .init(timescale: 10_000, targetDuration: .milliseconds(400),
                                                                      maximumFragmentDuration: .milliseconds(100)))
        for (d, s) in samples.prefix(25) { try hls.append(s, description: d) }
        let text = try String(contentsOfFile: dir + "/index.m3u8", encoding: .utf8)
        #expect(text.components(separatedBy: "#EXTINF").count - 1 == 2)
        #expect(!text.contains("segment-00003.m4s"))
        #expect(!text.contains("#EXT-X-ENDLIST"))
        // The third segment is being written, a fragment at a time.
        let size = (try FileManager.default.attributesOfItem(atPath: dir + "/segment-00003.m4s")[.size] as? Int) ?? 0
        #expect(size > 0)
    }
}
