import CommandLineSupport
import FLV
import Foundation
import H264
import MediaSupport
import H264Video
import MediaSupport
import RTMP
import X264

/// `h264 encode`: frames in (Y4M, raw, or a test pattern), H.264 out (Annex-B or AVCC).
enum EncodeCommand: CLICommand {
    static let name = "encode"
    static let finishesOnInterruption = true
    static let summary = "encode Y4M, raw frames or a test pattern to H.264 with libx264"
    static let usage = """
    usage: h264 encode [INPUT|-] -o OUT [options]

    INPUT is a .y4m file or - (Y4M on stdin). Without INPUT the built-in test pattern is
    encoded (moving colour bars with a frame counter; 1280x720, 30 fps, 300 frames).
    OUT is any path (/dev/null too) or - (stdout). The format comes from OUT's extension:
    .avcc gets AVCC samples (length-prefixed NAL units, SPS/PPS out of band) and the avcC
    record in OUT-config (e.g. out.avcc-config; --avcc-config to choose); .flv gets an FLV
    file (onMetaData, AVC sequence header, one tag per frame with composition times for
    B-frames, end of sequence); .mp4 gets an MP4 file written as the frames come,
    fragmented by default (a fragment per second); anything else (.h264, .264, -, /dev/null)
    gets Annex-B. A file is written under a temporary name (.NAME.partial-PID, next to it)
    and renamed when finished; after an error the frames encoded before it stay there (a
    fragmented MP4 killed outright is playable up to its last fragment). Ctrl-C (SIGINT) or
    SIGTERM stops the input: the frames read are encoded, the output finished (exit 0).

    input:
      --raw WxH             INPUT is headerless raw frames of this size
      --pix-fmt F           raw pixel format: bgra, argb, nv12, i420 (default i420)
      --fps R               frame rate of raw input and the test pattern (default 30; 29.97 ok)
      --size WxH            test pattern size (default 1280x720)
      --noise               test pattern of white noise instead of colour bars
      --frames N            stop after N frames (test pattern default 300)
    rate (a rate is kbit/s like x264's: 1500; or with a unit: 1500k, 1.5M, 800000bps):
      --bitrate R           average bitrate, not a limit (default 2M): x264's --bitrate
      --cbr                 constant bitrate at --bitrate (NAL HRD and filler data)
      --vbv-maxrate R       variable bitrate: VBV peak rate (x264's --vbv-maxrate)
      --vbv-bufsize B       VBV buffer, kbit like x264 (default 2.5 s of the rate)
      --vbv-init F          initial VBV fill 0...1 (default 0.9)
      --max-rate R          hard limit: no window of --max-rate-window S seconds (default 1)
                            carries more than R times S bits
      --crf Q               constant quality 0...51 instead of a bitrate
      --qp Q                constant QP 0...51 instead of a bitrate
      --quality Q           VideoToolbox's Quality 0...1 (a constant QP, 0.5 -> 26)
      --qpmin N, --qpmax N  QP bounds for every frame
      --change-bitrate F:R[,F:R...]  change the bitrate before frame F (live rate changes)
    coding:
      --profile P           baseline, main, high (default), high10, high422, high444
      --level L             auto (default), or 3.1, 4, 41, ...
      --preset P            ultrafast ... placebo (default medium)
      --tune T              film, animation, grain, stillimage, psnr, ssim, fastdecode, zerolatency
      --keyint N            at most N frames between keyframes
      --keyint-seconds S    at most S seconds between keyframes
      --bframes N           at most N consecutive B-frames; 0 disables frame reordering
      --ref N               at most N reference frames (max_num_ref_frames)
      --no-cabac, --cabac   CAVLC or CABAC entropy coding (default: the preset's)
      --open-gop            keyframes after the first as I pictures with recovery points
      --intra-only          every frame an IDR picture
      --max-delay N         the encoder holds at most N frames (lookahead, B-frames, threads)
      --rc-lookahead N      frames of rate-control lookahead
      --realtime            low latency (zerolatency)
      --force-keyframes L   IDR pictures exactly at these frame numbers, e.g. 0,90,180
      --slice-max-size N    at most N bytes per slice
      --threads N           encoder threads (default: x264 chooses)
    video usability information:
      --sar W:H             sample aspect ratio
      --colorprim C, --transfer T, --colormatrix M   x264's names (bt709, bt2020, smpte2084,
                            arib-std-b67, bt2020nc, ...) or numbers
      --range tv|pc         limited or full range
    output:
      --format F            annexb, avcc, flv or mp4, whatever OUT is called
      --mp4-layout L        MP4: fragmented (default), fast-start or media-first (moov
                            written at the end: nothing playable before it is)
      --length-size N       AVCC: NAL unit length size 1, 2 or 4 (default 4)
      --avcc-config FILE    AVCC: where the avcC record goes (default OUT-config; needed
                            when OUT is - or not a regular file)
      --rtmp URL            publish live to rtmp://host[:port]/app/stream (with or without -o);
                            frames go out as they are encoded, paced by the source
      --rtmp-queue N        frames the RTMP sender may hold (default 60); when full, the
                            encoder waits up to 5 s, then frames are dropped until a keyframe
      --rtmp-reconnect      reconnect after the connection is lost (backoff 0.5 s to 10 s, for
                            up to 60 s; frames kept meanwhile, whole GOPs dropped past 10 s or
                            8 MiB); each loss and reconnection is noted on stderr

    A progress line is shown when stderr is a terminal; a summary (frames, keyframes,
    average bitrate, speed, profile and level) is printed on stderr at the end.
    """

    static func run(_ args: inout Arguments) throws {
        let out = try args.option("-o") ?? args.option("--output")
        let rtmp = try args.option("--rtmp")
        let lengthSize = try args.intOption("--length-size").map { n throws(H264Error) in try AVCC.LengthSize(byteCount: n) }
        let configPath = try args.option("--avcc-config")
        let formatName = try args.option("--format")
        let rtmpQueue = try args.intOption("--rtmp-queue") ?? 60
        let rtmpReconnect = args.flag("--rtmp-reconnect")
        let mp4Layout = try MP4Conversion.layout(try args.option("--mp4-layout"), default: .fragmented())
        guard out != nil || rtmp != nil else { throw CLIError("encode needs -o OUT or --rtmp URL") }
        let outputFormat = try formatName.map { name in
            guard let f = EncodeOutputs.Format(rawValue: name) else { throw CLIError("--format must be annexb, avcc, flv or mp4") }
            return f
        } ?? out.map(EncodeOutputs.Format.init(path:)) ?? .annexB
        guard rtmpQueue > 0 else { throw CLIError("--rtmp-queue must be positive") }
        let raw = try args.option("--raw")
        let pixFmt = try args.option("--pix-fmt")
        let fpsText = try args.option("--fps")
        let sizeText = try args.option("--size")
        let noise = args.flag("--noise")
        let frameLimit = try args.intOption("--frames")
        let forced = try args.option("--force-keyframes")
        let settings = try EncodeSettings(&args)
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
        var y4mHeader: Y4MHeader?
        // A source read from a pipe ends by itself at an interruption (its read gives up, and
        // the frames it holds are encoded); any other is stopped by the encoding loop.
        var sourceEndsAtInterruption = false
        if let input = positionals.first {
            let file = try Input.open(input)
            let mayBlock = !file.isRegularFile
            sourceEndsAtInterruption = mayBlock
            let read: @Sendable () throws -> [UInt8]? = { try readChunk(file, 4 << 20, mayBlock: mayBlock) }
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
                y4mHeader = header
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

        var config = X264Encoder.Options(width: width, height: height)
        config.pixelFormat = format
        if let h = y4mHeader {  // aspect, field order and range from the Y4M header, as the x264 CLI takes them
            if h.pixelAspect.numerator > 0, h.pixelAspect.denominator > 0 {
                config.pixelAspectRatio = (h.pixelAspect.numerator, h.pixelAspect.denominator)
            }
            if h.interlacing == .topFieldFirst { config.fieldOrder = .topFieldFirst }
            if h.interlacing == .bottomFieldFirst { config.fieldOrder = .bottomFieldFirst }
            if h.colorRange == .full { config.colorDescription = ColorDescription(fullRange: true) }
        }
        config.expectedFrameRate = rate
        // An Annex-B file keeps x264's in-band headers (its CLI's --repeat-headers default: the
        // same bytes as x264's); the library's default is out of band, as VideoToolbox.
        config.repeatParameterSets = out != nil && outputFormat == .annexB
        try settings.apply(to: &config)

        let encoder = try X264Encoder(options: config)
        let metadata = FLVMetadata(width: width, height: height, frameRate: rate, encoder: "swift-h264")
        var outputs: [any EncodeOutput] = []
        if let out {
            outputs.append(try EncodeOutputs.open(out, format: outputFormat, encoder: encoder, metadata: metadata,
                                                  configurationPath: configPath, lengthSize: lengthSize ?? .four,
                                                  mp4Layout: mp4Layout))
        }
        if let rtmp {
            let options = RTMPPublisher.Options(queueCapacity: rtmpQueue, overflowPolicy: .block(maximumWait: .seconds(5)),
                                                reconnection: rtmpReconnect ? RTMPPublisher.Reconnection() : nil)
            outputs.append(try RTMPEncodeOutput(url: rtmp, encoder: encoder, metadata: metadata, options: options))
        }
        var stats = Stats(frameRate: rate, expected: frameLimit ?? (positionals.isEmpty ? 300 : nil))
        let interactive = isatty(2) != 0
        let started = ContinuousClock.now
        var index = 0

        func write(_ units: [EncodedFrame]) throws {
            for au in units {
                for output in outputs { try output.write(au) }
                stats.add(au)
            }
            if interactive { Output.progress(stats.progressLine(elapsed: ContinuousClock.now - started)) }
        }

        // Frames are read and parsed on a second thread, ahead of the encoder (as the x264 CLI
        // does), so input parsing overlaps encoding: at most 4 frames wait, and the reader
        // waits for room.
        let pipe = BoundedQueue<VideoFrame>(capacity: 4, overflow: .block)
        let producerSource = source
        do {
            try BlockingWorker.detach {
                do {
                    try producerSource.start { frame in
                        if pipe.push(frame) == .closed { producerSource.stop() }
                    }
                    pipe.close()
                } catch {
                    pipe.close(error)
                }
            }
        } catch {
            throw CLIError("cannot start the thread that reads the input: \(error)")
        }
        defer { pipe.cancel() }
        var changes = settings.bitrateChanges[...]
        /// The next frame; nil at the end of the input or at an interruption (SIGINT, SIGTERM),
        /// after which what the reader throws is the cut input's.
        func nextFrame() throws -> VideoFrame? {
            if !sourceEndsAtInterruption && Interruption.isRequested { return nil }
            switch pipe.pop() {
            case .element(let frame): return frame
            case .ended(let error?) where !Interruption.isRequested: throw error
            case .ended, .cancelled, .timedOut: return nil
            }
        }
        do {
            while frameLimit.map({ index < $0 }) ?? true, let frame = try nextFrame() {
                while let change = changes.first, change.frame <= index {
                    try encoder.setAverageBitrate(change.bitsPerSecond)
                    changes.removeFirst()
                }
                let options = FrameEncodeOptions(forceKeyframe: forcedFrames.contains(index))
                try write(try encoder.encode(frame, options: options))
                index += 1
                stats.submitted = index
            }
            pipe.cancel()
            // Interrupted or not, the frames given are encoded and the outputs finished.
            try write(try encoder.flush())
            for output in outputs { try output.close() }
        } catch {
            pipe.cancel()
            if interactive { Output.progress(nil) }
            for output in outputs {
                guard let kept = output.closeKeepingPartial() else { continue }
                Output.error("partial output kept: the \(stats.frames) frames encoded before the error are in '\(kept)'")
            }
            throw error
        }
        if interactive { Output.progress(nil) }
        Output.note(stats.summary(elapsed: ContinuousClock.now - started) + ", " + describe(encoder.activeSettings))
    }

    /// Reads up to `size` bytes straight into a new array (one copy from the kernel); nil at
    /// the end of the input.
    /// A read from a pipe or terminal (`mayBlock`) gives up at an interruption (SIGINT,
    /// SIGTERM) with what it has.
    static func readChunk(_ file: SystemFile, _ size: Int, mayBlock: Bool) throws(CLIError) -> [UInt8]? {
        var failed: CLIError?
        let chunk = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            do throws(FileError) {
                count = try Interruption.fill(file, UnsafeMutableRawBufferPointer(buffer), mayBlock: mayBlock).count
            } catch {
                count = 0
                failed = CLIError(error)
            }
        }
        if let failed { throw failed }
        return chunk.isEmpty ? nil : chunk
    }

    /// The profile and level x264 chose, for the summary line.
    static func describe(_ settings: X264Encoder.ActiveSettings) -> String {
        let profile = settings.profile.map(\.rawValue) ?? "profile_idc \(settings.profileIDC)"
        return "\(profile)@\(Double(settings.levelIDC) / 10)"
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
        if au.isSyncSample { keyframes += 1 }
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
        return "encoded \(frames) frame\(frames == 1 ? "" : "s"), \(keyframes) keyframe\(keyframes == 1 ? "" : "s"), \(String(format: "%.1f", kbps)) kb/s, "
            + "\(String(format: "%.1f", fps)) fps (\(String(format: "%.2f", fps / frameRate))x real time)"
    }
}

extension Output {
    /// Rewrites the progress line on stderr; nil clears it.
    static func progress(_ line: String?) {
        let text = line.map { "\r\($0)\u{1B}[K" } ?? "\r\u{1B}[K"
        writeStandardError(text)
    }

    /// One line on stderr without the `h264:` prefix.
    static func note(_ line: String) {
        writeStandardError(line + "\n")
    }
}
