import Foundation
import H264
import H264Fixtures
import MP4
import Testing
import TestSupport

/// Timescales that must agree: samples say which clock their times are on
/// (``MP4Sample/timescale``), writers take `Duration`s and convert, and what cannot be
/// converted throws `timescaleMismatch`.
@Suite struct TimescaleTests {
    typealias S = MP4TestSupport

    /// A 10 s capture at 25 fps with an IDR picture every `gop` pictures, as access units with
    /// their own timestamps (the stream's VUI timing).
    static func capture(gop: Int) throws -> [AccessUnit] {
        var options = StreamBuilder.SequenceOptions(width: 64, height: 48)
        options.frameRate = (25, 1)
        var builder = try StreamBuilder(options)
        let group = "I! " + Array(repeating: "P", count: gop - 1).joined(separator: " ")
        try builder.append(script: Array(repeating: group, count: 250 / gop).joined(separator: " "))
        let units = AccessUnits.assemble(annexB: builder.annexB()[...], leadingData: .skip).accessUnits
            .filter { !$0.flags.hasNoPicture }
        try #require(units.count == 250)
        return units
    }

    /// The `EXTINF` values of a playlist, in order.
    static func extinfs(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
            .map { String($0.dropFirst("#EXTINF:".count).dropLast()) }  // drop the trailing ","
    }

    /// The program: a builder at 90 kHz feeding a writer at 1 kHz. The samples say
    /// they are at 90 kHz, so the writer converts them: `EXTINF`s are the capture's real
    /// 2-second GOPs (not 180 s), and the track is at the writer's 1,000.
    @Test func aBuilderAt90kHzIntoAMillisecondWriterConverts() throws {
        let units = try Self.capture(gop: 50)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var builder = MP4SampleBuilder(timescale: 90_000)
        let hls = try HLSSegmentWriter(directory: dir, options: .init(timescale: 1000, targetDuration: .seconds(2)))
        for au in units {
            let (description, sample) = try builder.sample(au)
            #expect(sample.timescale == 90_000)
            try hls.append(sample, description: description)
        }
        try hls.finish()
        #expect(hls.fragmentWriter.timescale == 1000)
        #expect(hls.playlist.timescale == 1000)
        let text = try String(contentsOfFile: dir + "/index.m3u8", encoding: .utf8)
        #expect(Self.extinfs(text) == Array(repeating: "2.000000", count: 5))
        #expect(text.contains("#EXT-X-TARGETDURATION:2\n"))
        let track = try #require(try MP4Reader(Support.readFile(dir + "/init.mp4")).videoTrack)
        #expect(track.timescale == 1000)
    }

    /// Without a timescale in the options the track takes the first sample's: no conversion.
    @Test func theTrackTakesTheFirstSamplesTimescale() throws {
        let units = try Self.capture(gop: 50)
        var builder = MP4SampleBuilder(timescale: 90_000)
        var writer = try MP4FragmentWriter(options: .init(targetDuration: .seconds(2)))
        #expect(writer.timescale == nil)
        var pieces: [MP4Segment] = []
        for au in units {
            let (description, sample) = try builder.sample(au)
            pieces += try writer.append(sample, description: description)
        }
        pieces += try writer.finish()
        #expect(writer.timescale == 90_000)
        let media = pieces.filter { $0.kind == .media }
        #expect(media.count == 5)
        #expect(media.allSatisfy { $0.duration == 180_000 })
    }

    /// A target of 2 seconds cuts at 2 s whatever the timescale (the tick count 2 that the old
    /// initialiser took cut a segment at every keyframe): keyframes every second make five
    /// segments of 2 s in 10 s, at 90 kHz as at 1 kHz.
    @Test(arguments: [Int64(90_000), 1000])
    func aTargetOfTwoSecondsCutsAtTwoSeconds(_ timescale: Int64) throws {
        let units = try Self.capture(gop: 25)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var builder = MP4SampleBuilder(timescale: 90_000)
        let hls = try HLSSegmentWriter(directory: dir, options: .init(timescale: timescale, targetDuration: .seconds(2)))
        for au in units {
            let (description, sample) = try builder.sample(au)
            try hls.append(sample, description: description)
        }
        try hls.finish()
        #expect(hls.fragmentWriter.segmentCount == 5)
        #expect(Self.extinfs(hls.playlist.text) == Array(repeating: "2.000000", count: 5))
    }

    /// What cannot be converted throws `timescaleMismatch`: a sample that says no timescale
    /// given to a writer made without one, and a track timescale too coarse for the samples
    /// (1 ms apart at 1 kHz into a 100 Hz track: two decoding times would become one).
    @Test func whatCannotBeConvertedThrows() throws {
        let (description, sample) = try #require(try S.samples(Fixture.baselineCAVLC.bytes()).first)
        var bare = sample
        bare.timescale = nil
        var untimed = try MP4FragmentWriter(options: .init(targetDuration: .seconds(2)))
        #expect(throws: MP4Error(.timescaleMismatch, "")) { _ = try untimed.append(bare, description: description) }
        let progressive = try MP4Writer(file: MP4MemoryFile(), options: .init(timescale: 100))
        var first = sample
        first.timescale = 1000
        first.decodeTime = 0
        first.presentationTime = 0
        var next = first
        next.decodeTime = 1
        next.presentationTime = 1
        try progressive.append(first, description: description)
        #expect(throws: MP4Error(.timescaleMismatch, "")) { try progressive.append(next, description: description) }
        var coarse = try MP4FragmentWriter(options: .init(timescale: 100, targetDuration: .seconds(2), cutting: .anySample))
        _ = try coarse.append(first, description: description)
        #expect(throws: MP4Error(.timescaleMismatch, "")) { _ = try coarse.append(next, description: description) }
        // 10 ms apart converts.
        next.decodeTime = 10
        next.presentationTime = 10
        _ = try coarse.append(next, description: description)
    }

    /// Progressive files convert too: a 90 kHz sample into a 1 kHz track keeps its seconds.
    @Test func progressiveWriterConverts() throws {
        let units = try Self.capture(gop: 50)
        let file = MP4MemoryFile()
        let writer = try MP4Writer(file: file, options: .init(timescale: 1000, maximumChunkDuration: .milliseconds(500)))
        var builder = MP4SampleBuilder(timescale: 90_000)
        for au in units {
            let (description, sample) = try builder.sample(au)
            try writer.append(sample, description: description)
        }
        try writer.finish()
        let reader = try MP4Reader(file.bytes)
        let track = try #require(reader.videoTrack)
        #expect(track.timescale == 1000)
        let infos = try reader.sampleInfos(of: track)
        #expect(infos.map(\.decodeTime) == (0..<250).map { Int64($0) * 40 })
    }

    /// The one-call writer: an encoder's or a parser's samples to a playlist FFmpeg reads, 10 s
    /// long, every picture there.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffprobe"))
    func hlsRecorderMakesAPlaylistFFmpegReads() throws {
        let units = try Self.capture(gop: 50)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hls = HLSRecorder(directory: dir, targetDuration: .seconds(2))
        for au in units { try hls.write(au) }
        try hls.finish()
        #expect(hls.frameCount == 250)
        let writer = try #require(hls.segmentWriter)
        #expect(writer.playlist.hasEnded)
        #expect(writer.playlist.independentSegments)
        #expect(Self.extinfs(writer.playlist.text) == Array(repeating: "2.000000", count: 5))
        let probe = try FFmpeg.ffprobe(["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                        dir + "/index.m3u8"]).checked("ffprobe")
        let seconds = try #require(Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(seconds - 10) < 0.001, "ffprobe says \(seconds) s")
        let (packets, errors) = try FFmpeg.packets(dir + "/index.m3u8")
        #expect(errors.isEmpty, "\(errors)")
        #expect(packets.count == 250)
        #expect(packets.filter(\.key).count == 5)
    }

    /// A recorder without frames, or with a sample without timestamps, says so.
    @Test func hlsRecorderErrors() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let empty = HLSRecorder(directory: dir)
        #expect(throws: MP4Error(.invalidArgument, "")) { try empty.finish() }
        var untimed = try Self.capture(gop: 50)[0]
        untimed.timeBase = nil
        untimed.dts = nil
        untimed.pts = nil
        #expect(throws: MP4Error(.invalidArgument, "")) { try empty.write(untimed) }
        let narrow = HLSRecorder(directory: dir, window: 2)
        #expect(throws: MP4Error(.invalidArgument, "")) { try narrow.write(try Self.capture(gop: 50)[0]) }
    }
}
