import Foundation
import H264
import H264Video
import X264

/// Encoder configurations and frames for the X264 tests.
enum X264Support {
    static func config(_ w: Int = 160, _ h: Int = 96, _ edit: (inout X264Encoder.Configuration) -> Void = { _ in }) -> X264Encoder.Configuration {
        var c = X264Encoder.Configuration(width: w, height: h)
        c.preset = .veryfast
        c.threads = 1
        c.rateControl = .averageBitrate(300_000)
        edit(&c)
        return c
    }

    /// Encodes `count` test-pattern frames, forcing keyframes at `forced`; all output in decoding order.
    static func encode(_ encoder: X264Encoder, count: Int, pattern: TestPatternSource.Pattern = .colorBars,
                       forced: Set<Int> = [], orientation: Orientation? = nil) throws -> [EncodedFrame] {
        let c = encoder.configuration
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
