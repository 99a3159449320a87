internal import CX264
import H264

extension X264Encoder {
    /// What the encoder is currently asked for: the rate control mode with its present target,
    /// the data rate limits, and whether the average bitrate has been changed since opening.
    struct RateTargets: Equatable {
        var rateControl: RateControl
        var limits: [DataRateLimit]
        /// Set by the first ``X264Encoder/setAverageBitrate(_:)``: from then on an average
        /// bitrate runs with a VBV at that rate, which x264 can retarget in place.
        var adaptive = false
        /// The VBV buffer of an adaptive average bitrate, in seconds of it; nil:
        /// ``Options/generousBufferSeconds``.
        var bufferSeconds: Double?

        /// The targets after a bitrate change. A quality-mode encoder switches to an average bitrate.
        ///
        /// When the change is applied in place (`current` is retargetable), the VBV buffer of
        /// an average bitrate keeps its size in bits as the rate goes up (down to half a second
        /// of the new rate) and becomes two seconds of the new rate as it goes down. x264 keeps
        /// the buffer's fill across the change and steers it to between half and four fifths of
        /// the buffer: a buffer grown with the rate would start nearly empty, and x264 would
        /// hold the rate back for seconds to fill it (on a 720p clip, 1.3 instead of 3 Mbit/s
        /// over the two seconds after a change from 0.5; 2.3 with the buffer kept).
        func changingBitrate(to bitsPerSecond: Int, current: RatePlan) -> RateTargets {
            var next = self
            if current.isRetargetable {
                let keptSeconds = Double(current.bufferSize) * 1000 / Double(bitsPerSecond)
                next.bufferSeconds = Swift.min(X264Encoder.Options.generousBufferSeconds,
                                               Swift.max(X264Encoder.Options.minimumChangeBufferSeconds, keptSeconds))
            } else {
                next.bufferSeconds = nil
            }
            switch rateControl {
            case .constantBitrate: next.rateControl = .constantBitrate(bitsPerSecond)
            case .variableBitrate: next.rateControl = .variableBitrate(bitsPerSecond)
            case .averageBitrate, .constantQuality, .constantQP: next.rateControl = .averageBitrate(bitsPerSecond)
            }
            next.adaptive = true
            return next
        }
    }

    /// The rate control numbers one `x264_t` runs with, in x264's units (kbit/s, kbit).
    struct RatePlan: Equatable {
        enum Method: Equatable {
            /// One-pass ABR at `bitrate`.
            case abr
            /// Constant rate factor.
            case crf(Float)
            /// Constant QP.
            case cqp(Int32)
        }

        var method: Method
        /// `rc.i_bitrate` (ABR only).
        var bitrate: Int32 = 0
        /// `rc.i_vbv_max_bitrate`; 0 without a VBV.
        var maxRate: Int32 = 0
        /// `rc.i_vbv_buffer_size`; 0 without a VBV.
        var bufferSize: Int32 = 0
        /// `rc.f_vbv_buffer_init`, the fraction of the buffer full at the start.
        var bufferInit: Float = 0.9
        /// NAL HRD with filler data (`i_nal_hrd = X264_NAL_HRD_CBR`): hard constant bitrate.
        var hardCBR = false

        var hasVBV: Bool { maxRate > 0 && bufferSize > 0 }

        /// x264's "CBR-like" ABR (`b_vbv_min_rate`): the only ABR whose target
        /// `x264_encoder_reconfig` moves (its ratecontrol.c keeps the target of any other ABR).
        var isRetargetable: Bool { method == .abr && hasVBV && maxRate <= bitrate }

        /// Whether a running encoder with this plan can switch to `next` through
        /// `x264_encoder_reconfig`; otherwise the encoder must be reopened. x264 reconfigures the
        /// VBV only of an encoder opened with one and without NAL HRD, and the ABR target only in
        /// CBR-like ABR (and keeps it CBR-like).
        func canReconfigure(to next: RatePlan) -> Bool {
            if self == next { return true }
            guard hasVBV, next.hasVBV, !hardCBR, !next.hardCBR else { return false }
            switch (method, next.method) {
            case (.abr, .abr): return isRetargetable && next.isRetargetable
            case (.crf, .crf): return true
            default: return false
            }
        }

        /// Writes the plan into x264's parameters.
        func apply(to p: inout x264_param_t) {
            switch method {
            case .abr:
                p.rc.i_rc_method = X264_RC_ABR
                p.rc.i_bitrate = bitrate
            case .crf(let f):
                p.rc.i_rc_method = X264_RC_CRF
                p.rc.f_rf_constant = f
            case .cqp(let q):
                p.rc.i_rc_method = X264_RC_CQP
                p.rc.i_qp_constant = q
            }
            p.rc.i_vbv_max_bitrate = maxRate
            p.rc.i_vbv_buffer_size = bufferSize
            p.rc.f_vbv_buffer_init = bufferInit
            p.i_nal_hrd = hardCBR ? X264_NAL_HRD_CBR : X264_NAL_HRD_NONE
            p.rc.b_filler = hardCBR ? 1 : 0
        }
    }
}

extension X264Encoder.Options {
    /// Seconds of the bitrate in the VBV buffer of an average-bitrate encoder once its bitrate
    /// has been changed (or limits set): large enough to cost little against plain ABR, small
    /// enough that its VBV pulls the rate to a new target within about two seconds (x264's own
    /// rate estimate remembers about four times the buffer's duration).
    static let generousBufferSeconds = 2.0

    /// The VBV buffer of constant and variable bitrates without ``vbvBufferDuration``:
    /// VideoToolbox's default.
    static let defaultVBVBufferSeconds = 2.5

    /// The smallest VBV buffer, in seconds of the bitrate, that a bitrate change in place leaves.
    static let minimumChangeBufferSeconds = 0.5

    /// The share of a data rate limit's window kept out of reach, for x264's VBV, which
    /// predicts frame sizes and so can overshoot its model by a little.
    static let limitMargin = 0.05

    /// The smallest share of a data rate limit's bytes given to the VBV buffer; the rest is the
    /// rate at which it refills.
    static let limitMinimumBufferShare = 0.25

    /// The VBV that keeps every window of every limit within its bytes.
    ///
    /// A VBV with rate `R` and buffer `B` never lets more than `B + R*T` bits through in `T`
    /// seconds (the buffer can be emptied once, then refills at `R`). So for each limit of
    /// `L` bits per `T` seconds: `R*T + B <= L` (less the margin). The rate is the target
    /// (when there is one and it fits) or at most `1 - limitMinimumBufferShare` of the
    /// tightest limit's rate; the buffer takes what the tightest window leaves.
    /// - Returns: rate in bits/s and buffer in bits, or nil without limits.
    static func limitVBV(_ limits: [DataRateLimit], target: Double?) -> (rate: Double, buffer: Double)? {
        guard !limits.isEmpty else { return nil }
        let usable = limits.map { (bits: Double($0.bytes) * 8 * (1 - limitMargin), seconds: $0.seconds) }
        var rate = usable.map { $0.bits / $0.seconds * (1 - limitMinimumBufferShare) }.min()!
        if let target { rate = Swift.min(rate, target) }
        let buffer = usable.map { $0.bits - rate * $0.seconds }.min()!
        return (rate, buffer)
    }

    /// x264's rate control numbers for `targets`.
    ///
    /// - An average bitrate is x264's one-pass ABR with no VBV, exactly as the x264 CLI's
    ///   `--bitrate`, until the bitrate is first changed; then (and whenever data rate limits
    ///   are set) it is ABR with `vbv-maxrate` equal to the bitrate, the one ABR whose target
    ///   x264 can move in place, with a buffer of ``generousBufferSeconds`` of the bitrate
    ///   (or what the limits allow).
    /// - A constant bitrate is ABR with `vbv-maxrate` = bitrate, a buffer of
    ///   ``vbvBufferDuration`` (default ``defaultVBVBufferSeconds``) and NAL HRD with filler data.
    /// - A variable bitrate is ABR with `vbv-maxrate` = ``vbvMaxBitrate`` (no VBV without one).
    /// - Quality modes have a VBV only from data rate limits.
    ///
    /// Limits lower the rate and buffer further (``limitVBV(_:target:)``). `levelCPB`, when
    /// given, caps the buffers this function chooses itself (not those the caller asked for).
    static func ratePlan(_ targets: X264Encoder.RateTargets, vbvMaxBitrate: Int?, vbvBufferDuration: Double?,
                         vbvInitialDelayPercentage: Double?, frameRate: Double, levelCPB: Int32? = nil) -> X264Encoder.RatePlan {
        func kbit(_ bits: Double) -> Int32 { Int32(clamping: Swift.max(1, Int((bits / 1000).rounded()))) }
        // x264 raises a buffer smaller than one frame to one frame, which a limit cannot afford:
        // the rate gives way instead.
        func fit(_ vbv: (rate: Double, buffer: Double)) -> (rate: Double, buffer: Double) {
            vbv.buffer * frameRate >= vbv.rate ? vbv : (vbv.buffer * frameRate, vbv.buffer)
        }
        func capped(_ chosen: Int32) -> Int32 { levelCPB.map { Swift.min(chosen, $0) } ?? chosen }
        let initFill = Float((vbvInitialDelayPercentage ?? 90) / 100)
        let seconds = vbvBufferDuration ?? defaultVBVBufferSeconds
        let limits = targets.limits
        switch targets.rateControl {
        case .averageBitrate(let bitrate):
            var plan = X264Encoder.RatePlan(method: .abr, bitrate: kbit(Double(bitrate)))
            if let vbv = limitVBV(limits, target: Double(bitrate)).map(fit) {
                plan.bitrate = kbit(vbv.rate)
                plan.maxRate = plan.bitrate
                plan.bufferSize = Swift.min(kbit(vbv.buffer), capped(kbit(vbv.rate * generousBufferSeconds)))
            } else if targets.adaptive {
                plan.maxRate = plan.bitrate
                plan.bufferSize = capped(kbit(Double(bitrate) * (targets.bufferSeconds ?? generousBufferSeconds)))
            }
            return plan
        case .constantBitrate(let bitrate):
            var plan = X264Encoder.RatePlan(method: .abr, bitrate: kbit(Double(bitrate)), bufferInit: initFill, hardCBR: true)
            var rate = Double(bitrate), buffer = Double(bitrate) * seconds
            if let vbv = limitVBV(limits, target: rate).map(fit) { rate = vbv.rate; buffer = Swift.min(buffer, vbv.buffer) }
            plan.bitrate = kbit(rate)
            plan.maxRate = plan.bitrate
            plan.bufferSize = vbvBufferDuration == nil && limits.isEmpty ? capped(kbit(buffer)) : kbit(buffer)
            return plan
        case .variableBitrate(let bitrate):
            var plan = X264Encoder.RatePlan(method: .abr, bitrate: kbit(Double(bitrate)), bufferInit: initFill)
            let peak = vbvMaxBitrate.map { Double(Swift.max($0, bitrate)) }
            var vbv = peak.map { (rate: $0, buffer: $0 * seconds) }
            if let l = limitVBV(limits, target: peak) {
                vbv = fit((l.rate, Swift.min(l.buffer, vbv?.buffer ?? .infinity)))
                plan.bitrate = Swift.min(plan.bitrate, kbit(vbv!.rate))
            }
            if let vbv {
                plan.maxRate = kbit(vbv.rate)
                plan.bufferSize = vbvBufferDuration == nil && limits.isEmpty ? capped(kbit(vbv.buffer)) : kbit(vbv.buffer)
            }
            return plan
        case .constantQuality(let q):
            var plan = X264Encoder.RatePlan(method: .crf(Float(q)))
            if let vbv = limitVBV(limits, target: nil).map(fit) {
                plan.maxRate = kbit(vbv.rate)
                plan.bufferSize = kbit(vbv.buffer)
            }
            return plan
        case .constantQP(let q):
            return X264Encoder.RatePlan(method: .cqp(Int32(q)))
        }
    }
}
