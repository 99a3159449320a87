import Foundation
import H264
import H264Fixtures
import MP4
import Testing
import TestSupport

/// Our files in FFmpeg and GStreamer, and FFmpeg's files (and the corpus's) in our reader.
///
/// The corpus tests take a representative subset of the corpus; `MP4_FULL_CORPUS=1` takes all
/// of it (the sweep whose results Docs/MP4.md reports).
@Suite struct MP4FFmpegTests {
    typealias S = MP4TestSupport

    static let fullCorpus = ProcessInfo.processInfo.environment["MP4_FULL_CORPUS"] == "1"

    /// Corpus streams that cover the muxing cases: B-frames, two slices and SEI per picture,
    /// field pictures, MBAFF, AUD and end of stream, several SPS/PPS, subset SPS, 8160 slices.
    static let corpusSubset = [
        "cros-codecs/test-25fps.h264", "openh264/MR9_BT_B.264", "fate-frext/HCAFF1_HHI.264", "fate-frext/HCAMFF1_HHI.264",
        "hibernia/CAWP5_TOSHIBA_E.264", "openh264/Error_I_P.264", "openh264/test_scalinglist_jm.264",
        "fate-frext/FRExt1_Panasonic.avc", "openh264/sps_subsetsps_bothVUI.264",
    ]

    static var annexBCorpus: [String] {
        fullCorpus ? Corpus.annexBStreams : corpusSubset.filter { FileManager.default.fileExists(atPath: Corpus.path($0)) }
    }

    static var mp4Corpus: [String] { Corpus.mp4Files }

    /// Fixtures that cover the muxing cases (every fixture is round-tripped without FFmpeg by
    /// MP4RoundTripTests; all of them go through FFmpeg with `MP4_FULL_CORPUS=1`).
    static var fixtures: [Fixture] {
        fullCorpus ? S.annexBFixtures : [.mainCABACBFrames, .highBPyramid, .paffFields, .mbaffTFF, .resolutionChange,
                                         .openGOP, .intraRefresh, .high422_10, .crop98x50, .slices4, .aud]
    }

    static func muxToTemporary(_ annexB: [UInt8], layout: MP4Writer.Options.Layout = .fastStart) throws -> (dir: String, path: String) {
        let dir = try Support.temporaryDirectory()
        let path = dir + "/ours.mp4"
        let file = try MP4File(creatingAtPath: path)
        var converter = MP4AnnexBRecorder { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
            try MP4Writer(file: file, options: .init(timescale: timescale, layout: layout))
        }
        try converter.append(annexB)
        _ = try converter.finish()
        file.close()
        return (dir, path)
    }

    // MARK: - Our files

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe"), arguments: fixtures)
    func fixtureMuxedAgreesWithFFmpeg(_ fixture: Fixture) throws {
        let source = try S.temporaryFile(fixture.bytes(), name: fixture.rawValue)
        let (dir, path) = try Self.muxToTemporary(fixture.bytes())
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let problems = try FFmpegComparison.muxed(source: source, mp4: path)
        #expect(problems.isEmpty, "\(fixture.rawValue): \(problems.joined(separator: "\n"))")
    }

    @Test(.enabled(if: FFmpeg.isPresent && Corpus.isPresent, "needs ffmpeg and ../shared/corpus"), arguments: annexBCorpus)
    func corpusMuxedAgreesWithFFmpeg(_ name: String) throws {
        let source = Corpus.path(name)
        guard !(try FFmpegComparison.packets(source)).packets.isEmpty else {
            // FFmpeg cannot read it (MVC slices with no base view): we refuse it with a typed error.
            #expect(throws: MP4Error.self) { _ = try Self.muxToTemporary(Support.readFile(source)) }
            return
        }
        let (dir, path) = try Self.muxToTemporary(Support.readFile(source))
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var problems = try FFmpegComparison.muxed(source: source, mp4: path)
        if FFmpegComparison.hasGStreamer { problems += try FFmpegComparison.gstreamer(path) }
        #expect(problems.isEmpty, "\(name): \(problems.joined(separator: "\n"))")
    }

    @Test(.enabled(if: FFmpegComparison.hasGStreamer, "needs gst-launch-1.0 with qtdemux and avdec_h264"),
          arguments: [Fixture.mainCABACBFrames, .highBPyramid, .resolutionChange, .mbaffTFF, .paffFields])
    func gstreamerDecodesOurFile(_ fixture: Fixture) throws {
        for layout in [MP4Writer.Options.Layout.fastStart, .mediaFirst] {
            let (dir, path) = try Self.muxToTemporary(fixture.bytes(), layout: layout)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let problems = try FFmpegComparison.gstreamer(path)
            #expect(problems.isEmpty, "\(fixture.rawValue) \(layout): \(problems.joined(separator: "\n"))")
        }
    }

    // MARK: - FFmpeg's files in our reader

    /// How FFmpeg writes files our reader must read as ffprobe does.
    enum FFmpegFile: String, CaseIterable, Sendable {
        case copyProgressive, x264BFrames, x264Fragmented, x264FragmentedMoofBase, x264NegativeCTS, x264FastStart, x264CMAF
        case hlsSegments

        var arguments: [String] {
            let x264 = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-frames:v", "60", "-c:v", "libx264",
                        "-bf", "3", "-g", "20", "-pix_fmt", "yuv420p"]
            switch self {
            case .copyProgressive: return ["-c", "copy"]
            case .x264BFrames: return x264
            case .x264Fragmented: return x264 + ["-movflags", "frag_keyframe+empty_moov"]
            case .x264FragmentedMoofBase: return x264 + ["-movflags", "frag_keyframe+empty_moov+default_base_moof"]
            case .x264NegativeCTS: return x264 + ["-movflags", "negative_cts_offsets", "-use_editlist", "0"]
            case .x264FastStart: return x264 + ["-movflags", "faststart"]
            case .x264CMAF: return x264 + ["-movflags", "cmaf+frag_keyframe+empty_moov+separate_moof"]
            case .hlsSegments: return x264
            }
        }
    }

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), arguments: FFmpegFile.allCases)
    func readsFFmpegFiles(_ kind: FFmpegFile) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/ffmpeg.mp4"
        var args = ["-v", "error", "-y"]
        if kind == .copyProgressive {
            args += ["-i", try S.temporaryFile(Fixture.highBPyramid.bytes(), name: "in.264")]
        }
        args += kind.arguments
        if kind == .hlsSegments {
            // FFmpeg's own fMP4 HLS: our reader reads init + each segment joined.
            args += ["-f", "hls", "-hls_segment_type", "fmp4", "-hls_time", "1", "-hls_playlist_type", "vod", dir + "/index.m3u8"]
        } else {
            args.append(path)
        }
        let made = try Support.run("ffmpeg", args)
        try #require(made.status == 0, "\(made.stderr)")
        if kind == .hlsSegments {
            let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".m4s") }.sorted()
            var joined = Support.readFile(dir + "/init.mp4")
            for n in names { joined += Support.readFile(dir + "/" + n) }
            try Data(joined).write(to: URL(fileURLWithPath: path))
        }
        let problems = try FFmpegComparison.read(path) { $0.videoTrack }
        #expect(problems.isEmpty, "\(kind): \(problems.joined(separator: "\n"))")
        let reader = try MP4Reader(try MP4File(readingAtPath: path))
        let track = try #require(reader.videoTrack)
        switch kind {
        case .x264BFrames, .x264FastStart: #expect(!track.edits.isEmpty && track.presentationOffset < 0)
        case .x264Fragmented, .x264FragmentedMoofBase, .x264CMAF, .hlsSegments: #expect(reader.isFragmented)
        default: break
        }
    }

    /// Several sample descriptions (FFmpeg 5.1 does not write them; ours, read by ffprobe).
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffprobe"))
    func severalDescriptionsReadAsFFprobeReadsThem() throws {
        let (dir, path) = try Self.muxToTemporary(Fixture.resolutionChange.bytes())
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try MP4Reader(try MP4File(readingAtPath: path)).videoTrack?.descriptions.count == 2)
        let problems = try FFmpegComparison.read(path) { $0.videoTrack }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The corpus's MP4 files: where ffprobe lists a video stream's packets without error, our
    /// reader returns the same samples; where our reader refuses a file, it is with a typed
    /// error, and FFmpeg finds it broken too (or it is not a file we read: a lone segment).
    @Test(.enabled(if: FFmpeg.isPresent && Corpus.isPresent, "needs ffprobe and ../shared/corpus"), arguments: mp4Corpus)
    func corpusMP4AgreesWithFFprobe(_ name: String) throws {
        let path = Corpus.path(name)
        let probe = try FFmpegComparison.packets(path)
        let clean = probe.errors.isEmpty && !probe.packets.isEmpty
        let reader: MP4Reader
        do {
            reader = try MP4Reader(try MP4File(readingAtPath: path))
        } catch {
            #expect(!clean, "\(name): we refuse (\(error)) what ffprobe reads")
            return
        }
        guard let track = reader.tracks.first(where: { $0.handlerType == "vide" }) else {
            #expect(!clean, "\(name): no video track where ffprobe finds one")
            return
        }
        if clean {
            let problems = try FFmpegComparison.read(path) { _ in track }
            #expect(problems.isEmpty, "\(name): \(problems.joined(separator: "\n"))")
        } else {
            // FFmpeg finds the file damaged (samples past its end, bad NAL lengths): ours says so
            // with a typed error or reads what is there, and never traps.
            var it = reader.samples(of: track)
            while let info = try? it.next() { _ = try? reader.sample(info) }
        }
    }
}
