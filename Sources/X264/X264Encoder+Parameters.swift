internal import CX264
import H264

extension X264Encoder.Configuration {
    /// The frame rate as x264's numerator / denominator: NTSC rates (29.97...) as n*1000/1001,
    /// whole rates as n/1, anything else to a thousandth.
    var frameRateFraction: (num: UInt32, den: UInt32) {
        let r = expectedFrameRate
        if r == r.rounded() { return (UInt32(r), 1) }
        let ntsc = r * 1001 / 1000
        if abs(ntsc - ntsc.rounded()) < 0.001 { return (UInt32(ntsc.rounded()) * 1000, 1001) }
        return (UInt32((r * 1000).rounded()), 1000)
    }

    /// The chroma format x264 encodes.
    var chromaFormat: ChromaFormat { pixelFormat.chromaFormat ?? .yuv420 }

    /// The colour conversion used for BGRA and ARGB frames.
    var rgbConversion: ColorConversion { (color ?? .bt601).conversion }

    /// Checks every setting that x264 would otherwise reject (printing to stderr) or accept wrongly.
    func validate() throws(H264Error) {
        func bad(_ reason: String) -> H264Error { H264Error.invalid(.invalidArgument, reason) }
        guard width > 0, height > 0 else { throw bad("size \(width)x\(height) must be positive") }
        guard width <= PixelFormat.maxDimension, height <= PixelFormat.maxDimension else {
            throw bad("size \(width)x\(height) is larger than \(PixelFormat.maxDimension)")
        }
        switch chromaFormat {
        case .yuv420:
            guard width % 2 == 0, height % 2 == 0 else { throw bad("4:2:0 needs an even width and height, not \(width)x\(height)") }
        case .yuv422:
            guard width % 2 == 0 else { throw bad("4:2:2 needs an even width, not \(width)") }
        case .yuv444: break
        }
        guard expectedFrameRate.isFinite, expectedFrameRate > 0, expectedFrameRate <= 1000 else {
            throw bad("expected frame rate \(expectedFrameRate) must be in (0, 1000]")
        }
        var lossless = false
        switch rateControl {
        case .averageBitrate(let b):
            guard b >= 1000, b <= 2_000_000_000 else { throw bad("average bitrate \(b) must be 1000...2e9 bits/s") }
        case .constantQuality(let q):
            guard q.isFinite, q >= 0, q <= 51 else { throw bad("constant quality (CRF) \(q) must be 0...51") }
            lossless = q == 0
        case .constantQP(let q):
            guard q >= 0, q <= 51 else { throw bad("constant QP \(q) must be 0...51") }
            lossless = q == 0
        }
        for limit in dataRateLimits {
            guard limit.bytes > 0, limit.seconds.isFinite, limit.seconds > 0, limit.bitsPerSecond >= 1000,
                  limit.bitsPerSecond <= 2e9 else {
                throw bad("data rate limit \(limit.bytes) bytes / \(limit.seconds) s must be positive (>= 1 kbit/s)")
            }
        }
        if let k = maxKeyframeInterval { guard k > 0 else { throw bad("max keyframe interval \(k) must be positive") } }
        if let s = maxKeyframeIntervalDuration {
            guard s.isFinite, s > 0 else { throw bad("max keyframe interval duration \(s) s must be positive") }
        }
        guard threads >= 0, threads <= 128 else { throw bad("threads \(threads) must be 0...128") }
        guard slices >= 0, slices <= 256 else { throw bad("slices \(slices) must be 0...256") }
        if let m = maxSliceSize { guard m > 0 else { throw bad("max slice size \(m) must be positive") } }
        if let c = color {
            guard (0...255).contains(c.primaries), (0...255).contains(c.transfer), (0...255).contains(c.matrix) else {
                throw bad("colour description values must be 0...255")
            }
        }
        if case .idc(let l) = level {
            guard (9...62).contains(l) else { throw bad("level_idc \(l) must be 9...62") }
        }
        let supported: ChromaFormat = profile.allowsChroma
        guard chromaFormat.rawValue <= supported.rawValue else {
            throw H264Error.invalid(.unsupported, "profile \(profile.rawValue) does not support \(pixelFormat) input")
        }
        if lossless && profile != .high444 {
            throw H264Error.invalid(.unsupported, "lossless coding (CRF/QP 0) needs profile high444, not \(profile.rawValue)")
        }
    }

    /// The rate control numbers x264 gets, in kbit/s and kbit.
    struct RateSettings: Equatable {
        /// `rc.i_bitrate` (ABR only).
        var bitrate: Int32
        /// `rc.i_vbv_max_bitrate`.
        var maxRate: Int32
        /// `rc.i_vbv_buffer_size`.
        var bufferSize: Int32
    }

    /// Maps an average bitrate and data rate limits to x264's ABR and VBV.
    ///
    /// x264's `x264_encoder_reconfig` moves the ABR target (`rc->bitrate`) only when the VBV
    /// rate equals the bitrate (x264's `b_vbv_min_rate`, the CBR-like ABR of live streaming);
    /// in plain ABR it would change the VBV and keep the old target. So an average bitrate
    /// always becomes ABR with `vbv-maxrate` = bitrate: the target is the bitrate, or the
    /// tightest limit's rate when that is lower; the buffer is the tightest limit's bytes, or
    /// one second of the bitrate without limits. In the quality modes a limit becomes the VBV
    /// directly (rate and buffer of the tightest limit), and no limit means no VBV.
    static func rateSettings(bitrate: Int?, limits: [DataRateLimit]) -> RateSettings? {
        let tightest = limits.min(by: { $0.bitsPerSecond < $1.bitsPerSecond })
        let limitRate = tightest.map { Int32(clamping: Int(($0.bitsPerSecond / 1000).rounded())) }
        let limitBuffer = tightest.map { Int32(clamping: Int((Double($0.bytes) * 8 / 1000).rounded())) }
        if let bitrate {
            var rate = Int32(clamping: bitrate / 1000)
            if let limitRate { rate = Swift.min(rate, limitRate) }
            rate = Swift.max(1, rate)
            return RateSettings(bitrate: rate, maxRate: rate, bufferSize: Swift.max(1, limitBuffer ?? rate))
        }
        guard let limitRate, let limitBuffer else { return nil }
        return RateSettings(bitrate: 0, maxRate: Swift.max(1, limitRate), bufferSize: Swift.max(1, limitBuffer))
    }

    /// The bitrate of an average-bitrate configuration, or nil in the quality modes.
    var averageBitrate: Int? {
        if case .averageBitrate(let b) = rateControl { return b }
        return nil
    }

    /// Builds x264's parameters. The configuration has been validated.
    func makeParameters() throws(H264Error) -> x264_param_t {
        var p = x264_param_t()
        var tunes: [String] = []
        if let t = tune { tunes.append(t.rawValue) }
        if realTime && tune != .zeroLatency { tunes.append("zerolatency") }
        let tuneString = tunes.joined(separator: ",")
        let status = tuneString.isEmpty
            ? x264_param_default_preset(&p, preset.rawValue, nil)
            : x264_param_default_preset(&p, preset.rawValue, tuneString)
        guard status == 0 else {
            throw H264Error.invalid(.invalidArgument, "x264 rejected preset \(preset.rawValue) with tune '\(tuneString)'")
        }
        p.i_width = Int32(width)
        p.i_height = Int32(height)
        switch chromaFormat {
        case .yuv420: p.i_csp = pixelFormat == .nv12 ? X264_CSP_NV12 : X264_CSP_I420
        case .yuv422: p.i_csp = X264_CSP_I422
        case .yuv444: p.i_csp = X264_CSP_I444
        }
        if profile == .high10 { p.i_bitdepth = 10 }
        let fps = frameRateFraction
        p.i_fps_num = fps.num
        p.i_fps_den = fps.den
        p.i_timebase_num = fps.den
        p.i_timebase_den = fps.num
        p.b_vfr_input = 0
        p.b_annexb = 0  // each NAL after a 4-byte length: no start-code scanning of the output
        p.b_repeat_headers = repeatParameterSets ? 1 : 0
        p.b_aud = accessUnitDelimiters ? 1 : 0
        p.i_threads = Int32(threads)
        if threads == 1 { p.b_sliced_threads = 0 }
        if slices > 0 { p.i_slice_count = Int32(slices) }
        if let m = maxSliceSize { p.i_slice_max_size = Int32(clamping: m) }
        p.b_intra_refresh = periodicIntraRefresh ? 1 : 0
        if !allowFrameReordering { p.i_bframe = 0 }
        var keyint: Int? = maxKeyframeInterval
        if let s = maxKeyframeIntervalDuration {
            let frames = Swift.max(1, Int((s * Double(fps.num) / Double(fps.den)).rounded(.down)))
            keyint = Swift.min(keyint ?? frames, frames)
        }
        if let k = keyint {
            p.i_keyint_max = Int32(clamping: k)
            if p.i_keyint_min > p.i_keyint_max / 2 + 1 { p.i_keyint_min = p.i_keyint_max / 2 + 1 }
        }
        if case .idc(let l) = level { p.i_level_idc = Int32(l) }
        switch rateControl {
        case .averageBitrate:
            p.rc.i_rc_method = X264_RC_ABR
        case .constantQuality(let q):
            p.rc.i_rc_method = X264_RC_CRF
            p.rc.f_rf_constant = Float(q)
        case .constantQP(let q):
            p.rc.i_rc_method = X264_RC_CQP
            p.rc.i_qp_constant = Int32(q)
        }
        if let r = Self.rateSettings(bitrate: averageBitrate, limits: dataRateLimits) { r.apply(to: &p) }
        let vuiColor = color ?? (pixelFormat.isRGB ? .bt601 : nil)
        if let c = vuiColor {
            p.vui.i_colorprim = Int32(c.primaries)
            p.vui.i_transfer = Int32(c.transfer)
            p.vui.i_colmatrix = Int32(c.matrix)
            p.vui.b_fullrange = c.fullRange ? 1 : 0
        }
        guard x264_param_apply_profile(&p, profile.rawValue) == 0 else {
            throw H264Error.invalid(.unsupported, "x264 cannot apply profile \(profile.rawValue) to this configuration")
        }
        return p
    }
}

extension X264Encoder.Configuration.RateSettings {
    /// Writes the settings into x264's parameters (the bitrate only when nonzero).
    func apply(to p: inout x264_param_t) {
        if bitrate > 0 { p.rc.i_bitrate = bitrate }
        p.rc.i_vbv_max_bitrate = maxRate
        p.rc.i_vbv_buffer_size = bufferSize
    }
}
