import CommandLineSupport
import Foundation
import Testing
@testable import H264CLI
import H264
import TestSupport

/// `h264 edit --insert-sei / --captions / --timecode / --recovery-point`, checked by FFmpeg:
/// captions arrive as "ATSC A53 Part 4 Closed Captions" side data on exactly the frames the
/// caption list names, time codes as "SMPTE 12-1 timecode" side data with the right values.
@Suite(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe (libx264) to make and read the streams"))
struct EditInsertSEITests {
    /// A 40-frame 25 fps libx264 stream, with the extra x264 parameters given.
    static func encode(_ dir: String, _ name: String, x264Params: String) throws -> String {
        let path = dir + "/" + name
        _ = try FFmpeg.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x96:rate=25", "-frames:v", "40",
                           "-c:v", "libx264", "-pix_fmt", "yuv420p", "-x264-params", x264Params, "-f", "h264", path]).checked("ffmpeg encode")
        return path
    }

    /// Per frame (output order): the side data types and the `timecode` tag.
    static func frames(_ path: String) throws -> [(sideData: [String], timecode: String?)] {
        let r = try FFmpeg.ffprobe(["-v", "error", "-select_streams", "v", "-show_entries",
                                    "frame=pict_type:frame_tags=timecode:frame_side_data=side_data_type", "-of", "json", path]).checked("ffprobe")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any]
        let frames = json?["frames"] as? [[String: Any]] ?? []
        return frames.map { f in
            let side = (f["side_data_list"] as? [[String: Any]] ?? []).compactMap { $0["side_data_type"] as? String }
            return (side, (f["tags"] as? [String: String])?["timecode"])
        }
    }

    static func edit(_ args: [String]) throws {
        var a = Arguments(args)
        try EditCommand.run(&a)
    }

    static let captionsSideData = "ATSC A53 Part 4 Closed Captions"

    /// B-frames (2, adaptive) and no pic_struct: captions on frames 0, 3, 4 (text over two
    /// frames) and 17, time codes on every frame after the SPS edit, user data on 10-12.
    @Test(arguments: ["bframes=2:keyint=12", "bframes=0:keyint=10", "bframes=3:b-pyramid=normal:keyint=20"])
    func captionsAndTimecodesSeenByFFmpeg(_ params: String) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.encode(dir, "in.h264", x264Params: params)
        let list = dir + "/captions.txt"
        try "# pop-on caption\n0: fc 94 20 fc 94 ae\n3: \"HI!\"\n17: fc 94 2f\n".write(toFile: list, atomically: true, encoding: .utf8)
        let output = dir + "/out.h264"
        try Self.edit([input, output, "--captions", list, "--timecode", "10:00:59:20",
                       "--insert-sei", "user-data-unregistered:a0b1c2d3-e4f5-0617-2839-4a5b6c7d8e9f:cafe@10-12"])
        #expect(try FFmpeg.decode(output).stderr.isEmpty)
        let frames = try Self.frames(output)
        #expect(frames.count == 40)
        let withCaptions = frames.enumerated().filter { $0.element.sideData.contains(Self.captionsSideData) }.map(\.offset)
        #expect(withCaptions == [0, 3, 4, 17])
        for (i, f) in frames.enumerated() {
            let expected = try SMPTETimecode(parsing: "10:00:59:20").advanced(by: i, framesPerSecond: 25).description
            #expect(f.timecode == expected, "frame \(i)")
            #expect(f.sideData.contains("SMPTE 12-1 timecode"), "frame \(i)")
        }
        // x264's settings message is on frame 0 only; ours on 10...12.
        let userData = frames.enumerated().filter { $0.element.sideData.contains("H.26[45] User Data Unregistered SEI message") }.map(\.offset)
        #expect(userData == [0, 10, 11, 12])
        // The input had none of it.
        let inputFrames = try Self.frames(input)
        #expect(inputFrames.count == 40 && inputFrames.allSatisfy { !$0.sideData.contains(Self.captionsSideData) && $0.timecode == nil })
    }

    /// NAL HRD without pic_struct: the SPS edit, and the stream's own pic_timing messages
    /// re-written with a pic_struct and merged with the time codes; FFmpeg decodes it cleanly
    /// and its trace of the new SEI NAL units is ours, element for element.
    @Test func timecodesOnAnHRDStream() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.encode(dir, "hrd.h264", x264Params: "bframes=2:nal-hrd=vbr:vbv-maxrate=400:vbv-bufsize=400:bitrate=300")
        let output = dir + "/out.h264"
        try Self.edit([input, output, "--timecode", "00:59:59:00@25", "--recovery-point", "2@5"])
        #expect(try FFmpeg.decode(output).stderr.isEmpty)
        let frames = try Self.frames(output)
        #expect(frames.map(\.timecode) == (0..<40).map { Optional(try! SMPTETimecode(parsing: "00:59:59:00").advanced(by: $0, framesPerSecond: 25).description) })

        let reference = try Self.expectSEITracesMatchFFmpeg(output)
        #expect(reference.joined().contains { $0.name == "recovery_frame_cnt" && $0.value == 2 })
        #expect(reference.joined().filter { $0.name == "n_frames" }.count == 40)

        // With the SPS edit and nothing inserted, x264's own pic_timing messages (delays only)
        // get a pic_struct: FFmpeg reads them the same way we do.
        let bytes = try Input.readAll(input)
        #expect(bytes.count > 0)
        let hadPicTiming = try AnnexB.split(bytes).filter { $0.type == .sei }.contains { unit in
            try SEI.parse(unit, context: EmptySyntaxContext(), options: .framingOnly).messages.contains { $0.payloadType == .picTiming }
        }
        #expect(hadPicTiming)
        var inserter = SEIInserter(options: .init(setsPicStructPresent: true)) { _ in [] }
        var out: [UInt8] = []
        try inserter.append(bytes[...], to: &out)
        try inserter.finish(to: &out)
        #expect(inserter.problemCount == 0 && out != bytes)
        let retimed = dir + "/retimed.h264"
        try Output.write(out, to: retimed)
        #expect(try FFmpeg.decode(retimed).stderr.isEmpty)
        let trace = try Self.expectSEITracesMatchFFmpeg(retimed)
        #expect(trace.joined().filter { $0.name == "pic_struct" }.count == 40)
    }

    /// Checks that FFmpeg's trace_headers of the SEI NAL units of `path` is ours, element for
    /// element; returns FFmpeg's.
    @discardableResult
    static func expectSEITracesMatchFFmpeg(_ path: String) throws -> [[FFmpeg.TraceElement]] {
        let units = try AnnexB.split(Input.readAll(path))
        let reference = try FFmpeg.traceHeaders(path).filter { $0.contains { $0.name == "nal_unit_type" && $0.value == 6 } }
        var store = ParameterSetStore()
        let ours = units.compactMap { nal -> [FFmpeg.TraceElement]? in
            let result = NALUnitTrace.trace(nal, store: &store)
            guard nal.type == .sei else { return nil }
            return result.elements.flatMap(\.expanded).map { FFmpeg.TraceElement(position: $0.bitPosition, name: $0.name, value: $0.value) }
        }
        #expect(ours.count == reference.count && !ours.isEmpty)
        #expect(ours == reference)
        return reference
    }

    @Test func badOptionsAreRefused() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.encode(dir, "in.h264", x264Params: "bframes=0")
        for args in [["--timecode", "25:00:00:00"], ["--timecode", "01:00:00:00@0"], ["--insert-sei", "user-data-unregistered:00:00"],
                     ["--captions", dir + "/missing.txt"], ["--recovery-point", "x"], ["--insert-sei", "user-data-registered:b5@1-0"]] {
            #expect(throws: (any Error).self, "\(args)") { try Self.edit([input, dir + "/out.h264"] + args) }
        }
    }
}
