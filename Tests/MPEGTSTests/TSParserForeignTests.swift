import Foundation
import H264
import H264Fixtures
import MPEGTS
import TestSupport
import Testing

/// Transport streams written by FFmpeg's and GStreamer's muxers, read back by ``TSParser`` to
/// the access units of the Annex-B source.
@Suite struct TSParserForeignTests {
    static let fixtures: [Fixture] = [.mainCABACBFrames, .paffPB, .high422_10, .resolutionChange, .baselineCAVLC]

    /// FFmpeg's muxer: plain, M2TS (192-byte packets), and two programs carrying the same
    /// stream (each program chosen alone, and both followed).
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"), arguments: fixtures)
    func ffmpegMuxer(_ fixture: Fixture) throws {
        let expected = TSTestSupport.sourcePayloads(fixture.bytes())
        let dir = try Support.temporaryDirectory()
        // Through MP4 first: FFmpeg's TS muxer wants times on every packet, which its raw
        // H.264 reader leaves out for B-frames.
        let mp4 = dir + "/source.mp4"
        try FFmpeg.ffmpeg(["-v", "error", "-f", "h264", "-r", "25", "-i", fixture.url.path, "-c", "copy", "-y", mp4]).checked("ffmpeg mp4")
        let input = ["-i", mp4]
        for (name, options) in [("plain", [String]()), ("m2ts", ["-mpegts_m2ts_mode", "1"])] {
            let out = dir + "/\(name).ts"
            try FFmpeg.ffmpeg(["-v", "error"] + input + ["-c", "copy"] + options + ["-f", "mpegts", "-y", out]).checked("ffmpeg \(name)")
            let (events, parser) = TSTestSupport.demux(Support.readFile(out), chunk: 1000)
            let units = TSTestSupport.accessUnits(events)
            #expect(units.map { TSTestSupport.payload($0.nalUnits) } == expected, "\(name)")
            #expect(parser.packetSize == (name == "m2ts" ? 192 : 188))
            #expect(TSTestSupport.continuityErrors(events) == 0)
            let dts = units.compactMap { $0.timestamps?.dts }
            #expect(dts.count == units.count && zip(dts, dts.dropFirst()).allSatisfy { $0.0 < $0.1 })
        }
        let two = dir + "/programs.ts"
        try FFmpeg.ffmpeg(["-v", "error"] + input + ["-map", "0:v", "-map", "0:v", "-c", "copy",
                          "-program", "program_num=5:st=0", "-program", "program_num=9:st=1", "-f", "mpegts", "-y", two])
            .checked("ffmpeg two programs")
        let bytes = Support.readFile(two)
        for (choice, count) in [(TSParser.Options.Programs.number(9), 1), (.first, 1), (.all, 2)] {
            let (events, parser) = TSTestSupport.demux(bytes, chunk: 777, options: .init(programs: choice))
            let units = TSTestSupport.accessUnits(events)
            #expect(Set(units.map(\.pid)).count == count, "\(choice)")
            for pid in Set(units.map(\.pid)) {
                #expect(units.filter { $0.pid == pid }.map { TSTestSupport.payload($0.nalUnits) } == expected, "\(choice)")
            }
            if case .number(let n) = choice { #expect(units.allSatisfy { $0.programNumber == n } && parser.programMaps.keys.sorted() == [n]) }
        }
    }

    /// GStreamer's `mpegtsmux`.
    @Test(.enabled(if: Support.gstLaunch(with: ["h264parse", "mpegtsmux"]) != nil, "needs gst-launch-1.0 with h264parse and mpegtsmux"),
          arguments: [Fixture.mainCABACBFrames, .high422_10, .baselineCAVLC])
    func gstreamerMuxer(_ fixture: Fixture) throws {
        let launch = try #require(Support.gstLaunch(with: ["h264parse", "mpegtsmux"]))
        let out = try Support.temporaryDirectory() + "/gst.ts"
        try Support.run(launch, ["-q", "filesrc", "location=\(fixture.url.path)", "!", "video/x-h264,framerate=25/1", "!", "h264parse", "!",
                                 "mpegtsmux", "!", "filesink", "location=\(out)"], timeout: 60).checked("mpegtsmux")
        let (events, _) = TSTestSupport.demux(Support.readFile(out), chunk: 4096)
        #expect(TSTestSupport.accessUnits(events).map { TSTestSupport.payload($0.nalUnits) } == TSTestSupport.sourcePayloads(fixture.bytes()))
        #expect(TSTestSupport.continuityErrors(events) == 0)
    }

    /// A stream whose times cross 2^33 (FFmpeg's `-output_ts_offset` 95442 s and its 1.4 s of delay:
    /// 2^33 ticks are 95,443.7 s) comes out with times that keep increasing past 2^33.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"))
    func timesCrossTheWrap() throws {
        let out = try Support.temporaryDirectory() + "/wrap.ts"
        var annexB: [UInt8] = []
        for _ in 0..<8 { annexB += Fixture.baselineCAVLC.bytes() }  // 64 frames: 2.56 s at 25 fps
        let input = try Support.temporaryFile(annexB, name: "wrap.264")
        try FFmpeg.ffmpeg(["-v", "error", "-f", "h264", "-r", "25", "-i", input, "-c", "copy", "-output_ts_offset", "95442",
                          "-f", "mpegts", "-y", out]).checked("ffmpeg wrap")
        let (events, parser) = TSTestSupport.demux(Support.readFile(out), chunk: 2048)
        let dts = TSTestSupport.accessUnits(events).compactMap { $0.timestamps?.dts }
        #expect(dts.count == 64)
        #expect(zip(dts, dts.dropFirst()).allSatisfy { $0.1 - $0.0 == 3600 })
        #expect(dts.first! < 1 << 33 && dts.last! > 1 << 33)
        #expect(parser.statistics.timelineResets == 0)
    }
}
