internal import CX264
import H264
import H264Video
import MediaSupport

/// A `FrameEncoder` over libx264.
///
/// ```swift
/// var options = X264Encoder.Options(width: 1280, height: 720)
/// options.rateControl = .averageBitrate(2_000_000)
/// let encoder = try X264Encoder(options: options)
/// for frame in frames { for au in try encoder.encode(frame) { write(au.annexBSample(parameterSets: encoder.parameterSets)) } }
/// for au in try encoder.flush() { write(au.annexBSample(parameterSets: encoder.parameterSets)) }
/// ```
///
/// ## Rate control
///
/// An average bitrate (`AverageBitRate`) is a long-term average, not a limit: the encoder
/// opens as x264's one-pass ABR without a VBV, exactly what the x264 CLI's `--bitrate` does
/// (same bitstream, same bitrate, same quality). Data rate limits (`DataRateLimits`) are the
/// limits: each becomes part of a VBV small enough that no window of the limit's length can
/// hold more than its bytes (see ``Options/dataRateLimits``).
///
/// ## Bitrate changes
///
/// x264 retargets a running encoder (`x264_encoder_reconfig`) only when it runs its
/// "CBR-like" ABR, with a VBV whose rate is the bitrate; a plain ABR keeps the target it opened
/// with. So the first ``setAverageBitrate(_:)`` of an encoder that cannot be retargeted in
/// place reopens x264 in the CBR-like ABR (a VBV of the new bitrate and two seconds of it):
/// the frames the old encoder holds come out with the next ``encode(_:options:)`` (or
/// ``flush()``), and the new one starts with an IDR picture, keeping the level, the parameter
/// sets and the timestamps' order. Every later change is applied in place, smoothly. The same
/// holds for ``setDataRateLimits(_:)``, for constant and variable bitrates (x264 cannot
/// reconfigure NAL HRD) and for a quality-mode encoder asked for a bitrate (it becomes an
/// average-bitrate encoder).
///
/// ## Timestamps
///
/// Frames must come in presentation order with strictly increasing `pts`, all in the
/// timescale of the first frame; others are refused with
/// ``X264Error/Code/invalidTimestamp``, as VideoToolbox refuses them.
///
/// ## Threads
///
/// The encoder is `Sendable`: calls are serialised by a lock, so one encoder may be fed from
/// any thread. Independent encoders share nothing and run in parallel.
///
/// ## Display orientation
///
/// A frame with an `VideoFrame.orientation` carries a display orientation SEI message
/// (payloadType 47) in its access unit, attached through x264's `extra_sei`.
///
/// ## SEI messages per frame
///
/// `FrameEncodeOptions.seiMessages` go into the access unit of that frame's picture,
/// whenever x264 outputs it: captions (`SEIMessage.captions(_:)`), user data and other
/// messages through x264's `extra_sei` (x264 owns and frees the copies, and counts their
/// bytes in its rate control); a recovery point, and a pic_timing with a time code (which
/// needs ``Options/pictureTiming``), replace x264's own in the access unit as it
/// comes out. A buffering_period is refused: x264 writes its own.
///
/// ## Errors
///
/// Every method throws ``X264Error`` (the encoder's `FrameEncoder.Failure`): through
/// `any FrameEncoder` the same values arrive as `any Error`.
public final class X264Encoder: FrameEncoder, Sendable {
    /// The error every method throws.
    public typealias Failure = X264Error

    /// The options the encoder was opened with (bitrate and limit changes are not
    /// reflected; see ``activeSettings``).
    public let options: Options
    /// The options the encoder was opened with, now ``options``.
    @available(*, deprecated, renamed: "options")
    public var configuration: Options { options }

    struct State {
        var session: Session
        var targets: RateTargets
        /// Access units of an x264 encoder that a rate change replaced, returned first.
        var pending: [EncodedFrame] = []
        var timeline = FrameTimeline()
        var keyframes: KeyframeClock
        var scratch: VideoFrame?
        var highDepth: [UInt16] = []
        var flushed = false
        /// pic_timing and recovery_point messages waiting for their frame's access unit, by
        /// pts: at most the frames x264 holds.
        var perPictureSEI: [Int64: [SEIMessage]] = [:]

        /// `units` with the per-picture SEI messages waiting for them put in.
        mutating func withPerPictureSEI(_ units: [EncodedFrame], log: X264Log) -> [EncodedFrame] {
            guard !perPictureSEI.isEmpty else { return units }
            var units = units
            X264Encoder.insertPerPictureSEI(&perPictureSEI, into: &units,
                                            timing: Session.sps(in: session.parameterSets)?.seiTimingInfo, log: log)
            return units
        }
    }

    private let state: ThreadLock<State>
    private let log: X264Log
    /// This encoder's token in ``ExtraSEILedger``.
    let seiOwner = ExtraSEILedger.makeToken()

    /// Opens an encoder.
    ///
    /// - Throws: ``X264Error/Code/invalidArgument`` for a size, rate, bitrate or other setting
    ///   out of range (odd sizes for 4:2:0); ``X264Error/Code/unsupported`` for a profile
    ///   that cannot carry the input's chroma format, lossless coding, CABAC or interlacing,
    ///   or a constant QP with data rate limits; ``X264Error/Code/encoderFailure`` when
    ///   `x264_encoder_open` fails (with x264's error messages in the reason).
    public init(options configuration: Options) throws(X264Error) {
        try configuration.validate()
        self.options = configuration
        let log = X264Log(handler: configuration.logHandler)
        self.log = log
        let targets = configuration.initialRateTargets
        let session = try Session(configuration, plan: configuration.ratePlan(targets), levelIDC: nil, log: log)
        state = ThreadLock(State(session: session, targets: targets,
                                 keyframes: KeyframeClock(interval: configuration.periodicIntraRefresh ? nil : configuration.maxKeyframeIntervalDuration)))
    }

    /// Opens an encoder, now ``init(options:)``.
    @available(*, deprecated, renamed: "init(options:)")
    public convenience init(configuration: Options) throws(X264Error) {
        try self.init(options: configuration)
    }

    deinit {
        state.withLock { $0.session.close() }
    }

    /// The current SPS and PPS NAL units.
    public var parameterSets: [NALUnit] { state.withLock { $0.session.parameterSets } }

    /// The current decoder configuration (avcC: the `avcC` box payload, FLV's AVC sequence
    /// header), with 4-byte NAL unit lengths. libx264 writes its SPS and PPS when the encoder is
    /// opened, so an `X264Encoder` always has one (a `FrameEncoder` in general may not before its
    /// first frame: `FrameEncoder.decoderConfiguration` is optional).
    ///
    /// ```swift
    /// let avcC = try encoder.decoderConfiguration   // no `!`: known from init
    /// ```
    /// - Throws: `H264Error` (`missingParameterSet`) if the encoder has no SPS and PPS, and the
    ///   errors of `AVCDecoderConfigurationRecord(parameterSets:lengthSize:)`.
    public var decoderConfiguration: AVCDecoderConfigurationRecord {
        get throws(H264Error) {
            guard let record = try decoderConfiguration(lengthSize: .four) else {
                throw H264Error.invalid(.missingParameterSet, "the encoder has no SPS")
            }
            return record
        }
    }

    /// Number of frames x264 holds now (lookahead and reordering delay; VideoToolbox's
    /// `NumberOfPendingFrames`).
    public var delayedFrames: Int { state.withLock { Int(x264_encoder_delayed_frames($0.session.handle)) } }

    /// What x264 actually chose: profile, level, frame delay, entropy coding, references and
    /// the rate control it runs now.
    public var activeSettings: ActiveSettings { state.withLock { ActiveSettings($0.session, $0.targets) } }

    /// Encodes one frame.
    ///
    /// - Parameters:
    ///   - frame: a frame of the configured size and pixel format, with a `pts` later than
    ///     the previous frame's in the same timescale; both are carried to the output.
    ///   - options: `FrameEncodeOptions.forceKeyframe` makes this frame an IDR picture;
    ///     `seiMessages` go into its access unit (see "SEI messages per frame" above).
    /// - Returns: the access units that came out, in decoding order (often none at first).
    /// - Throws: ``X264Error/Code/invalidArgument`` for a frame of another size or format, or
    ///   after ``flush()``; ``X264Error/Code/invalidTimestamp`` for a `pts` not after the
    ///   previous frame's or a timescale other than the first frame's;
    ///   ``X264Error/Code/invalidArgument`` for a buffering_period message, a pic_timing
    ///   without ``Options/pictureTiming``, or a message that cannot be written;
    ///   ``X264Error/Code/encoderFailure`` when x264 fails.
    public func encode(_ frame: VideoFrame, options: FrameEncodeOptions) throws(X264Error) -> [EncodedFrame] {
        let c = self.options
        guard frame.width == c.width, frame.height == c.height, frame.format == c.pixelFormat else {
            throw X264Error.invalid(.invalidArgument,
                "frame is \(frame.width)x\(frame.height) \(frame.format), encoder expects \(c.width)x\(c.height) \(c.pixelFormat)")
        }
        return try state.withLock { (s: inout State) throws(X264Error) -> [EncodedFrame] in
            guard !s.flushed else { throw X264Error.invalid(.invalidArgument, "encode after flush") }
            try s.timeline.check(frame)
            var input = frame
            if frame.format.isRGB {
                var scratch: VideoFrame
                if let existing = s.scratch { scratch = existing } else {
                    scratch = try X264Error.catchingH264 { () throws(H264Error) in
                        try VideoFrame(width: frame.width, height: frame.height, format: .i420)
                    }
                }
                s.scratch = nil
                do throws(H264VideoError) { try c.rgbConversion.convert(frame, into: &scratch) } catch {
                    throw X264Error.wrapping(error, as: .invalidArgument, "colour conversion")
                }
                input = scratch
                s.scratch = scratch
            }
            let sei = try FrameSEI(options.seiMessages, orientation: frame.orientation, configuration: c)
            var pic = x264_picture_t()
            x264_picture_init(&pic)
            // A keyframe due by the interval in seconds follows the open-GOP setting, as x264's own.
            let due = s.keyframes.isDue(frame.pts, timescale: frame.timescale)
            pic.i_type = options.forceKeyframe ? X264_TYPE_IDR : due ? X264_TYPE_KEYFRAME : X264_TYPE_AUTO
            pic.i_pts = frame.pts
            if !sei.perPicture.isEmpty { s.perPictureSEI[frame.pts] = sei.perPicture }
            let handle = s.session.handle
            let untimedSPS = s.session.untimedSPS
            let out: [EncodedFrame]
            do throws(X264Error) {
                out = try X264Encoder.withPicture(input, highDepth: c.profile == .high10, scratch: &s.highDepth, &pic) {
                    (pic: inout x264_picture_t) throws(X264Error) -> [EncodedFrame] in
                    // Attached last: from here x264 owns (and frees) the payloads.
                    X264Encoder.attach(sei.extraSEI, owner: seiOwner, to: &pic)
                    return try Session.encode(handle, &pic, timescale: frame.timescale, sps: untimedSPS)
                }
            } catch {
                s.perPictureSEI[frame.pts] = nil
                throw error
            }
            s.timeline.admit(frame)
            if options.forceKeyframe || due || s.keyframes.lastKeyframe == nil { s.keyframes.noteKeyframe(at: frame.pts) }
            for au in out where au.isRandomAccessPoint { s.keyframes.noteKeyframe(at: au.pts) }
            s.session.noteParameterSets(in: out)
            defer { s.pending = [] }
            return s.withPerPictureSEI(s.pending + out, log: log)
        }
    }

    /// Drains the frames x264 still holds. The encoder accepts no frames afterwards.
    ///
    /// - Throws: ``X264Error/Code/encoderFailure`` when x264 fails.
    public func flush() throws(X264Error) -> [EncodedFrame] {
        try state.withLock { (s: inout State) throws(X264Error) -> [EncodedFrame] in
            s.flushed = true
            let out = s.pending + (try s.session.drain(timescale: s.timeline.timescale))
            s.pending = []
            return s.withPerPictureSEI(out, log: log)
        }
    }

    /// Starts a new intra refresh cycle soon, instead of an IDR picture: the answer of a
    /// periodically refreshing stream to a receiver that lost pictures (a WebRTC picture loss
    /// indication), with no spike in picture size.
    ///
    /// x264 begins the cycle at the next P picture it encodes — behind the frames given by its
    /// lookahead (``delayedFrames``; none with ``Options/realTime``) — or, while a
    /// refresh wave is still moving across the picture, as soon as that wave ends
    /// (`x264_encoder_intra_refresh`). The new cycle's first access unit carries a recovery
    /// point SEI (`isRandomAccessPoint`), and the periodic cycles count from it. A
    /// stream without ``Options/periodicIntraRefresh`` recovers with an IDR picture
    /// instead: ask for one with `FrameEncodeOptions(forceKeyframe: true)`.
    /// - Throws: ``X264Error/Code/invalidArgument`` when the encoder does not refresh
    ///   periodically (``Options/periodicIntraRefresh`` off, or every picture intra), or
    ///   after ``flush()``.
    public func requestIntraRefresh() throws(X264Error) {
        guard self.options.periodicIntraRefresh, self.options.allowTemporalCompression else {
            throw X264Error.invalid(.invalidArgument,
                                    "an intra refresh needs periodicIntraRefresh; force a keyframe to recover without it")
        }
        try state.withLock { (s: inout State) throws(X264Error) in
            guard !s.flushed else { throw X264Error.invalid(.invalidArgument, "intra refresh requested after flush") }
            x264_encoder_intra_refresh(s.session.handle)
        }
    }

    /// Changes the target bitrate (bits per second) for the frames that follow: the average
    /// of an average-bitrate encoder, the rate of a constant or variable one. A quality-mode
    /// encoder becomes an average-bitrate encoder.
    ///
    /// The first change of an encoder that x264 cannot retarget in place reopens it (see
    /// "Bitrate changes" above); later changes are applied in place.
    /// - Throws: ``X264Error/Code/invalidArgument`` for a bitrate below 1000 or above 2e9, or
    ///   after ``flush()``; ``X264Error/Code/encoderFailure`` when x264 refuses.
    public func setAverageBitrate(_ bitsPerSecond: Int) throws(X264Error) {
        guard bitsPerSecond >= 1000, bitsPerSecond <= 2_000_000_000 else {
            throw X264Error.invalid(.invalidArgument, "average bitrate \(bitsPerSecond) must be 1000...2e9 bits/s")
        }
        try state.withLock { (s: inout State) throws(X264Error) in
            try retarget(&s, to: s.targets.changingBitrate(to: bitsPerSecond, current: s.session.plan))
        }
    }

    /// Replaces the data rate limits for the frames that follow; an empty array removes them.
    ///
    /// - Throws: ``X264Error/Code/invalidArgument`` for a malformed limit, or after
    ///   ``flush()``; ``X264Error/Code/unsupported`` for a constant-QP encoder (x264 keeps no
    ///   VBV in CQP); ``X264Error/Code/encoderFailure`` when x264 refuses.
    public func setDataRateLimits(_ limits: [DataRateLimit]) throws(X264Error) {
        try Options.validate(limits)
        try state.withLock { (s: inout State) throws(X264Error) in
            if case .constantQP = s.targets.rateControl, !limits.isEmpty {
                throw X264Error.invalid(.unsupported, "a constant QP cannot keep data rate limits (x264 ignores a VBV in CQP)")
            }
            var next = s.targets
            next.limits = limits
            try retarget(&s, to: next)
        }
    }

    /// Moves the running encoder to `targets`: in place when x264 can, otherwise by opening a
    /// new x264 encoder (at the old one's level) and draining the old one into `pending`.
    private func retarget(_ s: inout State, to targets: RateTargets) throws(X264Error) {
        guard !s.flushed else { throw X264Error.invalid(.invalidArgument, "rate change after flush") }
        let plan = self.options.ratePlan(targets, levelCPB: s.session.levelCPB)
        if s.session.plan.canReconfigure(to: plan) {
            try s.session.reconfigure(plan)
        } else {
            let next = try Session(self.options, plan: plan, levelIDC: s.session.levelIDC, log: log)
            var old = s.session
            s.session = next
            s.targets = targets
            defer { old.close() }
            s.pending += try old.drain(timescale: s.timeline.timescale)
        }
        s.targets = targets
    }
}
