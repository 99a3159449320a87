import Foundation
import H264
import MP4
import Testing
import TestSupport

/// Every Annex-B stream of the public corpus cut into HLS segments: each segment the playlist
/// declares independent decodes alone in FFmpeg (its init segment + it) to exactly the frames the
/// whole presentation decodes to at those times, EXTINF never passes EXT-X-TARGETDURATION, and
/// there are no more discontinuities than picture-size changes.
@Suite(.enabled(if: Corpus.isPresent && FFmpeg.isPresent, "needs ../shared/corpus and ffmpeg"))
struct HLSCorpusTests {
    /// What a segmenting run wrote: the directory, the playlist and the files in playlist order.
    struct Segmented {
        var directory: String
        var playlist: HLSMediaPlaylist
        /// (init segment, media segment) per media segment, in order.
        var segments: [(map: String, uri: String)]
        /// Every file in playlist order: init segments where they change, media segments.
        var files: [String]
        /// Segments cut at the maximum duration without a start point.
        var forcedCuts: Int

        /// What a finished writer wrote, from its playlist.
        init(_ hls: HLSSegmentWriter) {
            directory = hls.directory
            playlist = hls.playlist
            forcedCuts = hls.fragmentWriter.segmentsCutWithoutStartPoint
            segments = []
            files = []
            var map = ""
            for entry in hls.playlist.entries {
                switch entry {
                case .map(let uri): map = uri; files.append(uri)
                case .segment(let uri, _): segments.append((map, uri)); files.append(uri)
                case .discontinuity: break
                }
            }
        }
    }

    /// Segments an Annex-B stream with the library, as `h264 segment` does; nil when the stream
    /// has no picture the core can write (an MVC stream's base view missing).
    static func segment(_ bytes: [UInt8], seconds: Double = 2, into dir: String) throws -> Segmented? {
        var writer: HLSSegmentWriter?
        var recorder = MP4AnnexBRecorder { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
            let hls = try HLSSegmentWriter(directory: dir, options: .init(timescale: timescale,
                                                                          targetDuration: .seconds(seconds)),
                                           updatesPlaylistAfterEachSegment: false)
            writer = hls
            return hls
        }
        try recorder.append(bytes)
        do { _ = try recorder.finish() } catch {
            let (units, _) = AccessUnits.assemble(annexB: bytes[...], leadingData: .skip)
            #expect(units.allSatisfy { $0.flags.hasNoPicture }, "\(error)")
            return nil
        }
        let hls = try #require(writer)
        return Segmented(hls)
    }

    static func concatenate(_ names: [String], in dir: String, to path: String) throws {
        var bytes: [UInt8] = []
        for name in names { bytes += Support.readFile(dir + "/" + name) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: Corpus.annexBStreams)
    func independentSegmentsDecodeAlone(_ stream: String) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // nil only for a stream without a picture to write (checked inside).
        if let result = try Self.segment(try Corpus.read(stream), into: dir) {
            try check(result, stream)
        }
    }

    func check(_ result: Segmented, _ stream: String) throws {
        let dir = result.directory
        let playlist = result.playlist
        // RFC 8216 4.3.3.1: every EXTINF, rounded, is at most the target duration.
        for case .segment(_, let duration) in playlist.entries {
            #expect((duration + playlist.timescale / 2) / playlist.timescale <= Int64(playlist.targetDuration))
        }
        // Discontinuities only where the picture size changes.
        var sizes: [String] = []
        for case .map(let uri) in playlist.entries {
            let track = try #require(try MP4Reader(Support.readFile(dir + "/" + uri)).videoTrack)
            sizes.append("\(track.descriptions[0].width)x\(track.descriptions[0].height)")
        }
        let sizeChanges = zip(sizes, sizes.dropFirst()).filter { $0 != $1 }.count
        let discontinuities = playlist.entries.filter { $0 == .discontinuity }.count
        #expect(discontinuities <= sizeChanges)
        #expect(!result.segments.isEmpty)
        // Independent unless a stretch without an IDR passed the maximum segment duration (30 s):
        // then the segments after such a cut are not, and only the first is checked alone.
        #expect(playlist.independentSegments == (result.forcedCuts == 0))
        let alone = playlist.independentSegments ? result.segments : Array(result.segments.prefix(1))

        let whole = dir + "/whole.mp4"
        try Self.concatenate(result.files, in: dir, to: whole)
        let context = try FFmpeg.timedFrameMD5s(file: whole)
        #expect(!context.frames.isEmpty)
        let known = Set(context.frames.map { "\($0.pts) \($0.md5)" })
        for (map, uri) in alone {
            let path = dir + "/alone.mp4"
            try Self.concatenate([map, uri], in: dir, to: path)
            let decoded = try FFmpeg.timedFrameMD5s(file: path)
            let packets = try FFmpeg.packets(path).packets.map(\.pts)
            let (low, high) = (try #require(packets.min()), try #require(packets.max()))
            let expected = context.frames.filter { $0.pts >= low && $0.pts <= high }.map { "\($0.pts) \($0.md5)" }
            let got = decoded.frames.map { "\($0.pts) \($0.md5)" }
            #expect(decoded.errors.isEmpty, "\(stream) \(uri): \(decoded.errors)")
            let same = Set(got) == Set(expected)
            #expect(same, "\(stream) \(uri): \(got.count) frames alone, \(expected.count) in context")
            let allKnown = got.allSatisfy { known.contains($0) }
            #expect(allKnown, "\(stream) \(uri)")
        }
    }

    /// MP4 files FFmpeg's muxer wrote from corpus streams (several IDR pictures, B-frames,
    /// multiple slices), segmented from the MP4 as `h264 segment` does: the same checks. (A
    /// raw stream is first put in MP4 by the library, which gives every sample its presentation
    /// time: FFmpeg's raw H.264 demuxer leaves PTS equal to DTS, and its decoder's pictures
    /// then match no timeline.)
    @Test(arguments: ["cros-codecs/test-25fps.h264", "openh264/MR1_MW_A.264", "openh264/MIDR_MW_D.264", "openh264/MPS_MW_A.264",
                      "openh264/VID_1280x720_cabac_temporal_direct.264", "openh264/MR2_MW_A.264"])
    func segmentsOfFFmpegRemuxedMP4DecodeAlone(_ stream: String) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ours = MP4MemoryFile()
        var converter = MP4AnnexBRecorder { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
            try MP4Writer(file: ours, options: .init(timescale: timescale, layout: .fastStart))
        }
        try converter.append(try Corpus.read(stream))
        _ = try converter.finish()
        try Data(ours.bytes).write(to: URL(fileURLWithPath: dir + "/ours.mp4"))
        let mp4 = dir + "/remuxed.mp4"
        let remux = try FFmpeg.ffmpeg(["-v", "error", "-i", dir + "/ours.mp4", "-c", "copy", mp4])
        try #require(remux.succeeded, "\(remux.stderr)")
        let reader = try MP4Reader(try MP4File(readingAtPath: mp4))
        let track = try #require(reader.videoTrack)
        let hls = try HLSSegmentWriter(directory: dir, options: .init(timescale: Int64(track.timescale),
                                                                      targetDuration: .milliseconds(200)),
                                       updatesPlaylistAfterEachSegment: false)
        var samples = reader.samples(of: track)
        while let info = try samples.next() {
            try hls.append(try reader.sample(info), description: track.descriptions[info.descriptionIndex])
        }
        try hls.finish()
        let result = Segmented(hls)
        #expect(result.segments.count > 1)
        try check(result, stream)
    }

    /// The streams whose parameter sets change mid-stream (a PPS per picture, FRExt's changing
    /// sets, a new picture size) play through HLS in GStreamer's hlsdemux, every frame.
    @Test(.enabled(if: Support.gstLaunch(with: ["hlsdemux", "qtdemux", "h264parse", "avdec_h264"]) != nil,
                   "needs GStreamer's hlsdemux, qtdemux, h264parse and avdec_h264"),
          arguments: ["fate-frext/FRExt1_Panasonic.avc", "fate-frext/FRExt3_Panasonic.avc", "fate-frext/FRExt4_Panasonic.avc",
                      "hibernia/CVWP2_TOSHIBA_E.264", "hibernia/CAWP5_TOSHIBA_E.264", "openh264/Error_I_P.264"])
    func changingStreamsPlayInGStreamer(_ stream: String) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bytes = try Corpus.read(stream)
        // The stream three times over: segments start at each copy's IDR.
        let result = try #require(try Self.segment(bytes + bytes + bytes, seconds: 0.2, into: dir))
        let discontinuities = result.playlist.entries.filter { $0 == .discontinuity }.count
        let ffmpeg = try FFmpeg.timedFrameMD5s(file: dir + "/index.m3u8")
        #expect(ffmpeg.errors.isEmpty, "\(ffmpeg.errors)")
        let launch = try #require(Support.gstLaunch(with: ["hlsdemux"]))
        let r = try Support.run(launch, ["-v", "uridecodebin", "uri=file://\(dir)/index.m3u8", "!", "fakesink", "sync=false",
                                         "silent=false"], timeout: 60)
        #expect(r.succeeded, "\(r.stderr)")
        let frames = r.output.components(separatedBy: "chain   ******").count - 1
        #expect(frames == ffmpeg.frames.count, "\(stream): \(discontinuities) discontinuities")
        #expect(frames > 0)
    }
}
