import CommandLineSupport
import H264

/// `h264 edit`: re-write every header through the syntax writer, with optional edits.
enum EditCommand: CLICommand {
    static let name = "edit"
    static let finishesOnInterruption = true
    static let summary = "re-write SPS/PPS/slice headers, optionally editing VUI, level, crop, AUDs"
    static let usage = """
    usage: h264 edit IN|- OUT|- [edits]
           h264 edit --for webrtc|hls|rtmp|rtsp|spec IN OUT [--profile-level-id HEX ...]

    Parses and re-writes every SPS, PPS, AUD, filler and slice header, copying slice data
    unchanged after the header bits. Without edits the output is byte-identical to the input.
    A NAL unit that cannot be parsed (a slice naming a missing PPS ...) is copied unchanged,
    with a warning on standard error.

    edits (applied to every SPS):
      --sar W:H              sample aspect ratio (Table E-1 index when one matches)
      --frame-rate N/D       VUI timing: time_scale 2N, num_units_in_tick D, fixed frame rate
      --color-primaries N    colour_primaries
      --transfer N           transfer_characteristics
      --matrix N             matrix_coefficients
      --full-range 0|1       video_full_range_flag
      --level N              a level of Table A-1: 3.1 (or level_idc 31), 4, 1b
      --crop L,R,T,B         cropping in luma samples (multiples of the crop unit)
      --aud insert|remove    insert an access unit delimiter where one is missing, or remove all
      --remove-sei TYPE      remove SEI messages of a payload type, by name or number
                             (user_data_unregistered: x264's settings); may be repeated

    --for PROFILE checks IN against a delivery profile (as 'h264 check') and writes OUT with
    what can be fixed without re-encoding: parameter sets before IDRs, AUDs, level_idc,
    constraint flags, VUI bitstream_restriction, oversized SEI dropped. What cannot be fixed
    is reported with the encoder setting that avoids it (exit status 2).
    """ + insertSEIUsage

    static func run(_ args: inout Arguments) throws {
        if let profile = try args.option("--for") { return try DeliveryEdit.run(profileName: profile, &args) }
        var edits = HeaderEdits()
        if let s = try args.option("--sar") {
            let p = s.split(separator: ":", omittingEmptySubsequences: false).map { UInt16($0) }
            guard p.count == 2, let w = p[0], let h = p[1], w > 0, h > 0 else { throw CLIError("--sar: expected W:H, got '\(s)'") }
            edits.sampleAspectRatio = (w, h)
        }
        if let rate = try args.rateOption("--frame-rate", limit: Int64(UInt32.max / 2)) {
            edits.frameRate = (UInt32(rate.numerator), UInt32(rate.denominator))  // both checked to fit
        }
        edits.colourPrimaries = try byte(&args, "--color-primaries")
        edits.transferCharacteristics = try byte(&args, "--transfer")
        edits.matrixCoefficients = try byte(&args, "--matrix")
        if let s = try args.option("--full-range") {
            guard s == "0" || s == "1" else { throw CLIError("--full-range: expected 0 or 1") }
            edits.fullRange = s == "1"
        }
        if let s = try args.option("--level") {
            let level = try Self.level(s)
            if level.isLevel1b { edits.level1b = true } else { edits.levelIDC = level.levelIDC }
        }
        if let s = try args.option("--crop") {
            let p = s.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
            guard p.count == 4, p.allSatisfy({ ($0 ?? -1) >= 0 && ($0 ?? 0) <= 65536 }) else {
                throw CLIError("--crop: expected L,R,T,B in 0...65536, got '\(s)'")
            }
            edits.crop = p.compactMap { $0 }
        }
        if let s = try args.option("--aud") {
            switch s {
            case "insert": edits.accessUnitDelimiters = .insert
            case "remove": edits.accessUnitDelimiters = .remove
            default: throw CLIError("--aud: expected insert or remove")
            }
        }
        for name in try args.values("--remove-sei") {
            guard let type = SEIPayloadType(name: name) else {
                throw CLIError("--remove-sei: '\(name)' is not an SEI payload type name or number")
            }
            edits.removedSEIPayloadTypes.insert(type)
        }
        var (inserter, timecodeCheck) = try seiInsertion(&args)
        let paths = try args.positionals(min: 2, max: 2)
        // The input is read in chunks and the output written as it is made.
        let input = try ChunkedInput(paths[0])
        input.framing = .annexB  // an interruption stops the input after a whole NAL unit
        let output = try OutputFile(paths[1], notSameAs: input)
        var editor = AnnexBStreamEditor(edits: edits)
        var out: [UInt8] = []
        while let chunk = try input.read() {
            try editor.append(chunk, to: &out)
            try pass(&out, through: &inserter, finishing: false)
            try timecodeCheck?.verify()
            try output.write(out)
            out.removeAll(keepingCapacity: true)
        }
        try editor.finish(to: &out)
        try pass(&out, through: &inserter, finishing: true)
        try timecodeCheck?.verify()
        try output.write(out)
        try output.close()
        for u in editor.unparsed.prefix(10) {
            Output.error("warning: NAL unit \(u.index) copied unchanged: \(u.error.code): \(u.error.reason)")
        }
        if editor.unparsedCount > 10 { Output.error("warning: \(editor.unparsedCount) NAL units copied unchanged in all") }
        reportInsertion(inserter)
    }

    /// A level of Table A-1 (`ProfileLevel.Level.all`) as Table A-1 names it (`1b`, `3.1`, `4`,
    /// `4.0`) or as its `level_idc` (`31`, `40`; `9` is level 1b).
    static func level(_ text: String) throws -> ProfileLevel.Level {
        if let level = ProfileLevel.Level(text) { return level }
        let names = ProfileLevel.Level.all.map(\.name).joined(separator: ", ")
        throw CLIError("--level: '\(text)' is not a level of Table A-1 (\(names), or level_idc 10...62)")
    }

    private static func byte(_ args: inout Arguments, _ name: String) throws -> UInt8? {
        guard let s = try args.option(name) else { return nil }
        guard let v = UInt8(s) else { throw CLIError("\(name): '\(s)' is not in 0...255") }
        return v
    }
}
