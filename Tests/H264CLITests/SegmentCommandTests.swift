import Foundation
import H264
import H264Fixtures
import MP4
import Testing
import TestSupport

/// `h264 segment` on the streams a live packager meets: no IDR at all, keyframes with
/// timestamp jitter, a start point option, and the same presentation start in every MP4 layout.
@Suite struct SegmentCommandTests {
    static let binary = CLIRobustnessTests.binary != nil

    static func run(_ args: [String]) throws -> Support.ProcessResult {
        let r = try CLIRobustnessTests.run(args)
        #expect(!r.signalled)
        return r
    }

    /// A stream of pictures of `script` (build-stream's language), 25 fps, in a temporary file.
    static func stream(_ script: String, in dir: String) throws -> String {
        var options = StreamBuilder.SequenceOptions(width: 64, height: 48)
        options.frameRate = (25, 1)
        var builder = try StreamBuilder(options)
        try builder.append(script: script)
        let path = dir + "/in.264"
        try Data(builder.annexB()).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// No IDR picture anywhere: an error that says why and what to do, not a playlist claiming
    /// independent segments over a segment nobody can decode; `--start-at any` writes it, without
    /// the claim.
    @Test(.enabled(if: binary, "needs the h264 executable"))
    func aStreamWithoutIDRIsRefusedWithAReason() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.stream("I " + Array(repeating: "P", count: 29).joined(separator: " "), in: dir)
        let refused = try Self.run(["segment", input, "-o", dir + "/a"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no segment written") && refused.stderr.contains("--start-at random-access"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/a/index.m3u8"))
        let anywhere = try Self.run(["segment", input, "-o", dir + "/b", "--start-at", "any"])
        #expect(anywhere.status == 0)
        let playlist = try String(contentsOfFile: dir + "/b/index.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXTINF:1.200000,"))
        #expect(!playlist.contains("INDEPENDENT"))
        #expect(try Self.run(["segment", input, "-o", dir + "/c", "--start-at", "idr-ish"]).status == 1)
    }

    /// Leading pictures before the first IDR are skipped with a warning; a recovery point
    /// starts a segment only with `--start-at random-access`, and then the playlist does not
    /// claim independence.
    @Test(.enabled(if: binary, "needs the h264 executable"))
    func recoveryPointsAndLeadingPictures() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gop = Array(repeating: "P", count: 24).joined(separator: " ")
        let input = try Self.stream("P P I! \(gop) I~ \(gop) I~ \(gop)", in: dir)
        let strict = try Self.run(["segment", input, "-o", dir + "/a", "--duration", "1"])
        #expect(strict.status == 0)
        #expect(strict.stderr.contains("skipped 2 access units"))
        let a = try String(contentsOfFile: dir + "/a/index.m3u8", encoding: .utf8)
        #expect(a.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
        #expect(a.components(separatedBy: "#EXTINF").count - 1 == 1)
        let relaxed = try Self.run(["segment", input, "-o", dir + "/b", "--duration", "1", "--start-at", "random-access"])
        #expect(relaxed.status == 0)
        let b = try String(contentsOfFile: dir + "/b/index.m3u8", encoding: .utf8)
        #expect(!b.contains("INDEPENDENT"))
        #expect(b.components(separatedBy: "#EXTINF").count - 1 == 3)
    }

    /// An MP4 whose keyframes come two ticks (at 90 kHz) before each 2 s mark, as encoders'
    /// rounding leaves them: about as many segments as FFmpeg's HLS muxer cuts (not half as
    /// many, of 4 s), and EXT-X-TARGETDURATION 2.
    @Test(.enabled(if: binary && FFmpeg.isPresent, "needs the h264 executable and ffmpeg"))
    func jitteredKeyframesCutLikeFFmpeg() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gop = "I! " + Array(repeating: "P", count: 49).joined(separator: " ")
        let input = try Self.stream(Array(repeating: gop, count: 12).joined(separator: " "), in: dir)
        // Through the library's MP4 writer at 90 kHz, each keyframe two ticks early.
        let (units, _) = AccessUnits.assemble(annexB: Support.readFile(input)[...])
        var builder = MP4SampleBuilder(timescale: 90_000)
        let file = try MP4File(creatingAtPath: dir + "/jitter.mp4")
        let writer = try MP4Writer(file: file, options: .init(timescale: 90_000, layout: .fastStart))
        for (k, au) in units.enumerated() {
            var (description, sample) = try builder.sample(au)
            sample.decodeTime = Int64(k) * 3_600 - (k % 50 == 0 && k > 0 ? 2 : 0)
            sample.presentationTime = sample.decodeTime
            sample.duration = nil
            try writer.append(sample, description: description)
        }
        try writer.finish()
        file.close()
        let ours = try Self.run(["segment", dir + "/jitter.mp4", "-o", dir + "/ours", "--duration", "2"])
        #expect(ours.status == 0, "\(ours.stderr)")
        let playlist = try String(contentsOfFile: dir + "/ours/index.m3u8", encoding: .utf8)
        let count = playlist.components(separatedBy: "#EXTINF").count - 1
        #expect(playlist.contains("#EXT-X-TARGETDURATION:2\n"))
        try FileManager.default.createDirectory(atPath: dir + "/ff", withIntermediateDirectories: true)
        let ff = try FFmpeg.ffmpeg(["-v", "error", "-i", dir + "/jitter.mp4", "-c", "copy", "-f", "hls", "-hls_time", "2",
                                    "-hls_segment_type", "fmp4", "-hls_playlist_type", "vod", dir + "/ff/index.m3u8"])
        #expect(ff.succeeded, "\(ff.stderr)")
        let theirs = try String(contentsOfFile: dir + "/ff/index.m3u8", encoding: .utf8).components(separatedBy: "#EXTINF").count - 1
        #expect(abs(count - theirs) <= 1, "ours \(count), FFmpeg's \(theirs)")
        #expect(count >= 11)
    }

    /// B-frames: FFmpeg reports the same start time for the fast-start, media-first and
    /// fragmented layouts (the fragmented file carries an edit list, as the progressive ones do).
    @Test(.enabled(if: binary && FFmpeg.isPresent, "needs the h264 executable and ffprobe"))
    func everyLayoutStartsAtTheSameTime() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = CLIRobustnessTests.packageRoot.appendingPathComponent("Fixtures/Streams/high-bpyramid.264").path
        var starts: [String] = []
        for layout in ["fast-start", "media-first", "fragmented"] {
            let out = dir + "/\(layout).mp4"
            #expect(try Self.run(["convert", source, out, "--mp4-layout", layout]).status == 0)
            let probe = try FFmpeg.ffprobe(["-v", "error", "-show_entries", "stream=start_time", "-of", "csv=p=0", out])
            starts.append(probe.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(starts.count == 3 && Set(starts).count == 1, "\(starts)")
        #expect(starts.first == "0.000000")
    }
}

/// `h264 segment --format ts`: MPEG-TS segments and a version-3 playlist FFmpeg plays.
@Suite struct SegmentCommandTSTests {
    /// Four GOPs of 25 pictures at 25 fps, two-second segments: two segments of 2 s, FFmpeg
    /// decodes all 100 pictures from the playlist without a word on stderr.
    @Test(.enabled(if: SegmentCommandTests.binary && FFmpeg.isPresent, "needs the h264 executable and ffmpeg"))
    func tsSegmentsPlay() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gop = "I! " + Array(repeating: "P", count: 24).joined(separator: " ")
        let input = try SegmentCommandTests.stream(Array(repeating: gop, count: 4).joined(separator: " "), in: dir)
        let r = try SegmentCommandTests.run(["segment", input, "-o", dir + "/hls", "--format", "ts", "--duration", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let playlist = try String(contentsOfFile: dir + "/hls/index.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXT-X-VERSION:3") && !playlist.contains("EXT-X-MAP"))
        #expect(playlist.components(separatedBy: "#EXTINF:2.000000,").count - 1 == 2)
        #expect(FileManager.default.fileExists(atPath: dir + "/hls/segment-00002.ts"))
        let decode = try FFmpeg.ffmpeg(["-v", "error", "-i", dir + "/hls/index.m3u8", "-f", "framemd5", "-"])
        #expect(decode.succeeded && decode.stderr.isEmpty, "\(decode.stderr)")
        #expect(FFmpeg.frameMD5s(output: decode.output).count == 100)
        let wrong = try SegmentCommandTests.run(["segment", input, "-o", dir + "/x", "--format", "ts", "--sidx"])
        #expect(wrong.status != 0 && wrong.stderr.contains("--format fmp4"))
    }
}
