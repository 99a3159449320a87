import H264

/// `h264 convert`: Annex-B <-> AVCC (length-prefixed NAL units plus an avcC record file).
enum ConvertCommand: CLICommand {
    static let name = "convert"
    static let summary = "convert between Annex-B and AVCC (length-prefixed) framing"
    static let usage = """
    usage: h264 convert IN OUT --to avcc [--length-size 1|2|4] --avcc-config CONFIG_OUT [--keep-parameter-sets] [--lenient]
           h264 convert IN OUT --to annexb --avcc-config CONFIG_IN [--length-size N]

    AVCC files are raw concatenated length-prefixed NAL units (what
    `ffmpeg -i x.mp4 -map 0:v -c copy -f data x.avcc` writes); the avcC record (the MP4 avcC box
    payload, FFmpeg's extradata) lives in a separate file. IN and OUT may be - (stdin/stdout).

      --to avcc|annexb         the output framing
      --avcc-config FILE       the avcC record: written with --to avcc, read with --to annexb
      --length-size N          NAL length size: 1, 2 or 4 (--to avcc: default 4;
                               --to annexb: default the record's)
      --keep-parameter-sets    --to avcc: leave SPS/PPS in band as well as in the record
      --lenient                --to avcc: skip bytes before the first start code

    --to annexb writes 4-byte start codes and puts the record's SPS/PPS at the start of every
    IDR access unit that lacks them (after an access unit delimiter, before any SEI).
    """

    static func run(_ args: inout Arguments) throws {
        guard let to = try args.option("--to") else { throw CLIError("--to avcc|annexb is required") }
        guard let configPath = try args.option("--avcc-config") else { throw CLIError("--avcc-config FILE is required") }
        let lengthSize = try args.intOption("--length-size").map { n throws(H264Error) in try AVCC.LengthSize(byteCount: n) }
        let keep = args.flag("--keep-parameter-sets")
        let lenient = args.flag("--lenient")
        let paths = try args.positionals(min: 2, max: 2)
        let input = try Input.readAll(paths[0])
        switch to {
        case "avcc":
            let result = try FormatConversion.annexBToAVCC(input[...], lengthSize: lengthSize ?? .four,
                                                           placement: keep ? .inBand : .outOfBand,
                                                           leadingData: lenient ? .skip : .reject)
            try Output.write(result.bytes, to: paths[1])
            try Output.write(result.configuration.serialized(), to: configPath)
        case "annexb":
            let configuration = try AVCDecoderConfigurationRecord(parsing: try Input.readAll(configPath))
            let out = try FormatConversion.avccToAnnexB(input[...], configuration: configuration, lengthSize: lengthSize)
            try Output.write(out, to: paths[1])
        default:
            throw CLIError("--to must be avcc or annexb, not '\(to)'")
        }
    }
}
