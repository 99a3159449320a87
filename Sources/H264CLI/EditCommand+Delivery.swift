import CommandLineSupport
import H264
import H264Delivery

/// `h264 edit --for PROFILE IN OUT`: the fixes a delivery profile's check calls for, made
/// without re-encoding (a plan from a first pass, applied in a second).
enum DeliveryEdit {
    static func run(profileName: String, _ args: inout Arguments) throws {
        guard var profile = DeliveryProfile.named(profileName) else {
            throw CLIError("--for: '\(profileName)' is not one of webrtc, hls, rtmp, rtsp, spec")
        }
        try CheckCommand.configure(&profile, &args)
        let paths = try args.positionals(min: 2, max: 2)
        let input = try ChunkedInput(paths[0])
        input.framing = .annexB  // an interruption stops both passes after the same NAL unit
        guard input.isRewindable else { throw CLIError("--for reads IN twice (check, then fix): give a file, not '-'") }
        var checker = StreamChecker(profile: profile)
        while let chunk = try input.read() { checker.append(chunk) }
        checker.finish()
        let plan = profile.fixPlan(for: checker)
        try input.rewind()
        let output = try OutputFile(paths[1], notSameAs: input)
        var fixer = StreamFixer(plan: plan)
        var out: [UInt8] = []
        while let chunk = try input.read() {
            try fixer.append(chunk, to: &out)
            try output.write(out)
            out.removeAll(keepingCapacity: true)
        }
        try fixer.finish(to: &out)
        try output.write(out)
        try output.close()
        for item in plan.fixes { Output.error("fixed \(item.rule.id) (\(checker.counts[item.rule.id] ?? 0) access units): \(item.action)") }
        for item in plan.unfixable { Output.error("cannot fix \(item.rule.id) (\(checker.counts[item.rule.id] ?? 0) access units): \(item.action)") }
        if !checker.uncheckedRules.isEmpty {
            let ids = checker.uncheckedRules.map(\.id).joined(separator: ", ")
            Output.error("not checked in an Annex-B stream: \(ids) (FLV tags: 'h264 convert IN OUT.flv' sends a sequence "
                         + "header per change and flags keyframes from the bitstream)")
        }
        if checker.conforms { Output.error("\(profile.name): the stream conforms already; copied") }
        if fixer.insertedParameterSetCount > 0 { Output.error("\(fixer.insertedParameterSetCount) parameter set insertions") }
        if fixer.droppedSEICount > 0 { Output.error("\(fixer.droppedSEICount) SEI NAL units dropped") }
        if !plan.unfixable.isEmpty { throw CLIExitStatus(2) }
    }
}
