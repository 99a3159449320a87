import Foundation
import H264
import H264Fixtures
import MP4
import MPEGTS
import TestSupport
import Testing

/// HLS with MPEG-TS segments: the same cutting rules as fMP4, played by FFmpeg and GStreamer.
@Suite struct HLSTSSegmentWriterTests {
    /// A stream of `copies` copies of a fixture, timed at 25 fps.
    static func units(_ fixture: Fixture, copies: Int) -> [AccessUnit] {
        var timing = TimestampOptions(frameRate: (25, 1))
        timing.overridesStreamTiming = true
        let stream = (0..<copies).flatMap { _ in fixture.bytes() }
        return AccessUnits.assemble(annexB: stream[...], timing: timing).accessUnits.filter { !$0.flags.hasNoPicture }
    }

    /// Segments start at every IDR once the target is reached, each one's EXTINF is its
    /// duration, the playlist is version 3 without a map, and FFmpeg decodes every picture.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"))
    func segmentsAtIDRsPlayInFFmpeg() throws {
        let units = Self.units(.baselineCAVLC, copies: 6)  // an IDR every 8 pictures (0.32 s)
        let dir = try Support.temporaryDirectory()
        let hls = try HLSTSSegmentWriter(directory: dir, options: .init(targetDuration: .milliseconds(600)))
        for au in units { try hls.append(au) }
        try hls.finish()
        #expect(hls.segmentCount == 3)
        let durations = hls.playlist.entries.compactMap { if case .segment(_, let d) = $0 { d } else { nil } }
        #expect(durations == [57_600, 57_600, 57_600])
        let text = try String(contentsOfFile: dir + "/index.m3u8", encoding: .utf8)
        #expect(text.hasPrefix("#EXTM3U\n#EXT-X-VERSION:3\n") && text.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
        let decode = try FFmpeg.ffmpeg(["-v", "error", "-i", dir + "/index.m3u8", "-f", "framemd5", "-"])
        #expect(decode.succeeded && decode.stderr.isEmpty, "\(decode.stderr)")
        #expect(FFmpeg.frameMD5s(output: decode.output).count == units.count)
        // Each segment alone decodes from its first picture.
        for n in 1...3 {
            let alone = try FFmpeg.decode(dir + "/segment-0000\(n).ts")
            #expect(alone.succeeded && alone.stderr.isEmpty, "segment \(n): \(alone.stderr)")
        }
    }

    /// Access units before the first IDR are dropped; a live window keeps three segments.
    @Test func leadingPicturesAndWindow() throws {
        let units = Self.units(.baselineCAVLC, copies: 8)
        let dir = try Support.temporaryDirectory()
        let hls = try HLSTSSegmentWriter(directory: dir, options: .init(targetDuration: .milliseconds(300)), window: 3)
        let firstIDR = try #require(units.dropFirst(3).firstIndex { $0.isSyncSample })
        for au in units.dropFirst(3) { try hls.append(au) }
        try hls.finish()
        #expect(hls.droppedLeadingSampleCount == firstIDR - 3 && firstIDR > 3)
        #expect(hls.playlist.mediaSequence == Int(hls.segmentCount) - 3)
        #expect(!FileManager.default.fileExists(atPath: dir + "/segment-00001.ts"))
        #expect(FileManager.default.fileExists(atPath: dir + "/segment-0000\(hls.segmentCount).ts"))
    }

    /// GStreamer's HLS demuxer plays the playlist to its end.
    @Test(.enabled(if: Support.gstLaunch(with: ["hlsdemux", "tsdemux", "h264parse", "avdec_h264"]) != nil,
                   "needs gst-launch-1.0 with hlsdemux, tsdemux, h264parse and avdec_h264"))
    func gstreamerPlaysThePlaylist() throws {
        let units = Self.units(.mainCABACBFrames, copies: 3)
        let dir = try Support.temporaryDirectory()
        let hls = try HLSTSSegmentWriter(directory: dir, options: .init(targetDuration: .milliseconds(300)))
        for au in units { try hls.append(au) }
        try hls.finish()
        let launch = try #require(Support.gstLaunch(with: ["hlsdemux", "tsdemux", "h264parse", "avdec_h264"]))
        let r = try Support.run(launch, ["-q", "filesrc", "location=\(dir)/index.m3u8", "!", "hlsdemux", "!", "tsdemux", "!",
                                         "h264parse", "!", "avdec_h264", "!", "fakesink"], timeout: 60)
        #expect(r.succeeded, "\(r.stderr)")
    }
}
