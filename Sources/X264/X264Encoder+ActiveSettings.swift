internal import CX264
import H264

extension X264Encoder {
    /// What an open encoder actually does, read back from x264 and from its parameter sets:
    /// the profile and level it signals, how many frames it may hold, and the rate control it
    /// runs now (VideoToolbox's readable properties).
    public struct ActiveSettings: Hashable, Sendable {
        /// `profile_idc` of the SPS (66 baseline, 77 main, 100 high, 110, 122, 244).
        public var profileIDC: Int
        /// The profile of ``profileIDC``; nil for a value x264 does not produce.
        public var profile: Profile?
        /// `level_idc` of the SPS (level 1b of Baseline and Main is 11 with
        /// `constraint_set3_flag`, as the specification signals it).
        public var levelIDC: Int
        /// The most frames the encoder holds before the access unit of a frame comes out
        /// (`x264_encoder_maximum_delayed_frames`: lookahead, B-frames, frame threads).
        public var maximumFrameDelay: Int
        /// The entropy coding of the PPS.
        public var entropyMode: EntropyMode
        /// `max_num_ref_frames` of the SPS.
        public var referenceFrameCount: Int
        /// The most consecutive B-frames x264 may code.
        public var maxConsecutiveBFrames: Int
        /// Frames of rate-control lookahead.
        public var lookaheadFrameCount: Int
        /// Frame threads (frames coded in parallel); 1 with sliced threads or one thread.
        public var frameThreads: Int
        /// The rate control asked for now (after ``X264Encoder/setAverageBitrate(_:)``).
        public var rateControl: RateControl
        /// The data rate limits asked for now.
        public var dataRateLimits: [DataRateLimit]
        /// The VBV x264 runs now; nil without one.
        public var vbv: VBV?

        /// A video buffering verifier: a buffer of `bufferBits` that fills at `maxBitrate`.
        public struct VBV: Hashable, Sendable {
            /// The rate the buffer fills at, bits per second (`vbv-maxrate`).
            public var maxBitrate: Int
            /// The buffer size in bits (`vbv-bufsize`).
            public var bufferBits: Int
        }

        init(_ session: Session, _ targets: RateTargets) {
            let p = session.parameters
            let sps = Session.sps(in: session.parameterSets)
            let pps = session.parameterSets.first { $0.type == .pps }.flatMap { unit in
                try? PictureParameterSet(rbsp: unit.rbsp, context: sps.map { ParameterSetStore(sps: $0) } ?? ParameterSetStore())
            }
            let profileIDC = Int(sps?.profileIDC ?? 0)
            self.profileIDC = profileIDC
            profile = Profile.allCases.first { $0.profileIDC == profileIDC }
            levelIDC = Int(sps?.levelIDC ?? 0)
            maximumFrameDelay = session.maximumFrameDelay
            entropyMode = pps?.entropyCodingModeFlag == true ? .cabac : .cavlc
            referenceFrameCount = Int(sps?.maxNumRefFrames ?? 0)
            maxConsecutiveBFrames = Int(p.i_bframe)
            lookaheadFrameCount = Int(p.rc.i_lookahead)
            frameThreads = p.b_sliced_threads != 0 ? 1 : Int(p.i_threads)
            rateControl = targets.rateControl
            dataRateLimits = targets.limits
            if p.rc.i_vbv_max_bitrate > 0 && p.rc.i_vbv_buffer_size > 0 {
                vbv = VBV(maxBitrate: Int(p.rc.i_vbv_max_bitrate) * 1000, bufferBits: Int(p.rc.i_vbv_buffer_size) * 1000)
            }
        }
    }
}
