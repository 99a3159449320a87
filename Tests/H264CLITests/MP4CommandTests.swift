import Foundation
import H264
import MP4
import Testing
import TestSupport

/// `h264 convert` to and from MP4, `h264 inspect` of an MP4 file, `h264 segment`, and
/// `h264 encode -o out.mp4`, including a recording killed with SIGKILL: the built tool, checked
/// with FFmpeg and the MP4 reader.
@Suite struct MP4CommandTests {
    static var ready: Bool { CLIRobustnessTests.binary != nil && FFmpeg.isPresent }
    static let streams = CLIRobustnessTests.packageRoot.appendingPathComponent("Fixtures/Streams").path

    static func h264(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try CLIRobustnessTests.run(args)
        #expect(!r.signalled)
        return (r.status, r.output, r.stderr)
    }

    /// The non-parameter-set NAL units of an Annex-B file.
    static func pictureUnits(_ path: String) throws -> [[UInt8]] {
        try AnnexB.split(Support.readFile(path)[...], leadingData: .skip)
            .filter { !($0.type == .sps || $0.type == .pps) }.map { Array($0.bytes) }
    }

    static func frames(_ path: String) throws -> (count: Int, errors: String) {
        let r = try FFmpeg.ffmpeg(["-v", "error", "-i", path, "-f", "framecrc", "-"])
        let lines = r.output.split(separator: "\n").filter { !$0.hasPrefix("#") }
        return (lines.count, r.stderr)
    }

    @Test(.enabled(if: ready, "needs the h264 executable and ffmpeg"),
          arguments: ["fast-start", "media-first", "fragmented"])
    func convertRoundTrip(_ layout: String) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = Self.streams + "/high-bpyramid.264"
        let mp4 = dir + "/out.mp4", back = dir + "/back.h264", flv = dir + "/back.flv"
        #expect(try Self.h264(["convert", source, mp4, "--mp4-layout", layout]).status == 0)
        let reader = try MP4Reader(try MP4File(readingAtPath: mp4))
        #expect(reader.isFragmented == (layout == "fragmented"))
        #expect(try Self.h264(["convert", mp4, back]).status == 0)
        #expect(try Self.pictureUnits(back) == Self.pictureUnits(source))
        #expect(try Self.h264(["convert", mp4, flv]).status == 0)
        let (sourceFrames, _) = try Self.frames(source)
        let decoded = try Self.frames(flv)
        #expect(decoded.count == sourceFrames && decoded.errors.isEmpty, "\(decoded.errors)")
        let decodedMP4 = try Self.frames(mp4)
        #expect(decodedMP4.count == sourceFrames && decodedMP4.errors.isEmpty, "\(decodedMP4.errors)")
    }

    @Test(.enabled(if: CLIRobustnessTests.binary != nil, "needs the h264 executable"))
    func convertErrors() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mp4 = dir + "/out.mp4"
        #expect(try Self.h264(["convert", Self.streams + "/aud.264", mp4]).status == 0)
        // An MP4 input goes to annexb or flv only; MP4 to stdout is refused.
        #expect(try Self.h264(["convert", mp4, dir + "/x.avcc", "--to", "avcc"]).status == 1)
        #expect(try Self.h264(["convert", Self.streams + "/aud.264", "-", "--to", "mp4"]).status == 1)
        #expect(try Self.h264(["convert", Self.streams + "/aud.264", mp4, "--mp4-layout", "sideways"]).status == 1)
        // OUT that is IN is refused either way, and the input is left as it was.
        let annexB = dir + "/in.264"
        try Data(Support.readFile(Self.streams + "/aud.264")).write(to: URL(fileURLWithPath: annexB))
        for (input, args) in [(mp4, ["convert", mp4, mp4, "--to", "annexb"]), (annexB, ["convert", annexB, annexB, "--to", "mp4"])] {
            let before = Support.readFile(input)
            let r = try Self.h264(args)
            #expect(r.status == 1 && r.stderr.contains("is the input"), "\(r.stderr)")
            #expect(Support.readFile(input) == before)
        }
        // A damaged MP4: one line, exit status 1.
        var bytes = Support.readFile(mp4)
        bytes.replaceSubrange(40..<44, with: [0, 0, 0, 3])  // mvhd's size below its header
        try Data(bytes).write(to: URL(fileURLWithPath: mp4))
        let r = try Self.h264(["convert", mp4, dir + "/x.h264"])
        #expect(r.status == 1 && r.stderr.hasPrefix("h264: invalidBox"), "\(r.stderr)")
    }

    @Test(.enabled(if: CLIRobustnessTests.binary != nil, "needs the h264 executable"))
    func inspectMP4() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mp4 = dir + "/out.mp4"
        #expect(try Self.h264(["convert", Self.streams + "/main-cabac-bframes.264", mp4]).status == 0)
        let text = try Self.h264(["inspect", mp4])
        #expect(text.status == 0)
        for word in ["moov", "avcC", "file type      isom", "fast start", "edit         segment_duration", "samples        10 (1 sync)"] {
            #expect(text.stdout.contains(word), "\(word)")
        }
        let json = try Self.h264(["inspect", mp4, "--json"])
        let lines = json.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("{\"track\":1,\"index\"") }.count == 10)
        #expect(lines.last?.hasPrefix("{\"summary\":{\"samples\":10,\"sync_samples\":1") == true)
        #expect(lines.contains { $0.contains("\"box\":\"moov\"") })
    }

    /// `h264 segment` of the corpus's test-25fps stream (a large reorder delay, 4 IDRs), or a
    /// fixture: FFmpeg plays the playlist with every frame and no error; each segment starts
    /// with a sync sample.
    @Test(.enabled(if: ready, "needs the h264 executable and ffmpeg"))
    func segmentPlaysThroughThePlaylist() throws {
        let corpus = Corpus.path("cros-codecs/test-25fps.h264")
        let source = FileManager.default.fileExists(atPath: corpus) ? corpus : Self.streams + "/baseline-cavlc.264"
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.h264(["segment", source, "-o", dir, "--duration", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let playlist = String(decoding: Support.readFile(dir + "/index.m3u8"), as: UTF8.self)
        #expect(playlist.contains("#EXT-X-VERSION:7") && playlist.contains("#EXT-X-MAP:URI=\"init.mp4\"")
                && playlist.contains("#EXT-X-TARGETDURATION:") && playlist.hasSuffix("#EXT-X-ENDLIST\n"))
        let (expected, _) = try Self.frames(source)
        let played = try Self.frames(dir + "/index.m3u8")
        #expect(played.count == expected)
        #expect(played.errors.isEmpty, "\(played.errors)")
        let names = playlist.split(separator: "\n").filter { $0.hasSuffix(".m4s") }
        #expect(!names.isEmpty)
        let initSegment = Support.readFile(dir + "/init.mp4")
        for name in names {
            let reader = try MP4Reader(initSegment + Support.readFile(dir + "/" + name))
            var samples = reader.samples(of: try #require(reader.videoTrack))
            let first = try #require(try samples.next())
            #expect(first.flags.isSync && first.flags.isKeyframe, "\(name)")
        }
    }

    /// `h264 encode -o out.mp4` finished normally: every frame, FFmpeg decodes it cleanly.
    @Test(.enabled(if: ready, "needs the h264 executable and ffmpeg"), arguments: ["fragmented", "fast-start"])
    func encodeToMP4(_ layout: String) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/enc.mp4"
        let r = try Self.h264(["encode", "-o", out, "--size", "160x96", "--frames", "40", "--preset", "ultrafast",
                               "--keyint", "10", "--mp4-layout", layout, "--threads", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let decoded = try Self.frames(out)
        #expect(decoded.count == 40 && decoded.errors.isEmpty, "\(decoded.errors)")
        let reader = try MP4Reader(try MP4File(readingAtPath: out))
        #expect(reader.isFragmented == (layout == "fragmented"))
        #expect(reader.videoTrack?.sampleCount == 40)
    }

    /// A fragmented recording killed with SIGKILL mid-stream: FFmpeg plays the file (under its
    /// temporary name: nothing has the output's name) up to its last complete fragment with no
    /// error, and our reader finds the same frames; a progressive one has no moov (not
    /// playable), as Docs/MP4.md says.
    @Test(.enabled(if: ready, "needs the h264 executable and ffmpeg"))
    func killedRecordingStaysPlayable() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for layout in ["fragmented", "media-first"] {
            let out = dir + "/rec-\(layout).mp4"
            let p = try Support.start(try #require(CLIRobustnessTests.binary),
                                      ["encode", "-o", out, "--size", "320x180", "--frames", "100000", "--preset", "ultrafast",
                                       "--mp4-layout", layout, "--threads", "1"])
            // Wait until a few fragments are on disk (at most 20 s), then kill.
            let partial = dir + "/.rec-\(layout).mp4.partial-\(p.processIdentifier)"
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let size = (try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? NSNumber)?.intValue ?? 0
                if size > 150_000 { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.5))
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            #expect(p.terminationReason == .uncaughtSignal)
            #expect(!FileManager.default.fileExists(atPath: out), "a killed recording has the output's name")
            if layout == "fragmented" {
                let reader = try MP4Reader(try MP4File(readingAtPath: partial))
                let count = try reader.sampleInfos(of: try #require(reader.videoTrack)).count
                let decoded = try Self.frames(partial)
                #expect(count > 30)
                #expect(decoded.count == count, "ffmpeg \(decoded.count) frames, our reader \(count)")
                #expect(decoded.errors.isEmpty, "\(decoded.errors)")
            } else {
                #expect(throws: MP4Error(.missingBox, "")) { _ = try MP4Reader(try MP4File(readingAtPath: partial)) }
            }
        }
    }
}
