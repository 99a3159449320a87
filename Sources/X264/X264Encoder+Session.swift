internal import CX264
import H264

extension X264Encoder {
    /// One open `x264_t` with the rate plan it runs and what it chose at open. A value type
    /// whose ``close()`` must be called exactly once, by the encoder that owns it.
    struct Session {
        let handle: OpaquePointer
        private(set) var plan: RatePlan
        /// `i_level_idc` x264 settled on (9 for level 1b); a reopened encoder keeps it.
        let levelIDC: Int
        /// The level's largest VBV buffer for this profile, in kbit (as x264 checks it).
        let levelCPB: Int32?
        /// `x264_encoder_maximum_delayed_frames`: the most frames this encoder holds.
        let maximumFrameDelay: Int
        private(set) var parameterSets: [NALUnit]
        /// The SPS written in place of x264's, without VUI timing, when the configuration does
        /// not claim a frame rate (``Options/writesTiming(_:)``); nil keeps x264's.
        let untimedSPS: [UInt8]?

        /// Opens x264 with `configuration` and `plan`, at `levelIDC` when given.
        /// - Throws: ``X264Error/Code/encoderFailure`` with x264's error messages.
        init(_ configuration: Options, plan: RatePlan, levelIDC: Int?, log: X264Log) throws(X264Error) {
            var p = try configuration.makeParameters(plan, levelIDC: levelIDC)
            log.install(in: &p)
            p.i_log_level = Int32(configuration.logHandler == nil ? LogLevel.error.rawValue : configuration.logLevel.rawValue)
            log.errors.withLock { $0.removeAll() }
            guard let handle = cx264_encoder_open(&p) else {
                let messages = log.errors.withLock { $0 }
                throw X264Error.invalid(.encoderFailure,
                    "x264_encoder_open failed" + (messages.isEmpty ? "" : ": " + messages.joined(separator: "; ")))
            }
            self.handle = handle
            self.plan = plan
            var chosen = x264_param_t()
            x264_encoder_parameters(handle, &chosen)
            self.levelIDC = Int(chosen.i_level_idc)
            maximumFrameDelay = Int(x264_encoder_maximum_delayed_frames(handle))
            if let n = configuration.maxFrameDelayCount, maximumFrameDelay > n {
                x264_encoder_close(handle)
                throw X264Error.invalid(.encoderFailure, "x264 would hold \(maximumFrameDelay) frames, more than the \(n) allowed")
            }
            // Before any frame, x264_encoder_headers is safe (see reconfigure(_:)).
            var sets = Session.headers(handle)
            var untimed: [UInt8]?
            if !configuration.writesTiming(plan), let i = sets.firstIndex(where: { $0.type == .sps }),
               let replacement = Self.withoutTiming(sets[i]) {
                sets[i] = replacement
                untimed = Array(replacement.bytes)
            }
            parameterSets = sets
            untimedSPS = untimed
            let profileIDC = Self.sps(in: parameterSets)?.profileIDC ?? 100
            levelCPB = Self.levelCPB(levelIDC: self.levelIDC, profileIDC: profileIDC)
        }

        func close() { x264_encoder_close(handle) }

        /// x264's parameters as it runs them (after its own adjustments).
        var parameters: x264_param_t {
            var p = x264_param_t()
            x264_encoder_parameters(handle, &p)
            return p
        }

        /// Applies `next` through `x264_encoder_reconfig` (the caller checked
        /// ``RatePlan/canReconfigure(to:)``).
        mutating func reconfigure(_ next: RatePlan) throws(X264Error) {
            var p = parameters
            next.apply(to: &p)
            guard x264_encoder_reconfig(handle, &p) >= 0 else {
                throw X264Error.invalid(.encoderFailure, "x264_encoder_reconfig failed")
            }
            plan = next
            // Not x264_encoder_headers: once frames are in flight it writes into the output
            // buffer of a frame thread (losing or mangling a frame). A rate change in place does
            // not change the SPS or PPS (no NAL HRD here); in-band ones are taken as they come.
        }

        /// Keeps the parameter sets of `units` (in-band SPS and PPS) as the current ones.
        mutating func noteParameterSets(in units: [EncodedFrame]) {
            for au in units where au.flags.hasParameterSets {
                let sets = au.nalUnits.filter { $0.type == .sps || $0.type == .pps }
                if sets.contains(where: { $0.type == .sps }) && sets.contains(where: { $0.type == .pps }) { parameterSets = sets }
            }
        }

        /// Encodes nothing until x264 holds no more frames; what came out, in decoding order.
        mutating func drain(timescale: Int32) throws(X264Error) -> [EncodedFrame] {
            var out: [EncodedFrame] = []
            while x264_encoder_delayed_frames(handle) > 0 {
                out += try Session.encode(handle, nil, timescale: timescale, sps: untimedSPS)
            }
            noteParameterSets(in: out)
            return out
        }

        /// `unit`, an SPS, without VUI timing info (`timing_info_present_flag` 0); nil when it
        /// has none or does not parse.
        static func withoutTiming(_ unit: NALUnit) -> NALUnit? {
            guard var sps = try? SequenceParameterSet(rbsp: unit.rbsp), sps.vuiParametersPresentFlag,
                  sps.vui.timingInfoPresentFlag, let header = unit.bytes.first else { return nil }
            sps.vui.timingInfoPresentFlag = false
            sps.vui.numUnitsInTick = 0
            sps.vui.timeScale = 0
            sps.vui.fixedFrameRateFlag = false
            // Without HRD parameters low_delay_hrd_flag is inferred as 1 - fixed_frame_rate_flag (E.2.1).
            if sps.vui.nalHRD == nil && sps.vui.vclHRD == nil { sps.vui.lowDelayHRDFlag = true }
            guard let rbsp = try? sps.rbsp() else { return nil }
            return try? NALUnit([header] + EmulationPrevention.ebsp(from: rbsp))
        }

        /// The first SPS of `units`, parsed.
        static func sps(in units: [NALUnit]) -> SequenceParameterSet? {
            units.first { $0.type == .sps }.flatMap { try? SequenceParameterSet(rbsp: $0.rbsp) }
        }

        /// x264's VBV buffer limit for a level (its `x264_validate_levels`): the level's MaxCPB
        /// scaled for the profile, in kbit.
        static func levelCPB(levelIDC: Int, profileIDC: UInt8) -> Int32? {
            let factor: Int32 = profileIDC >= 122 ? 16 : profileIDC == 110 ? 12 : profileIDC == 100 ? 5 : 4
            var level = cx264_levels()
            while let l = level?.pointee, l.level_idc != 0 {
                if Int(l.level_idc) == levelIDC { return Int32(clamping: Int(l.cpb) * Int(factor) / 4) }
                level = level?.successor()
            }
            return nil
        }

        private static func headers(_ handle: OpaquePointer) -> [NALUnit] {
            var nals: UnsafeMutablePointer<x264_nal_t>? = nil
            var count: Int32 = 0
            guard x264_encoder_headers(handle, &nals, &count) >= 0, let nals else { return [] }
            var units: [NALUnit] = []
            for i in 0..<Int(count) {
                let n = nals[i]
                guard n.i_type == 7 || n.i_type == 8, let body = payload(n) else { continue }
                let bytes = Array(body)
                if let unit = try? NALUnit(bytes) { units.append(unit) }
            }
            return units
        }

        /// A NAL unit's bytes without its start code (`b_annexb` = 1: four bytes when
        /// `b_long_startcode`, else three); nil for an empty one.
        private static func payload(_ n: x264_nal_t) -> UnsafeBufferPointer<UInt8>? {
            let prefix = n.b_long_startcode != 0 ? 4 : 3
            guard n.i_payload > prefix, let base = n.p_payload else { return nil }
            return UnsafeBufferPointer(start: base + prefix, count: Int(n.i_payload) - prefix)
        }

        /// One `x264_encoder_encode` call (nil picture: drain); the output as an access unit,
        /// with `sps` in place of x264's SPS when given.
        static func encode(_ handle: OpaquePointer, _ pic: UnsafeMutablePointer<x264_picture_t>?,
                           timescale: Int32, sps: [UInt8]?) throws(X264Error) -> [EncodedFrame] {
            var nals: UnsafeMutablePointer<x264_nal_t>? = nil
            var count: Int32 = 0
            var out = x264_picture_t()
            let size = x264_encoder_encode(handle, &nals, &count, pic, &out)
            guard size >= 0 else { throw X264Error.invalid(.encoderFailure, "x264_encoder_encode failed") }
            guard size > 0, let nals, count > 0 else { return [] }
            var storage: [UInt8] = []
            storage.reserveCapacity(Int(size))
            var ranges: [Range<Int>] = []
            for i in 0..<Int(count) {
                guard let body = payload(nals[i]) else { continue }
                let start = storage.count
                if let sps, nals[i].i_type == 7 { storage.append(contentsOf: sps) } else { storage.append(contentsOf: body) }
                ranges.append(start..<storage.count)
            }
            return [try X264Error.catchingH264 { () throws(H264Error) in
                try EncodedFrame(storage: storage, ranges: ranges, pts: out.i_pts, dts: out.i_dts, timescale: timescale)
            }]
        }

        static func encode(_ handle: OpaquePointer, _ pic: inout x264_picture_t,
                           timescale: Int32, sps: [UInt8]?) throws(X264Error) -> [EncodedFrame] {
            try withUnsafeMutablePointer(to: &pic) { (p: UnsafeMutablePointer<x264_picture_t>) throws(X264Error) -> [EncodedFrame] in
                try encode(handle, p, timescale: timescale, sps: sps)
            }
        }
    }
}
