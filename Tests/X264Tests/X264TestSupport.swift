import Foundation
import H264
import H264Video
import X264
import TestSupport

/// Encoder configurations and frames for the X264 tests.
enum X264Support {
    static func config(_ w: Int = 160, _ h: Int = 96, _ edit: (inout X264Encoder.Options) -> Void = { _ in }) -> X264Encoder.Options {
        var c = X264Encoder.Options(width: w, height: h)
        c.preset = .veryfast
        c.threads = 1
        c.rateControl = .averageBitrate(300_000)
        edit(&c)
        return c
    }

    /// Encodes `count` test-pattern frames, forcing keyframes at `forced`; all output in decoding
    /// order. With `inBandParameterSets` (for the tests that read the bitstream back), each IDR
    /// access unit gets the encoder's SPS and PPS in front, as its Annex-B rendering has them.
    static func encode(_ encoder: X264Encoder, count: Int, pattern: TestPatternSource.Pattern = .colorBars,
                       forced: Set<Int> = [], orientation: Orientation? = nil,
                       inBandParameterSets: Bool = true) throws -> [EncodedFrame] {
        let out = try encodeOutOfBand(encoder, count: count, pattern: pattern, forced: forced, orientation: orientation)
        guard inBandParameterSets else { return out }
        return try out.map { f in
            EncodedFrame(nalUnits: try AnnexB.split(f.annexBSample(parameterSets: encoder.parameterSets)),
                         pts: f.pts, dts: f.dts, timescale: f.timescale)
        }
    }

    /// What FFmpeg makes of an Annex-B stream: its decoder's errors, the frames ffprobe counts
    /// and how many of them it calls key frames, and ffprobe's per-frame `key_frame` lines
    /// with the `side_data` entries asked for (needs ffmpeg and ffprobe).
    static func ffmpegView(_ stream: [UInt8], sideData: String? = nil) throws
        -> (errors: String, frameCount: Int?, keyFrames: Int, frames: String) {
        let path = try Support.temporaryFile(stream, name: "x264-out.h264")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let decode = try FFmpeg.decode(path)
        let probe = try Support.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        let entries = "frame=key_frame" + (sideData.map { ":side_data=\($0)" } ?? "")
        let frames = try Support.run("ffprobe", ["-v", "error", "-show_frames", "-show_entries", entries, "-of", "csv=p=0", path])
        let keys = frames.output.split(separator: "\n").filter { $0.hasPrefix("1") }.count
        return (decode.stderr, Int(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)), keys, frames.output)
    }

    private static func encodeOutOfBand(_ encoder: X264Encoder, count: Int, pattern: TestPatternSource.Pattern,
                                        forced: Set<Int>, orientation: Orientation?) throws -> [EncodedFrame] {
        let c = encoder.options
        let source = try TestPatternSource(width: c.width, height: c.height, frameCount: count, pattern: pattern)
        var out: [EncodedFrame] = []
        for i in 0..<count {
            var f = try source.makeFrame(i)
            if c.pixelFormat != .i420 {  // other layouts: a flat grey frame of the right format
                f = try VideoFrame(width: c.width, height: c.height, format: c.pixelFormat, pts: f.pts, timescale: f.timescale)
            }
            f.orientation = orientation
            out += try encoder.encode(f, options: FrameEncodeOptions(forceKeyframe: forced.contains(i)))
        }
        return out + (try encoder.flush())
    }

}
