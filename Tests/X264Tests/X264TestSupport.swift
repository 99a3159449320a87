import Foundation
import H264
import H264Video
import X264

enum Support {
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

    static let ffmpeg = executable("ffmpeg")
    static let ffprobe = executable("ffprobe")
    static let x264 = executable("x264")

    static func executable(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// Runs a program; returns stdout and stderr.
    static func run(_ path: String, _ args: [String]) throws -> (out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let o = Pipe(), e = Pipe()
        p.standardOutput = o
        p.standardError = e
        try p.run()
        let od = o.fileHandleForReading.readDataToEndOfFile()
        let ed = e.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (String(decoding: od, as: UTF8.self), String(decoding: ed, as: UTF8.self))
    }

    static func temporaryFile(_ bytes: [UInt8], suffix: String) throws -> String {
        let path = NSTemporaryDirectory() + "x264tests-\(UUID().uuidString)\(suffix)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
