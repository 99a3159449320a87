import H264

/// `h264 convert`: Annex-B <-> AVCC (length-prefixed NAL units plus an avcC record file).
enum ConvertCommand: CLICommand {
    static let name = "convert"
    static let summary = "convert between Annex-B, AVCC (length-prefixed) and FLV"
    static let usage = """
    usage: h264 convert IN OUT --to avcc [--length-size 1|2|4] --avcc-config CONFIG_OUT [--keep-parameter-sets] [--lenient]
           h264 convert IN OUT --to annexb --avcc-config CONFIG_IN [--length-size N] [--aud insert]
           h264 convert IN OUT --to annexb [--aud insert]          (IN Annex-B or FLV)
           h264 convert IN.h264 OUT.flv [--fps R]
           h264 convert IN.flv OUT.h264 [--aud insert]
           h264 convert IN.h264 OUT.mp4 [--mp4-layout fast-start|media-first|fragmented] [--fps R]
           h264 convert IN.mp4 OUT.h264|OUT.flv

    AVCC files are raw concatenated length-prefixed NAL units (what
    `ffmpeg -i x.mp4 -map 0:v -c copy -f data x.avcc` writes); the avcC record (the MP4 avcC box
    payload, FFmpeg's extradata) lives in a separate file. IN and OUT may be - (stdin/stdout).

      --to avcc|annexb|flv     the output framing; without it, OUT ending in .flv means flv,
                               and an FLV IN (by its signature) means annexb
      --avcc-config FILE       the avcC record: written with --to avcc, read with --to annexb
                               (without it, --to annexb reads Annex-B or FLV input)
      --length-size N          NAL length size: 1, 2 or 4 (--to avcc: default 4;
                               --to annexb: default the record's)
      --keep-parameter-sets    --to avcc: leave SPS/PPS in band as well as in the record
      --lenient                --to avcc: skip bytes before the first start code
      --aud insert             --to annexb: put an access unit delimiter first in every access
                               unit that lacks one (primary_pic_type from its slice types)
      --fps R                  --to flv, --to mp4: frame rate for streams without VUI timing
      --mp4-layout L           --to mp4 (or OUT ending in .mp4): fast-start (moov first, the
                               default), media-first (moov last), fragmented (moov, then a
                               fragment per second: readable up to the last complete fragment)

    --to annexb from AVCC writes 4-byte start codes and puts the record's SPS/PPS at the start
    of every IDR access unit that lacks them (after an access unit delimiter, before any SEI).
    --to flv writes onMetaData (size, frame rate, duration), an AVC sequence header whenever the
    parameter sets change, one tag per access unit with its composition time (PTS - DTS, for
    B-frames) and keyframe flag, and the end-of-sequence tag. FLV -> Annex-B puts the sequence
    header's SPS/PPS before each keyframe that lacks them.
    """

    static func run(_ args: inout Arguments) throws {
        let toOption = try args.option("--to")
        let configPath = try args.option("--avcc-config")
        let lengthSize = try args.intOption("--length-size").map { n throws(H264Error) in try AVCC.LengthSize(byteCount: n) }
        let keep = args.flag("--keep-parameter-sets")
        let lenient = args.flag("--lenient")
        let aud = try args.option("--aud")
        let fps = try args.option("--fps").map(EncodeCommand.parseFrameRate)
        let mp4Layout = try MP4Conversion.layout(try args.option("--mp4-layout"), default: .fastStart)
        let paths = try args.positionals(min: 2, max: 2)
        var mp4Timing = TimestampAssigner.Configuration()
        if let fps { mp4Timing.frameRate = (Int64(fps.0), Int64(fps.1)) }
        if try MP4Conversion.convertIfMP4(input: paths[0], output: paths[1], to: toOption, layout: mp4Layout, timing: mp4Timing) {
            return
        }
        guard aud == nil || aud == "insert" else { throw CLIError("--aud takes 'insert', not '\(aud ?? "")'") }
        let input = try Input.readAll(paths[0])
        let inputIsFLV = FLVConversion.isFLV(input)
        guard let to = toOption ?? (paths[1].hasSuffix(".flv") ? "flv" : inputIsFLV ? "annexb" : nil) else {
            throw CLIError("--to avcc|annexb|flv is required (or OUT ending in .flv, or an FLV IN)")
        }
        guard aud == nil || to == "annexb" else { throw CLIError("--aud insert needs --to annexb") }
        switch to {
        case "avcc":
            guard let configPath else { throw CLIError("--to avcc needs --avcc-config FILE") }
            let result = try FormatConversion.annexBToAVCC(input[...], lengthSize: lengthSize ?? .four,
                                                           placement: keep ? .inBand : .outOfBand,
                                                           leadingData: lenient ? .skip : .reject)
            try Output.write(result.bytes, to: paths[1])
            try Output.write(result.configuration.serialized(), to: configPath)
        case "annexb":
            var out: [UInt8]
            if let configPath {
                let configuration = try AVCDecoderConfigurationRecord(parsing: try Input.readAll(configPath))
                out = try FormatConversion.avccToAnnexB(input[...], configuration: configuration, lengthSize: lengthSize)
            } else if inputIsFLV {
                out = try FLVConversion.flvToAnnexB(input)
            } else if aud != nil {
                out = input
            } else {
                throw CLIError("--to annexb needs --avcc-config FILE for AVCC input")
            }
            if aud != nil { out = try AUDInsertion.insert(into: out).bytes }
            try Output.write(out, to: paths[1])
        case "flv":
            guard !inputIsFLV else { throw CLIError("the input is already FLV") }
            var timing = TimestampAssigner.Configuration()
            if let fps { timing.frameRate = (Int64(fps.0), Int64(fps.1)) }
            try Output.write(try FLVConversion.annexBToFLV(input, timing: timing), to: paths[1])
        default:
            throw CLIError("--to must be avcc, annexb or flv, not '\(to)'")
        }
    }
}
