import CommandLineSupport
import H264
import Synchronization

/// `h264 edit`'s SEI insertion options: they build an `SEIInsertionSchedule` and the output
/// of the header editor goes through an `SEIInserter`.
extension EditCommand {
    static let insertSEIUsage = "\n" + """

    SEI insertion (frames are counted in presentation order from 0, as ffprobe -show_frames
    counts them; FRAMES is N, A-B, A- or *, each with an optional /STEP, joined by commas):
      --insert-sei user-data-unregistered:UUID:HEX[@FRAMES]
                             a UUID (32 hex digits, dashes allowed) and payload bytes in hex;
                             every frame without @FRAMES; may be repeated
      --insert-sei user-data-registered:HEX[@FRAMES]
                             ITU-T T.35 country code (and extension byte after ff) and payload
      --captions FILE        ATSC A/53 closed captions (CEA-608/708 cc_data) from a caption list:
                             lines 'FRAME: fc 94 20 ...' (cc_data constructs, 3 bytes each, hex)
                             or 'FRAME: "TEXT"' (CEA-608 characters, two per frame); '#' comments
      --timecode HH:MM:SS:FF[@FPS]
                             a pic_timing time code on every frame, counting up at FPS (default:
                             the stream's VUI frame rate, else 25); sets pic_struct_present_flag
                             in the SPS when it is missing
      --recovery-point N[@FRAMES]
                             a recovery point (recovery_frame_cnt N) on FRAMES, or on every
                             I picture that is not an IDR picture
    """

    /// The SEI insertion the arguments ask for, nil for none, and for a time code counting
    /// at the stream's rate the check of its frame field against that rate.
    static func seiInsertion(_ args: inout Arguments) throws -> (inserter: SEIInserter?, timecodeCheck: TimecodeRateCheck?) {
        var schedule = SEIInsertionSchedule()
        var check: TimecodeRateCheck?
        do {
            for spec in try args.values("--insert-sei") { try schedule.add(parsing: spec) }
            if let path = try args.option("--captions") {
                try schedule.addCaptions(fromText: String(decoding: try Input.readAll(path), as: UTF8.self))
            }
            if let s = try args.option("--timecode") {
                let (text, fps) = try splitRate(s)
                let start = try SMPTETimecode(parsing: text)
                if let fps, Int(start.frames) >= fps {
                    throw CLIError("--timecode: frame \(start.frames) of '\(text)' is not below the frame rate \(fps) (0...\(fps - 1))")
                }
                if fps == nil { check = TimecodeRateCheck(frames: Int(start.frames)) }
                schedule.timecode = .init(start: start, framesPerSecond: fps)
            }
            if let s = try args.option("--recovery-point") { try schedule.add(parsing: "recovery-point:" + s) }
        } catch let error as H264Error {
            throw CLIError(error.reason)
        }
        guard !schedule.isEmpty else { return (nil, nil) }
        let options = SEIInserter.Options(setsPicStructPresent: schedule.timecode != nil)
        guard let check else { return (SEIInserter(schedule: schedule, options: options), nil) }
        return (SEIInserter(options: options) { [schedule] point in
            check.note(rate: point.framesPerSecond ?? 25)  // the schedule's default rate
            return schedule.messages(for: point)
        }, check)
    }

    /// A time code's frame field checked against the stream's frame rate, known only as the
    /// pictures come (the VUI's): the schedule would count from frame `rate - 1` instead.
    final class TimecodeRateCheck: Sendable {
        let frames: Int
        /// A rate the frame field is not below (0: none so far).
        private let failedRate = Atomic<Int>(0)

        init(frames: Int) { self.frames = frames }

        func note(rate: Int) {
            if frames >= rate { failedRate.store(rate, ordering: .relaxed) }
        }

        /// Throws once a picture's rate was at or below the frame field.
        func verify() throws {
            let rate = failedRate.load(ordering: .relaxed)
            guard rate != 0 else { return }
            throw CLIError("--timecode: frame \(frames) is not below the stream's frame rate \(rate); give the rate with @FPS")
        }
    }

    private static func splitRate(_ s: String) throws -> (String, Int?) {
        guard let at = s.lastIndex(of: "@") else { return (s, nil) }
        guard let fps = Int(s[s.index(after: at)...]), (1...255).contains(fps) else {
            throw CLIError("--timecode: the frame rate after @ is a whole number in 1...255")
        }
        return (String(s[..<at]), fps)
    }

    /// Hands `bytes` (the header editor's output) to the inserter when there is one.
    static func pass(_ bytes: inout [UInt8], through inserter: inout SEIInserter?, finishing: Bool) throws {
        guard var sei = inserter else { return }
        var out: [UInt8] = []
        try sei.append(bytes[...], to: &out)
        if finishing { try sei.finish(to: &out) }
        bytes = out
        inserter = sei
    }

    static func reportInsertion(_ inserter: SEIInserter?) {
        guard let inserter else { return }
        for p in inserter.problems.prefix(10) {
            Output.error("warning: \(p.decodeIndex.map { "picture \($0) (decoding order): " } ?? "")\(p.error.reason)")
        }
        if inserter.problemCount > 10 { Output.error("warning: \(inserter.problemCount) SEI insertion problems in all") }
    }
}
