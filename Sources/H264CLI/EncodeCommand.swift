import Foundation
import H264
import X264

/// `h264 encode`: frames in (Y4M, raw, or a test pattern), H.264 out (Annex-B or AVCC).
enum EncodeCommand: CLICommand {
    static let name = "encode"
    static let summary = "encode Y4M, raw frames or a test pattern to H.264 with libx264"
    static let usage = """
    usage: h264 encode [INPUT|-] -o OUT [options]

    INPUT is a .y4m file or - (Y4M on stdin). Without INPUT the built-in test pattern is
    encoded (moving colour bars with a frame counter; 1280x720, 30 fps, 300 frames).
    OUT ending in .h264 or .264 gets an Annex-B stream; .avcc gets AVCC samples (4-byte
    lengths, parameter sets in band); - writes Annex-B to stdout.

    input:
      --raw WxH             INPUT is headerless raw frames of this size
      --pix-fmt F           raw pixel format: bgra, argb, nv12, i420 (default i420)
      --fps R               frame rate of raw input and the test pattern (default 30; 29.97 ok)
      --size WxH            test pattern size (default 1280x720)
      --noise               test pattern of white noise instead of colour bars
      --frames N            stop after N frames (test pattern default 300)
    rate:
      --bitrate B           average bitrate, e.g. 512k, 2M (default 2M)
      --max-rate B          hard limit: at most B bits in any second (VBV)
      --crf Q               constant quality 0...51 instead of a bitrate
      --qp Q                constant QP 0...51 instead of a bitrate
    coding:
      --profile P           baseline, main, high (default), high10, high422, high444
      --level L             auto (default), or 3.1, 4, 41, ...
      --preset P            ultrafast ... placebo (default medium)
      --tune T              film, animation, grain, stillimage, psnr, ssim, fastdecode, zerolatency
      --keyint N            at most N frames between keyframes
      --keyint-seconds S    at most S seconds between keyframes
      --bframes N           0 disables B-frames (frame reordering); any other value allows them
      --realtime            low latency (zerolatency)
      --force-keyframes L   IDR pictures exactly at these frame numbers, e.g. 0,90,180
      --slice-max-size N    at most N bytes per slice
      --threads N           encoder threads (default: x264 chooses)

    A progress line is shown when stderr is a terminal; a summary (frames, keyframes,
    average bitrate, speed) is printed on stderr at the end.
    """

    static func run(_ args: inout Arguments) throws {
        guard let out = try args.option("-o") ?? args.option("--output") else { throw CLIError("encode needs -o OUT") }
        let raw = try args.option("--raw")
        let pixFmt = try args.option("--pix-fmt")
        let fpsText = try args.option("--fps")
        let sizeText = try args.option("--size")
        let noise = args.flag("--noise")
        let frameLimit = try args.intOption("--frames")
        let bitrate = try args.option("--bitrate").map(parseRate)
        let maxRate = try args.option("--max-rate").map(parseRate)
        let crf = try args.option("--crf")
        let qp = try args.intOption("--qp")
        let profile = try args.option("--profile")
        let level = try args.option("--level")
        let preset = try args.option("--preset")
        let tune = try args.option("--tune")
        let keyint = try args.intOption("--keyint")
        let keyintSeconds = try args.option("--keyint-seconds")
        let bframes = try args.intOption("--bframes")
        let realtime = args.flag("--realtime")
        let forced = try args.option("--force-keyframes")
        let sliceMax = try args.intOption("--slice-max-size")
        let threads = try args.intOption("--threads")
        let positionals = try args.positionals(max: 1)

        if let n = frameLimit, n < 0 { throw CLIError("--frames must not be negative") }
        let fps = try fpsText.map(parseFrameRate) ?? (30, 1)
        let forcedFrames = try Set((forced ?? "").split(separator: ",").map { s -> Int in
            guard let v = Int(s.trimmingCharacters(in: .whitespaces)), v >= 0 else { throw CLIError("--force-keyframes: '\(s)' is not a frame number") }
            return v
        })

        // The source and its frame geometry.
        let source: any FrameSource
        var width: Int, height: Int, format: PixelFormat, rate: Double
        if let input = positionals.first {
            let handle = try Input.open(input)
            let read: () throws(H264Error) -> [UInt8]? = { () throws(H264Error) -> [UInt8]? in
                do { return try Input.readChunk(handle, 1 << 20) } catch { throw H264Error(.io, "cannot read '\(input)': \(error)") }
            }
            if let raw {
                (width, height) = try parseSize(raw, "--raw")
                guard let f = PixelFormat(rawValue: pixFmt ?? "i420"), [.bgra, .argb, .nv12, .i420].contains(f) else {
                    throw CLIError("--pix-fmt must be bgra, argb, nv12 or i420")
                }
                format = f
                rate = Double(fps.0) / Double(fps.1)
                source = try RawFrameSource(width: width, height: height, format: f, frameRate: fps, read: read)
            } else {
                let y4m = Y4MSource(read: read)
                let header = try y4m.readHeader()
                (width, height, format) = (header.width, header.height, header.pixelFormat)
                let r = header.frameRate
                rate = fpsText != nil || r.numerator <= 0 || r.denominator <= 0 ? Double(fps.0) / Double(fps.1)
                    : Double(r.numerator) / Double(r.denominator)
                source = y4m
            }
        } else {
            (width, height) = try sizeText.map { try parseSize($0, "--size") } ?? (1280, 720)
            format = .i420
            rate = Double(fps.0) / Double(fps.1)
            source = try TestPatternSource(width: width, height: height, frameRate: fps, frameCount: frameLimit ?? 300,
                                           pattern: noise ? .noise : .colorBars)
        }

        var config = X264Encoder.Configuration(width: width, height: height)
        config.pixelFormat = format
        config.expectedFrameRate = rate
        if let crf {
            guard let q = Double(crf) else { throw CLIError("--crf: '\(crf)' is not a number") }
            config.rateControl = .constantQuality(q)
        } else if let qp {
            config.rateControl = .constantQP(qp)
        } else if let bitrate {
            config.rateControl = .averageBitrate(bitrate)
        }
        if let maxRate { config.dataRateLimits = [DataRateLimit(bytes: maxRate / 8, seconds: 1)] }
        if let profile {
            guard let p = X264Encoder.Profile(rawValue: profile) else { throw CLIError("unknown profile '\(profile)'") }
            config.profile = p
        }
        if let level {
            guard let l = X264Encoder.Level(level) else { throw CLIError("unknown level '\(level)'") }
            config.level = l
        }
        if let preset {
            guard let p = X264Encoder.Preset(rawValue: preset) else { throw CLIError("unknown preset '\(preset)'") }
            config.preset = p
        }
        if let tune {
            guard let t = X264Encoder.Tune(rawValue: tune) else { throw CLIError("unknown tune '\(tune)'") }
            config.tune = t
        }
        config.maxKeyframeInterval = keyint
        if let keyintSeconds {
            guard let s = Double(keyintSeconds) else { throw CLIError("--keyint-seconds: '\(keyintSeconds)' is not a number") }
            config.maxKeyframeIntervalDuration = s
        }
        if let bframes { config.allowFrameReordering = bframes > 0 }
        config.realTime = realtime
        config.maxSliceSize = sliceMax
        if let threads { config.threads = threads }

        let encoder = try X264Encoder(configuration: config)
        let avcc = out.hasSuffix(".avcc")
        guard avcc || out == "-" || out.hasSuffix(".h264") || out.hasSuffix(".264") else {
            throw CLIError("output must end in .h264, .264 or .avcc (or be -)")
        }
        let sink = try OutputSink(out)
        var stats = Stats(frameRate: rate, expected: frameLimit ?? (positionals.isEmpty ? 300 : nil))
        let interactive = isatty(2) != 0
        let started = ContinuousClock.now
        var index = 0

        func write(_ units: [EncodedFrame]) throws(H264Error) {
            for au in units {
                let bytes = avcc ? try au.avcc(lengthSize: 4) : au.annexB()
                try sink.write(bytes)
                stats.add(au)
            }
            if interactive { Output.progress(stats.progressLine(elapsed: ContinuousClock.now - started)) }
        }

        try source.start { (frame: VideoFrame) throws(H264Error) in
            if let limit = frameLimit, index >= limit { source.stop(); return }
            let options = FrameEncodeOptions(forceKeyframe: forcedFrames.contains(index))
            try write(try encoder.encode(frame, options: options))
            index += 1
            stats.submitted = index
        }
        try write(try encoder.flush())
        try sink.close()
        if interactive { Output.progress(nil) }
        Output.note(stats.summary(elapsed: ContinuousClock.now - started))
    }

    /// `512k`, `2M`, `1.5m`, `800000` -> bits per second.
    static func parseRate(_ s: String) throws -> Int {
        var text = s.lowercased()
        var scale = 1.0
        if text.hasSuffix("k") { scale = 1e3; text.removeLast() } else if text.hasSuffix("m") { scale = 1e6; text.removeLast() }
        guard let v = Double(text), v > 0, v * scale < 1e10 else { throw CLIError("'\(s)' is not a bitrate (e.g. 512k, 2M)") }
        return Int(v * scale)
    }

    static func parseSize(_ s: String, _ name: String) throws -> (Int, Int) {
        let parts = s.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            throw CLIError("\(name): '\(s)' is not WIDTHxHEIGHT")
        }
        return (w, h)
    }

    /// `30`, `25/1`, `29.97`, `30000/1001` -> numerator, denominator.
    static func parseFrameRate(_ s: String) throws -> (Int32, Int32) {
        let parts = s.split(separator: "/")
        if parts.count == 2, let n = Int32(parts[0]), let d = Int32(parts[1]), n > 0, d > 0 { return (n, d) }
        guard parts.count == 1, let v = Double(s), v > 0, v <= 1000 else { throw CLIError("--fps: '\(s)' is not a frame rate") }
        if v == v.rounded() { return (Int32(v), 1) }
        if abs(v * 1001 / 1000 - (v * 1001 / 1000).rounded()) < 0.001 { return (Int32((v * 1001 / 1000).rounded()) * 1000, 1001) }
        return (Int32((v * 1000).rounded()), 1000)
    }
}

/// Streams output bytes to a file or stdout.
private final class OutputSink {
    private let handle: FileHandle
    private let path: String

    init(_ path: String) throws {
        self.path = path
        if path == "-" {
            handle = FileHandle.standardOutput
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
                throw CLIError("cannot write '\(path)'")
            }
            handle = h
        }
    }

    func write(_ bytes: [UInt8]) throws(H264Error) {
        do { try handle.write(contentsOf: bytes) } catch { throw H264Error(.io, "cannot write '\(path)': \(error)") }
    }

    func close() throws {
        if path != "-" { try handle.close() }
    }
}

/// Counts for the progress line and the summary.
private struct Stats {
    let frameRate: Double
    let expected: Int?
    var submitted = 0
    var frames = 0
    var keyframes = 0
    var bytes = 0

    init(frameRate: Double, expected: Int?) {
        self.frameRate = frameRate
        self.expected = expected
    }

    mutating func add(_ au: EncodedFrame) {
        frames += 1
        if au.isKeyframe { keyframes += 1 }
        bytes += au.byteCount
    }

    var kbps: Double { frames > 0 ? Double(bytes) * 8 / (Double(frames) / frameRate) / 1000 : 0 }

    func progressLine(elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let fps = seconds > 0 ? Double(submitted) / seconds : 0
        var line = "frame \(submitted)  \(String(format: "%.1f", fps)) fps  \(String(format: "%.0f", kbps)) kb/s"
        if let expected, fps > 0, expected > submitted {
            line += "  ETA \(String(format: "%.0f", Double(expected - submitted) / fps)) s"
        }
        return line
    }

    func summary(elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let fps = seconds > 0 ? Double(frames) / seconds : 0
        return "encoded \(frames) frames, \(keyframes) keyframes, \(String(format: "%.1f", kbps)) kb/s, "
            + "\(String(format: "%.1f", fps)) fps (\(String(format: "%.2f", fps / frameRate))x real time)"
    }
}

extension Output {
    /// Rewrites the progress line on stderr; nil clears it.
    static func progress(_ line: String?) {
        let text = line.map { "\r\($0)\u{1B}[K" } ?? "\r\u{1B}[K"
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// One line on stderr without the `h264:` prefix.
    static func note(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
