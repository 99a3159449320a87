import H264

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

    /// The SEI insertion the arguments ask for, nil for none.
    static func seiInsertion(_ args: inout Arguments) throws -> SEIInserter? {
        var schedule = SEIInsertionSchedule()
        do {
            while let spec = try args.option("--insert-sei") { try schedule.add(parsing: spec) }
            if let path = try args.option("--captions") {
                try schedule.addCaptions(fromText: String(decoding: try Input.readAll(path), as: UTF8.self))
            }
            if let s = try args.option("--timecode") {
                let (text, fps) = try splitRate(s)
                schedule.timecode = .init(start: try SMPTETimecode(parsing: text), framesPerSecond: fps)
            }
            if let s = try args.option("--recovery-point") { try schedule.add(parsing: "recovery-point:" + s) }
        } catch let error as H264Error {
            throw CLIError(error.reason)
        }
        guard !schedule.isEmpty else { return nil }
        return SEIInserter(schedule: schedule, options: .init(setsPicStructPresent: schedule.timecode != nil))
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
