import CommandLineSupport
import H264
import X264

/// The encoder options of `h264 encode`, in the x264 CLI's vocabulary where it has one, read
/// from the arguments and then applied to an `X264Encoder.Options`.
struct EncodeSettings {
    var bitrate: Int?
    var constantBitrate = false
    var vbvMaxRate: Int?
    var vbvBufferBits: Int?
    var vbvInit: Double?
    var maxRate: Int?
    var maxRateWindow: Double = 1
    var crf: Double?
    var qp: Int?
    var quality: Double?
    var qpMin: Int?
    var qpMax: Int?
    /// Bitrate changes: before frame `frame`, set the bitrate to `bitsPerSecond`.
    var bitrateChanges: [(frame: Int, bitsPerSecond: Int)] = []
    var profile: X264Encoder.Profile?
    var level: ProfileLevel.Level?
    var preset: X264Encoder.Preset?
    var tune: X264Encoder.Tune?
    var keyint: Int?
    var keyintSeconds: Double?
    var bframes: Int?
    var references: Int?
    var entropy: X264Encoder.EntropyMode?
    var openGOP = false
    var intraOnly = false
    var maxDelay: Int?
    var lookahead: Int?
    var realtime = false
    var sliceMaxSize: Int?
    var threads: Int?
    var sar: (Int, Int)?
    var colorPrimaries: Int?
    var transfer: Int?
    var colorMatrix: Int?
    var fullRange: Bool?

    /// Takes the encoder options out of `args`.
    init(_ args: inout Arguments) throws {
        bitrate = try args.option("--bitrate").map { try Self.parseRate($0, "--bitrate") }
        constantBitrate = args.flag("--cbr")
        vbvMaxRate = try args.option("--vbv-maxrate").map { try Self.parseRate($0, "--vbv-maxrate") }
        vbvBufferBits = try args.option("--vbv-bufsize").map { try Self.parseRate($0, "--vbv-bufsize") }
        vbvInit = try args.option("--vbv-init").map { try Self.number($0, "--vbv-init", 0...1) }
        maxRate = try args.option("--max-rate").map { try Self.parseRate($0, "--max-rate") }
        maxRateWindow = try args.option("--max-rate-window").map { try Self.number($0, "--max-rate-window", 0.001...3600) } ?? 1
        crf = try args.option("--crf").map { try Self.number($0, "--crf", 0...51) }
        qp = try args.intOption("--qp")
        quality = try args.option("--quality").map { try Self.number($0, "--quality", 0...1) }
        qpMin = try args.intOption("--qpmin")
        qpMax = try args.intOption("--qpmax")
        bitrateChanges = try args.option("--change-bitrate").map(Self.parseChanges) ?? []
        profile = try args.option("--profile").map { p in
            guard let v = X264Encoder.Profile(rawValue: p) else { throw CLIError("unknown profile '\(p)'") }
            return v
        }
        level = try args.option("--level").flatMap { l in  // auto: x264 chooses, the default
            guard l != "auto" else { return nil }
            guard let v = ProfileLevel.Level(l) else { throw CLIError("unknown level '\(l)'") }
            return v
        }
        preset = try args.option("--preset").map { p in
            guard let v = X264Encoder.Preset(rawValue: p) else { throw CLIError("unknown preset '\(p)'") }
            return v
        }
        tune = try args.option("--tune").map { t in
            guard let v = X264Encoder.Tune(rawValue: t) else { throw CLIError("unknown tune '\(t)'") }
            return v
        }
        keyint = try args.intOption("--keyint")
        keyintSeconds = try args.option("--keyint-seconds").map { try Self.number($0, "--keyint-seconds", 0.001...86400) }
        bframes = try args.intOption("--bframes")
        references = try args.intOption("--ref")
        if args.flag("--no-cabac") { entropy = .cavlc }
        if args.flag("--cabac") { entropy = .cabac }
        openGOP = args.flag("--open-gop")
        intraOnly = args.flag("--intra-only")
        maxDelay = try args.intOption("--max-delay")
        lookahead = try args.intOption("--rc-lookahead")
        realtime = args.flag("--realtime")
        sliceMaxSize = try args.intOption("--slice-max-size")
        threads = try args.intOption("--threads")
        sar = try args.option("--sar").map { s in
            let parts = s.split(separator: ":")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else { throw CLIError("--sar: '\(s)' is not W:H") }
            return (w, h)
        }
        colorPrimaries = try args.option("--colorprim").map { try Self.code($0, "--colorprim", Self.primaries) }
        transfer = try args.option("--transfer").map { try Self.code($0, "--transfer", Self.transfers) }
        colorMatrix = try args.option("--colormatrix").map { try Self.code($0, "--colormatrix", Self.matrices) }
        fullRange = try args.option("--range").map { r in
            guard r == "tv" || r == "pc" else { throw CLIError("--range must be tv or pc") }
            return r == "pc"
        }
    }

    /// Applies the options to `config` (after the input's own facts: size, rate, Y4M header).
    func apply(to config: inout X264Encoder.Options) throws {
        if [crf != nil, qp != nil, quality != nil].filter({ $0 }).count > 1 {
            throw CLIError("use one of --crf, --qp and --quality")
        }
        if let crf {
            config.rateControl = .constantQuality(crf)
        } else if let qp {
            config.rateControl = .constantQP(qp)
        } else if let quality {
            config.rateControl = .quality(quality)
        } else {
            let rate = bitrate ?? 2_000_000
            if constantBitrate {
                config.rateControl = .constantBitrate(rate)
                if let vbvBufferBits { config.vbvBufferDuration = Double(vbvBufferBits) / Double(rate) }
            } else if let vbvMaxRate {
                config.rateControl = .variableBitrate(rate)
                config.vbvMaxBitrate = vbvMaxRate
                config.vbvBufferDuration = vbvBufferBits.map { Double($0) / Double(max(vbvMaxRate, rate)) }
            } else {
                if vbvBufferBits != nil { throw CLIError("--vbv-bufsize needs --vbv-maxrate or --cbr") }
                config.rateControl = .averageBitrate(rate)
            }
        }
        if let vbvInit { config.vbvInitialDelayPercentage = vbvInit * 100 }
        if let maxRate { config.dataRateLimits = [DataRateLimit(bytes: Int(Double(maxRate) * maxRateWindow / 8), seconds: maxRateWindow)] }
        config.minFrameQP = qpMin
        config.maxFrameQP = qpMax
        if let profile { config.profile = profile }
        if let level { config.level = level }
        if let preset { config.preset = preset }
        config.tune = tune
        config.maxKeyframeInterval = keyint
        config.maxKeyframeIntervalDuration = keyintSeconds
        if let bframes {
            config.allowFrameReordering = bframes > 0
            config.maxConsecutiveBFrames = bframes
        }
        config.referenceFrameCount = references
        config.entropyMode = entropy
        config.allowOpenGOP = openGOP
        config.allowTemporalCompression = !intraOnly
        config.maxFrameDelayCount = maxDelay
        config.lookaheadFrameCount = lookahead
        config.realTime = realtime
        config.maxSliceSize = sliceMaxSize
        if let threads { config.threads = threads }
        if let sar { config.pixelAspectRatio = sar }
        if colorPrimaries != nil || transfer != nil || colorMatrix != nil || fullRange != nil {
            let base = config.color
            config.color = X264Encoder.ColorDescription(primaries: colorPrimaries ?? base?.primaries ?? 2,
                                                        transfer: transfer ?? base?.transfer ?? 2,
                                                        matrix: colorMatrix ?? base?.matrix ?? 2,
                                                        fullRange: fullRange ?? base?.fullRange ?? false)
        }
    }

    /// A rate in bits per second: `1500` is kbit/s, as the x264 CLI's `--bitrate`; `512k`,
    /// `2M`, `1.5m` and `800000bps` carry their unit.
    static func parseRate(_ s: String, _ name: String = "--bitrate") throws -> Int {
        var text = s.lowercased()
        var scale = 1e3
        if text.hasSuffix("bps") { scale = 1; text.removeLast(3) }
        else if text.hasSuffix("k") { scale = 1e3; text.removeLast() }
        else if text.hasSuffix("m") { scale = 1e6; text.removeLast() }
        guard let v = Double(text), v > 0, v * scale < 1e10 else {
            throw CLIError("\(name): '\(s)' is not a rate (1500 = 1500 kbit/s as in x264; or 512k, 2M, 800000bps)")
        }
        return Int((v * scale).rounded())
    }

    /// `FRAME:RATE[,FRAME:RATE...]`, frames increasing.
    static func parseChanges(_ s: String) throws -> [(frame: Int, bitsPerSecond: Int)] {
        guard !s.isEmpty else { throw CLIError("--change-bitrate: '' is not FRAME:RATE[,FRAME:RATE...]") }
        let changes = try s.split(separator: ",").map { item -> (frame: Int, bitsPerSecond: Int) in
            let parts = item.split(separator: ":")
            guard parts.count == 2, let frame = Int(parts[0]), frame >= 0 else {
                throw CLIError("--change-bitrate: '\(item)' is not FRAME:RATE")
            }
            return (frame, try parseRate(String(parts[1]), "--change-bitrate"))
        }
        guard zip(changes, changes.dropFirst()).allSatisfy({ $0.frame < $1.frame }) else {
            throw CLIError("--change-bitrate: frames must increase")
        }
        return changes
    }

    static func number(_ s: String, _ name: String, _ range: ClosedRange<Double>) throws -> Double {
        guard let v = Double(s), range.contains(v) else { throw CLIError("\(name): '\(s)' is not a number in \(range)") }
        return v
    }

    /// A VUI code by its x264 name or its number (0...255).
    static func code(_ s: String, _ name: String, _ names: [String: Int]) throws -> Int {
        if let v = names[s.lowercased()] { return v }
        guard let v = Int(s), (0...255).contains(v) else {
            throw CLIError("\(name): '\(s)' is not one of \(names.keys.sorted().joined(separator: ", ")) or 0...255")
        }
        return v
    }

    /// `colour_primaries` (Table E-3) by x264's names.
    static let primaries = ["bt709": 1, "undef": 2, "bt470m": 4, "bt470bg": 5, "smpte170m": 6, "smpte240m": 7,
                            "film": 8, "bt2020": 9, "smpte428": 10, "smpte431": 11, "smpte432": 12]
    /// `transfer_characteristics` (Table E-4) by x264's names.
    static let transfers = ["bt709": 1, "undef": 2, "bt470m": 4, "bt470bg": 5, "smpte170m": 6, "smpte240m": 7,
                            "linear": 8, "log100": 9, "log316": 10, "iec61966-2-4": 11, "bt1361e": 12,
                            "iec61966-2-1": 13, "bt2020-10": 14, "bt2020-12": 15, "smpte2084": 16, "smpte428": 17,
                            "arib-std-b67": 18]
    /// `matrix_coefficients` (Table E-5) by x264's names.
    static let matrices = ["gbr": 0, "bt709": 1, "undef": 2, "fcc": 4, "bt470bg": 5, "smpte170m": 6, "smpte240m": 7,
                           "ycgco": 8, "bt2020nc": 9, "bt2020c": 10, "smpte2085": 11, "chroma-derived-nc": 12,
                           "chroma-derived-c": 13, "ictcp": 14]
}
