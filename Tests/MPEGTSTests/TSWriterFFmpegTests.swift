import Foundation
import H264
import H264Fixtures
import MPEGTS
import TestSupport
import Testing

/// Our transport streams as FFmpeg and GStreamer read them.
@Suite struct TSWriterFFmpegTests {
    /// ffprobe finds every access unit, with the source's times (plus the muxer's offset) and
    /// the key flags its parser gives the Annex-B source; FFmpeg decodes the file with nothing
    /// on stderr.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe"), arguments: TSTestSupport.fixtures)
    func ffprobeReadsWhatWasWritten(_ fixture: Fixture) throws {
        let units = TSTestSupport.accessUnits(fixture.bytes())
        let (ts, offset) = try TSTestSupport.mux(units)
        #expect(ts.count % 188 == 0)
        let path = try TSTestSupport.temporaryFile(ts, name: "\(fixture.rawValue).ts")
        let source = try FFmpeg.packets(fixture.url.path).packets
        let probe = try FFmpeg.packets(path)
        #expect(probe.errors.isEmpty, "\(probe.errors)")
        try #require(probe.packets.count == units.count)
        try #require(source.count == units.count)
        for ((packet, au), raw) in zip(zip(probe.packets, units), source) {
            let t = try #require(au.timestamps?.rescaled(to: 90_000))
            #expect(packet.dts == t.dts + offset)
            #expect(packet.pts == t.pts + offset)
            #expect(packet.key == raw.key, "access unit \(au.index)")
        }
        let decode = try FFmpeg.decode(path)
        #expect(decode.succeeded && decode.stderr.isEmpty, "\(decode.stderr)")
    }

    /// GStreamer's demuxer, parser and decoder play the stream to its end.
    @Test(.enabled(if: Support.gstLaunch(with: ["tsdemux", "h264parse", "avdec_h264"]) != nil,
                   "needs gst-launch-1.0 with tsdemux, h264parse and avdec_h264"),
          arguments: [Fixture.mainCABACBFrames, .paffFields, .high422_10, .resolutionChange])
    func gstreamerPlaysToTheEnd(_ fixture: Fixture) throws {
        let units = TSTestSupport.accessUnits(fixture.bytes())
        let (ts, _) = try TSTestSupport.mux(units)
        let path = try TSTestSupport.temporaryFile(ts, name: "\(fixture.rawValue).ts")
        let launch = try #require(Support.gstLaunch(with: ["tsdemux", "h264parse", "avdec_h264"]))
        let r = try Support.run(launch, ["-q", "filesrc", "location=\(path)", "!", "tsdemux", "!", "h264parse", "!", "avdec_h264",
                                         "!", "fakesink"], timeout: 60)
        #expect(r.succeeded, "\(r.stderr)")
    }
}
