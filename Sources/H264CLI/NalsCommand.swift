import CommandLineSupport
import H264

/// `h264 nals`: one line per NAL unit.
enum NalsCommand: CLICommand {
    static let name = "nals"
    static let summary = "list the NAL units of an Annex-B stream"
    static let usage = """
    usage: h264 nals FILE|- [--json] [--lenient]

    One line per NAL unit: byte offset of the NAL header, size (without start code),
    nal_unit_type, nal_ref_idc and the type's name (Table 7-1). A NAL unit whose header is
    invalid (forbidden_zero_bit set), or that is longer than 64 MiB, is listed at its offset as
    an error; the listing goes on. The input is read in chunks: memory does not grow with its size.

      --json      JSON Lines with keys offset, size, nal_unit_type, nal_ref_idc (an invalid
                  NAL unit: offset, error, reason)
      --lenient   skip bytes before the first start code instead of failing
    """

    static func run(_ args: inout Arguments) throws {
        let json = args.flag("--json")
        let lenient = args.flag("--lenient")
        let path = try args.positionals(min: 1, max: 1)[0]
        let input = try ChunkedInput(path)
        if !json { Output.line("offset      size  type ref  name") }
        var parser = AnnexBStreamParser(leadingData: lenient ? .skip : .reject)
        try parser.run(read: input.read, problem: { error, at in
            if error.code == .missingStartCode { throw error }
            listInvalid(at: at.offset, error, json: json)
        }, body: { unit, at in
            list(unit, at: at.offset, json: json)
        })
    }

    private static func list(_ unit: NALUnit, at offset: Int, json: Bool) {
        if json {
            var o = JSONObject()
            o.add("offset", offset)
            o.add("size", unit.count)
            o.add("nal_unit_type", Int(unit.type.rawValue))
            o.add("nal_ref_idc", Int(unit.nalRefIdc))
            Output.line(o.rendered)
        } else {
            let cols = [pad(String(offset), 10), pad(String(unit.count), 9), pad(String(unit.type.rawValue), 5),
                        pad(String(unit.nalRefIdc), 4)]
            Output.line(cols.joined() + "  " + unit.type.name)
        }
    }

    private static func listInvalid(at offset: Int, _ error: H264Error, json: Bool) {
        if json {
            var o = JSONObject()
            o.add("offset", offset)
            o.add("error", error.code.description)
            o.add("reason", error.reason)
            Output.line(o.rendered)
        } else {
            Output.line(pad(String(offset), 10) + "  invalid NAL unit: \(error.code): \(error.reason)")
        }
    }

    private static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : String(repeating: " ", count: width - s.count) + s
    }
}
