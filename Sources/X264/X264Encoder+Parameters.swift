internal import CX264
import H264
import H264Video

extension X264Encoder.Options {
    /// The frame rate as x264's numerator / denominator: NTSC rates (29.97...) as n*1000/1001,
    /// whole rates as n/1, anything else to a thousandth.
    var frameRateFraction: (num: UInt32, den: UInt32) {
        let r = expectedFrameRate
        if r == r.rounded() { return (UInt32(r), 1) }
        let ntsc = r * 1001 / 1000
        if abs(ntsc - ntsc.rounded()) < 0.001 { return (UInt32(ntsc.rounded()) * 1000, 1001) }
        return (UInt32((r * 1000).rounded()), 1000)
    }

    /// Whether the SPS keeps x264's VUI timing: when the frame rate was set, or when NAL HRD
    /// (a constant bitrate, `plan`) or picture timing SEI needs a clock tick.
    func writesTiming(_ plan: X264Encoder.RatePlan) -> Bool {
        explicitFrameRate != nil || plan.hardCBR || pictureTiming
    }

    /// The chroma format x264 encodes.
    var chromaFormat: ChromaFormat { pixelFormat.chromaFormat ?? .yuv420 }

    /// The colour conversion used for BGRA and ARGB frames.
    var rgbConversion: ColorConversion { (color ?? .bt601).conversion }

    /// Checks every setting that x264 would otherwise reject (printing to stderr) or accept wrongly.
    func validate() throws(X264Error) {
        func bad(_ reason: String) -> X264Error { X264Error.invalid(.invalidArgument, reason) }
        guard width > 0, height > 0 else { throw bad("size \(width)x\(height) must be positive") }
        guard width <= PixelFormat.maxDimension, height <= PixelFormat.maxDimension else {
            throw bad("size \(width)x\(height) is larger than \(PixelFormat.maxDimension)")
        }
        switch chromaFormat {
        case .yuv420:
            guard width % 2 == 0, height % 2 == 0 else { throw bad("4:2:0 needs an even width and height, not \(width)x\(height)") }
        case .yuv422:
            guard width % 2 == 0 else { throw bad("4:2:2 needs an even width, not \(width)") }
        case .yuv444, .monochrome: break  // no pixel format is monochrome
        }
        guard expectedFrameRate.isFinite, expectedFrameRate > 0, expectedFrameRate <= 1000 else {
            throw bad("expected frame rate \(expectedFrameRate) must be in (0, 1000]")
        }
        var lossless = false
        func checkBitrate(_ b: Int, _ name: String) throws(X264Error) {
            guard b >= 1000, b <= 2_000_000_000 else { throw bad("\(name) \(b) must be 1000...2e9 bits/s") }
        }
        switch rateControl {
        case .averageBitrate(let b): try checkBitrate(b, "average bitrate")
        case .constantBitrate(let b): try checkBitrate(b, "constant bitrate")
        case .variableBitrate(let b): try checkBitrate(b, "variable bitrate")
        case .constantQuality(let q):
            guard q.isFinite, q >= 0, q <= 51 else { throw bad("constant quality (CRF) \(q) must be 0...51") }
            lossless = q == 0
        case .constantQP(let q):
            guard q >= 0, q <= 51 else { throw bad("constant QP \(q) must be 0...51") }
            lossless = q == 0
            guard dataRateLimits.isEmpty else {
                throw X264Error.invalid(.unsupported, "a constant QP cannot keep data rate limits (x264 ignores a VBV in CQP)")
            }
        }
        try Self.validate(dataRateLimits)
        if let m = vbvMaxBitrate { try checkBitrate(m, "VBV max bitrate") }
        if let d = vbvBufferDuration { guard d.isFinite, d > 0, d <= 60 else { throw bad("VBV buffer duration \(d) s must be in (0, 60]") } }
        if let i = vbvInitialDelayPercentage { guard i.isFinite, i >= 0, i <= 100 else { throw bad("VBV initial delay \(i)% must be 0...100") } }
        if let k = maxKeyframeInterval { guard k > 0 else { throw bad("max keyframe interval \(k) must be positive") } }
        if let s = maxKeyframeIntervalDuration {
            guard s.isFinite, s > 0 else { throw bad("max keyframe interval duration \(s) s must be positive") }
        }
        if let b = maxConsecutiveBFrames { guard (0...16).contains(b) else { throw bad("B-frames \(b) must be 0...16") } }
        guard threads >= 0, threads <= 128 else { throw bad("threads \(threads) must be 0...128") }
        guard slices >= 0, slices <= 256 else { throw bad("slices \(slices) must be 0...256") }
        if let m = maxSliceSize { guard m > 0 else { throw bad("max slice size \(m) must be positive") } }
        if let c = color {
            guard (0...255).contains(c.primaries), (0...255).contains(c.transfer), (0...255).contains(c.matrix) else {
                throw bad("colour description values must be 0...255")
            }
        }
        if let sar = pixelAspectRatio {
            guard (1...65535).contains(sar.width), (1...65535).contains(sar.height) else {
                throw bad("pixel aspect ratio \(sar.width):\(sar.height) must be 1...65535 each")
            }
        }
        if let n = maxFrameDelayCount { guard n >= 0 else { throw bad("max frame delay count \(n) must not be negative") } }
        if let n = lookaheadFrameCount { guard (0...250).contains(n) else { throw bad("lookahead \(n) must be 0...250") } }
        if let r = referenceFrameCount { guard (1...16).contains(r) else { throw bad("reference frame count \(r) must be 1...16") } }
        for (name, qp) in [("min", minFrameQP), ("max", maxFrameQP)] {
            if let qp { guard (0...51).contains(qp) else { throw bad("\(name) frame QP \(qp) must be 0...51") } }
        }
        if let lo = minFrameQP, let hi = maxFrameQP, lo > hi { throw bad("min frame QP \(lo) is above max frame QP \(hi)") }
        if entropyMode == .cabac && profile == .baseline {
            throw X264Error.invalid(.unsupported, "profile baseline does not support CABAC")
        }
        if fieldOrder != nil {
            guard height % 4 == 0 || chromaFormat != .yuv420 else { throw bad("interlaced 4:2:0 needs a height divisible by 4") }
            guard profile != .baseline else {
                throw X264Error.invalid(.unsupported, "profile baseline does not support interlaced coding")
            }
        }
        if let level, level.limits == nil {
            throw bad("level_idc \(level.levelIDC) is not a level of Table A-1")
        }
        let supported: ChromaFormat = profile.allowsChroma
        guard chromaFormat.rawValue <= supported.rawValue else {
            throw X264Error.invalid(.unsupported, "profile \(profile.rawValue) does not support \(pixelFormat) input")
        }
        if lossless && profile != .high444 {
            throw X264Error.invalid(.unsupported, "lossless coding (CRF/QP 0) needs profile high444, not \(profile.rawValue)")
        }
    }

    /// Checks data rate limits: positive bytes and window, at least 1 kbit/s, at most 2e9.
    static func validate(_ limits: [DataRateLimit]) throws(X264Error) {
        for limit in limits {
            guard limit.bytes > 0, limit.seconds.isFinite, limit.seconds > 0, limit.bitsPerSecond >= 1000,
                  limit.bitsPerSecond <= 2e9 else {
                throw X264Error.invalid(.invalidArgument,
                    "data rate limit \(limit.bytes) bytes / \(limit.seconds) s must be positive (>= 1 kbit/s)")
            }
        }
    }

    /// The rate targets an encoder opens with.
    var initialRateTargets: X264Encoder.RateTargets {
        X264Encoder.RateTargets(rateControl: rateControl, limits: dataRateLimits)
    }

    /// The rate plan for `targets` with this configuration's VBV settings.
    func ratePlan(_ targets: X264Encoder.RateTargets, levelCPB: Int32? = nil) -> X264Encoder.RatePlan {
        Self.ratePlan(targets, vbvMaxBitrate: vbvMaxBitrate, vbvBufferDuration: vbvBufferDuration,
                      vbvInitialDelayPercentage: vbvInitialDelayPercentage, frameRate: expectedFrameRate, levelCPB: levelCPB)
    }

    /// Builds x264's parameters for `plan`, at `levelIDC` when given (a reopened encoder keeps
    /// the level it first chose). The configuration has been validated.
    func makeParameters(_ plan: X264Encoder.RatePlan, levelIDC: Int? = nil) throws(X264Error) -> x264_param_t {
        var p = x264_param_t()
        var tunes: [String] = []
        if let t = tune { tunes.append(t.rawValue) }
        if realTime && tune != .zeroLatency { tunes.append("zerolatency") }
        let tuneString = tunes.joined(separator: ",")
        let status = tuneString.isEmpty
            ? x264_param_default_preset(&p, preset.rawValue, nil)
            : x264_param_default_preset(&p, preset.rawValue, tuneString)
        guard status == 0 else {
            throw X264Error.invalid(.invalidArgument, "x264 rejected preset \(preset.rawValue) with tune '\(tuneString)'")
        }
        p.i_width = Int32(width)
        p.i_height = Int32(height)
        switch chromaFormat {
        case .yuv420: p.i_csp = pixelFormat == .nv12 ? X264_CSP_NV12 : X264_CSP_I420
        case .yuv422: p.i_csp = X264_CSP_I422
        case .yuv444: p.i_csp = X264_CSP_I444
        case .monochrome: p.i_csp = X264_CSP_I400  // no pixel format is monochrome
        }
        if profile == .high10 { p.i_bitdepth = 10 }
        let fps = frameRateFraction
        p.i_fps_num = fps.num
        p.i_fps_den = fps.den
        p.i_timebase_num = fps.den
        p.i_timebase_den = fps.num
        p.b_vfr_input = 0
        // Start codes, as the x264 CLI writes them: x264's rate control counts the bytes it
        // emits, so only the same framing gives the CLI's bitstream for the same settings.
        // Each NAL unit's start code is skipped by its known length (no scanning).
        p.b_annexb = 1
        p.b_repeat_headers = repeatParameterSets ? 1 : 0
        p.b_aud = accessUnitDelimiters ? 1 : 0
        p.b_pic_struct = pictureTiming ? 1 : 0
        p.i_threads = Int32(threads)
        if threads == 1 { p.b_sliced_threads = 0 }
        if slices > 0 { p.i_slice_count = Int32(slices) }
        if let m = maxSliceSize { p.i_slice_max_size = Int32(clamping: m) }
        if periodicIntraRefresh {
            p.b_intra_refresh = 1
            // x264 still turns a scene cut into an I picture, and that I picture into an IDR
            // once keyint_min frames have passed since the last: on content with large
            // frame-to-frame change every picture can become an IDR. A refreshing stream
            // recovers from any change by the refresh itself, so scene cuts are off.
            p.i_scenecut_threshold = 0
        }
        if let b = maxConsecutiveBFrames { p.i_bframe = Int32(b) }
        if !allowFrameReordering { p.i_bframe = 0 }
        // The keyframe interval in seconds is measured on the frames' timestamps (the encoder
        // forces keyframes, see KeyframeClock); x264 counts frames only for a frame limit, and
        // for the cycle of a periodic intra refresh.
        var keyint: Int? = maxKeyframeInterval
        if let s = maxKeyframeIntervalDuration, periodicIntraRefresh {
            let f = (s * Double(fps.num) / Double(fps.den)).rounded(.down)  // finite, > 0: checked; may exceed Int
            let frames = f >= Double(Int32.max) ? Int(Int32.max) : Swift.max(1, Int(f))
            keyint = Swift.min(keyint ?? frames, frames)
        } else if maxKeyframeIntervalDuration != nil && keyint == nil {
            keyint = Int(X264_KEYINT_MAX_INFINITE)
        }
        if let k = keyint {
            p.i_keyint_max = Int32(clamping: k)
            if p.i_keyint_min > p.i_keyint_max / 2 + 1 { p.i_keyint_min = p.i_keyint_max / 2 + 1 }
        }
        if let level { p.i_level_idc = level.isLevel1b ? 9 : Int32(level.levelIDC) }  // x264 writes 1b as the profile needs
        if let levelIDC { p.i_level_idc = Int32(levelIDC) }
        plan.apply(to: &p)
        if let sar = pixelAspectRatio {
            p.vui.i_sar_width = Int32(sar.width)
            p.vui.i_sar_height = Int32(sar.height)
        }
        if let order = fieldOrder {
            p.b_interlaced = 1
            p.b_tff = order == .topFieldFirst ? 1 : 0
        }
        let vuiColor = color ?? (pixelFormat.isRGB ? .bt601 : nil)
        if let c = vuiColor {
            p.vui.i_colorprim = Int32(c.primaries)
            p.vui.i_transfer = Int32(c.transfer)
            p.vui.i_colmatrix = Int32(c.matrix)
            p.vui.b_fullrange = c.fullRange ? 1 : 0
        }
        applyStructure(to: &p)
        guard x264_param_apply_profile(&p, profile.rawValue) == 0 else {
            throw X264Error.invalid(.unsupported, "x264 cannot apply profile \(profile.rawValue) to this configuration")
        }
        return p
    }
}
