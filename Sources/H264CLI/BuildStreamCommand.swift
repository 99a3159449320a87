import CommandLineSupport
import H264
import H264Fixtures

/// `h264 build-stream`: writes a stream made by ``StreamBuilder`` (parameter sets from options,
/// pictures from a script), for fixtures and tests that need a stream no encoder makes.
enum BuildStreamCommand: CLICommand {
    static let name = "build-stream"
    static let finishesOnInterruption = true
    static let summary = "write a header-only test stream from a picture script"
    static let usage = """
    usage: h264 build-stream SCRIPT -o FILE [options]

    Builds SPS/PPS from the options and one access unit per picture of SCRIPT, each written
    as soon as it is built: Annex B (or AVCC with --avcc). Slice data is minimal: CAVLC P/B/SP slices skip every
    macroblock, CAVLC I/SI slices code them as grey I_PCM (so CAVLC streams decode), CABAC
    slices hold one filler bit.

    SCRIPT: pictures in decoding order, each I, P, B, SP or SI followed by modifiers:
      !  IDR      ~  recovery-point SEI     @N  POC        ^N  nal_ref_idc
      #N frame_num   xN  N slices   /t /b  top/bottom field   *  slice_type + 5
      e.g. 'I! P@4 B@2 P@8 B@6'  or  'I!/t P/b P/t B/b^0'

      --size WxH        size after cropping (default 64x48)
      --profile N       profile_idc (default 77)        --level N   level_idc (default 30)
      --poc-type N      pic_order_cnt_type 0, 1, 2 (default 0)
      --cabac           entropy_coding_mode_flag 1
      --interlaced      frame_mbs_only_flag 0 (field pictures allowed)
      --mbaff           mb_adaptive_frame_field_flag 1 (implies --interlaced)
      --fps N/D         VUI timing        --sar W:H   VUI sample aspect ratio
      --colour P,T,M    VUI colour description (full range with --full-range)
      --reorder N       VUI max_num_reorder_frames
      --aud             access unit delimiters    --slices N   default slices per picture
      --avcc N          write length-prefixed samples with N-byte lengths (1, 2, 4)
      --config FILE     with --avcc: also write the AVCDecoderConfigurationRecord
    """

    static func run(_ args: inout Arguments) throws {
        guard let output = try args.option("-o") else { throw CLIError("-o FILE is required") }
        let size = try args.option("--size") ?? "64x48"
        let wh = size.split(separator: "x").compactMap { Int($0) }
        guard wh.count == 2 else { throw CLIError("--size wants WxH") }
        var options = StreamBuilder.SequenceOptions(width: wh[0], height: wh[1])
        if let v = try args.intOption("--profile") { options.profileIDC = try uint8(v, "--profile") }
        if let v = try args.intOption("--level") { options.levelIDC = try uint8(v, "--level") }
        if let v = try args.intOption("--poc-type") { options.pocType = try uint8(v, "--poc-type") }
        options.cabac = args.flag("--cabac")
        options.mbaff = args.flag("--mbaff")
        options.frameMbsOnly = !(args.flag("--interlaced") || options.mbaff)
        if let fps = try args.option("--fps") {
            let p = fps.split(separator: "/").compactMap { UInt32($0) }
            guard p.count == 2 else { throw CLIError("--fps wants N/D") }
            options.frameRate = (p[0], p[1])
        }
        if let sar = try args.option("--sar") {
            let p = sar.split(separator: ":").compactMap { UInt16($0) }
            guard p.count == 2 else { throw CLIError("--sar wants W:H") }
            options.sampleAspectRatio = (p[0], p[1])
        }
        let fullRange = args.flag("--full-range")
        if let colour = try args.option("--colour") {
            let p = colour.split(separator: ",").compactMap { UInt8($0) }
            guard p.count == 3 else { throw CLIError("--colour wants P,T,M") }
            options.colorDescription = ColorDescription(primaries: p[0], transferCharacteristics: p[1],
                                                        matrixCoefficients: p[2], fullRange: fullRange)
        }
        if let v = try args.intOption("--reorder") {
            guard let r = UInt32(exactly: v) else { throw CLIError("--reorder wants a count") }
            options.maxNumReorderFrames = r
        }
        let aud = args.flag("--aud")
        let slices = try args.intOption("--slices") ?? 1
        let avcc = try args.intOption("--avcc")
        let config = try args.option("--config")
        let script = try args.positionals(min: 1, max: 1)[0]

        var builder = try StreamBuilder(options)
        builder.accessUnitDelimiters = aud
        var pictures = try StreamBuilder.pictures(script: script)
        for i in pictures.indices where pictures[i].sliceCount == 1 { pictures[i].sliceCount = slices }
        let lengthSize = try avcc.map { n throws(H264Error) in try AVCC.LengthSize(byteCount: n) }
        let file = try OutputFile(output)
        var configFile: OutputFile?
        if let lengthSize, let config {
            configFile = try OutputFile(config)
            try configFile?.write(builder.configuration(lengthSize: lengthSize).serialized())
        }
        try write(pictures, with: &builder, lengthSize: lengthSize, to: file.write)
        try configFile?.close()
        try file.close()
    }

    /// Builds `pictures` one access unit at a time and hands each to `write` as soon as it is
    /// built, as Annex-B or (with `lengthSize`) a length-prefixed sample: what is held is one
    /// access unit, whatever the stream's length (the builder keeps nothing). SIGINT or SIGTERM
    /// ends the stream after the access unit being built.
    static func write(_ pictures: [StreamBuilder.Picture], with builder: inout StreamBuilder, lengthSize: AVCC.LengthSize?,
                      to write: ([UInt8]) throws -> Void) throws {
        var bytes: [UInt8] = []
        for picture in pictures {
            if Interruption.isRequested { break }
            try builder.append(picture) { accessUnit in
                bytes.removeAll(keepingCapacity: true)
                if let lengthSize {
                    try StreamBuilder.appendAVCCSample(accessUnit, lengthSize: lengthSize, to: &bytes)
                } else {
                    for unit in accessUnit { AnnexB.append(unit, to: &bytes) }
                }
                try write(bytes)
            }
        }
    }

    private static func uint8(_ v: Int, _ name: String) throws -> UInt8 {
        guard let u = UInt8(exactly: v) else { throw CLIError("\(name) \(v) is out of range") }
        return u
    }
}
