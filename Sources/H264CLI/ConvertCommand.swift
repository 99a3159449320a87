import CommandLineSupport
import FLV
import H264

/// `h264 convert`: Annex-B <-> AVCC (length-prefixed NAL units plus an avcC record file), FLV,
/// MP4 and MPEG-TS.
enum ConvertCommand: CLICommand {
    static let name = "convert"
    static let finishesOnInterruption = true
    static let summary = "convert between Annex-B, AVCC (length-prefixed), FLV, MP4 and MPEG-TS"
    static let usage = """
    usage: h264 convert IN OUT --to avcc [--length-size 1|2|4] --avcc-config CONFIG_OUT [--keep-parameter-sets] [--lenient]
           h264 convert IN OUT --to annexb --avcc-config CONFIG_IN [--length-size N] [--aud insert]
           h264 convert IN OUT --to annexb [--aud insert]          (IN Annex-B or FLV)
           h264 convert IN.h264 OUT.flv [--fps R]
           h264 convert IN.flv OUT.h264 [--aud insert]
           h264 convert IN.h264 OUT.mp4 [--mp4-layout fast-start|media-first|fragmented] [--fps R]
           h264 convert IN.mp4 OUT.h264|OUT.flv
           h264 convert IN.h264|IN.flv|IN.mp4 OUT.ts [--fps R]
           h264 convert IN.ts OUT.h264|OUT.mp4|OUT.flv|OUT.ts [--mp4-layout L]

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

    --to annexb from AVCC writes 4-byte start codes and puts the record's SPS/PPS that a random
    access point uses at its start when it lacks them (after an access unit delimiter, before
    any SEI; at most 256 KiB per access unit, and in all at most the input's size + 256 KiB).
    --to flv writes onMetaData (size, frame rate, duration), an AVC sequence header whenever the
    parameter sets change, one tag per access unit with its composition time (PTS - DTS, for
    B-frames) and keyframe flag, and the end-of-sequence tag. FLV -> Annex-B puts the sequence
    header's SPS/PPS that a keyframe uses before it when it lacks them (bounded as above).
    OUT ending in .ts (.m2ts, .mts; or --to ts) is an MPEG-TS of one program: PAT and PMT
    before every random access point and every 100 ms, H.264 as stream_type 0x1B on PID 0x100,
    one PES per access unit with its PTS (and DTS where it differs), the PCR on the video PID
    at most every 40 ms, an access unit delimiter first in every access unit. An Annex-B or
    FLV input is timed by its VUI (or --fps; FLV through its Annex-B, tag times not used), an
    MP4 by its samples' times. A transport stream IN (by its name or its first packets; 188-
    or 192-byte M2TS packets) gives the access units of its first H.264 stream, with their
    PES times: as Annex-B (OUT .h264, .264, or any other name), MP4 (.mp4; --mp4-layout), FLV
    (.flv) or a new TS (.ts); continuity errors and bytes skipped to find sync are reported on
    stderr, damaged access units kept, and an access unit without a PTS (not first in its
    PES) is skipped but for Annex-B.
    Files are read in chunks and written as they go; OUT is written under a temporary name
    (.OUT.partial-PID) and renamed when finished, removed if the conversion fails. Ctrl-C
    (SIGINT) or SIGTERM ends the input after the last whole NAL unit or tag read, and OUT is
    finished with it (exit status 0); a transport stream input ends after the last 1 MiB chunk
    read (IN may then be - too, unless OUT is an MP4).
    """

    static func run(_ args: inout Arguments) throws {
        let toOption = try args.option("--to")
        let configPath = try args.option("--avcc-config")
        let lengthSize = try args.intOption("--length-size").map { n throws(H264Error) in try AVCC.LengthSize(byteCount: n) }
        let keep = args.flag("--keep-parameter-sets")
        let lenient = args.flag("--lenient")
        let aud = try args.option("--aud")
        let fps = try args.rateOption("--fps", limit: 1000)
        let mp4Layout = try MP4Conversion.layout(try args.option("--mp4-layout"), default: .progressive(.fastStart))
        let paths = try args.positionals(min: 2, max: 2)
        var timing = TimestampOptions()
        if let fps { timing.frameRate = fps }
        // Opened once: what is peeked at of stdin stays in it for the conversion that takes it.
        let input = try ChunkedInput(paths[0])
        if try TSConversion.convertIfTransportStream(input, output: paths[1], to: toOption, mode: mp4Layout, timing: timing) {
            return
        }
        if try MP4Conversion.convertIfMP4(input: paths[0], output: paths[1], to: toOption, mode: mp4Layout, timing: timing) {
            return
        }
        guard aud == nil || aud == "insert" else { throw CLIError("--aud takes 'insert', not '\(aud ?? "")'") }
        let inputIsFLV = FLVConversion.isFLV(try input.peek(4))
        guard let to = toOption ?? (paths[1].hasSuffix(".flv") ? "flv" : inputIsFLV ? "annexb" : nil) else {
            throw CLIError("--to avcc|annexb|flv is required (or OUT ending in .flv, or an FLV IN)")
        }
        guard aud == nil || to == "annexb" else { throw CLIError("--aud insert needs --to annexb") }
        guard ["avcc", "annexb", "flv"].contains(to) else { throw CLIError("--to must be avcc, annexb or flv, not '\(to)'") }
        if to == "avcc" && configPath == nil { throw CLIError("--to avcc needs --avcc-config FILE") }
        if to == "annexb" && configPath == nil && !inputIsFLV && aud == nil {
            throw CLIError("--to annexb needs --avcc-config FILE for AVCC input")
        }
        if to == "flv" && inputIsFLV { throw CLIError("the input is already FLV") }
        // Everything streams: the input is read in chunks and the output written as it is made.
        // The chunks end on unit boundaries, where an interruption stops the input.
        let output = try OutputFile(paths[1], notSameAs: input)
        input.framing = inputIsFLV ? .flv : .annexB
        switch to {
        case "avcc":
            // The streaming form: the parser's NAL units through the AVCC writer, a chunk at a time.
            var parser = AnnexBStreamParser(leadingData: lenient ? .skip : .reject)
            var writer = FormatConversion.AVCCWriter(lengthSize: lengthSize ?? .four, placement: keep ? .inBand : .outOfBand)
            var out: [UInt8] = []
            var ended = false
            while !ended {
                if let chunk = try input.read() { parser.append(chunk) } else { parser.finish(); ended = true }
                while let unit = try parser.next() { try writer.add(unit, to: &out) }
                try output.write(out)
                out.removeAll(keepingCapacity: true)
            }
            try Output.write(try writer.configuration().serialized(), to: configPath ?? "")
        case "annexb":
            // With --aud insert, the Annex-B output goes through the header editor on its way out.
            var editor = aud != nil ? AnnexBStreamEditor(edits: { var e = HeaderEdits(); e.accessUnitDelimiters = .insert; return e }()) : nil
            let write = { (bytes: [UInt8]) throws in
                guard editor != nil else { return try output.write(bytes) }
                var out: [UInt8] = []
                try editor!.append(bytes[...], to: &out)
                try output.write(out)
            }
            if let configPath {
                let configuration = try AVCDecoderConfigurationRecord(parsing: try Input.readAll(configPath))
                input.framing = .lengthPrefixed((lengthSize ?? configuration.nalUnitLengthSize).byteCount)
                try FormatConversion.avccToAnnexB(configuration: configuration, lengthSize: lengthSize, read: input.read, write: write)
            } else if inputIsFLV {
                try FLVConversion.flvToAnnexB(read: input.read, write: write)
            } else {
                while let chunk = try input.read() { try write(Array(chunk)) }
            }
            if editor != nil {
                var out: [UInt8] = []
                try editor!.finish(to: &out)
                try output.write(out)
            }
        default:
            try FLVConversion.annexBToFLV(timing: timing, read: input.read, rewind: input.isRewindable ? input.rewind : nil,
                                          write: output.write)
        }
        try output.close()
    }
}
