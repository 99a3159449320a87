import CommandLineSupport
import FLV
import H264
import H264Delivery

/// `h264 check`: a stream against a delivery profile's rules.
enum CheckCommand: CLICommand {
    static let name = "check"
    static let summary = "check a stream against a delivery profile (webrtc, rtmp, hls, rtsp, spec)"
    static let usage = """
    usage: h264 check --profile webrtc|rtmp|hls|rtsp|spec FILE|- [--json] [options]

    Checks an Annex-B stream or the H.264 video of an FLV file (recognised by its first bytes;
    each tag's keyframe flag and the sequence headers are checked too), access unit by access
    unit, against the rules of a delivery profile, and reports every violation with the access unit (index in decoding order), the
    rule, its clause and the fix. Exit status 0 when the stream conforms, 2 when it does not,
    1 for errors.

      --json                     JSON Lines: one object per violation (rule, access_unit,
                                 message, clause, fix, remedy), then {"summary": {...}}
      --profile-level-id HEX     the profile-level-id the SDP negotiated (webrtc, rtsp)
      --level-asymmetry-allowed  both sides said level-asymmetry-allowed=1
      --mtu N                    path MTU in bytes (webrtc 1200, rtsp 1400)
      --max-sei-bytes N          largest SEI NAL unit accepted (webrtc 1100)
      --keyframe-interval S      longest time between IDRs in seconds (hls 2)

    'h264 check --rules' lists every profile's rules with their clauses.
    """

    static func run(_ args: inout Arguments) throws {
        if args.flag("--rules") { return listRules() }
        let json = args.flag("--json")
        guard let name = try args.option("--profile") else { throw CLIError("--profile is required (webrtc, rtmp, hls, rtsp, spec)") }
        guard var profile = DeliveryProfile.named(name) else {
            throw CLIError("--profile: '\(name)' is not one of webrtc, rtmp, hls, rtsp, spec")
        }
        try configure(&profile, &args)
        let path = try args.positionals(min: 1, max: 1)[0]
        let input = try ChunkedInput(path)
        let checker: StreamChecker
        if FLVConversion.isFLV(try input.peek(16)) {
            var flv = FLVStreamChecker(profile: profile)
            while let chunk = try input.read() { try flv.append(chunk) }
            try flv.finish()
            checker = flv.checker
        } else {
            var annexB = StreamChecker(profile: profile)
            while let chunk = try input.read() { annexB.append(chunk) }
            annexB.finish()
            checker = annexB
        }
        if checker.accessUnitCount == 0 {
            throw checker.errors.first.map { CLIError("no access unit: \(CLI.message(for: $0))") } ?? CLIError("no access unit in '\(path)'")
        }
        json ? printJSON(checker) : printText(checker)
        if !checker.conforms { throw CLIExitStatus(2) }
    }

    /// The session options shared with `edit --for`.
    static func configure(_ profile: inout DeliveryProfile, _ args: inout Arguments) throws {
        if let s = try args.option("--profile-level-id") {
            profile.negotiated = try ProfileLevel(parsing: s)
        }
        if args.flag("--level-asymmetry-allowed") { profile.levelAsymmetryAllowed = true }
        if let mtu = try args.intOption("--mtu", in: 64...65535) { profile.mtu = mtu }
        if let n = try args.intOption("--max-sei-bytes", in: 0...(1 << 30)) { profile.maximumSEIBytes = n }
        if let s = try args.option("--keyframe-interval") {
            guard let v = Double(s), v > 0, v <= 86400 else { throw CLIError("--keyframe-interval: '\(s)' is not a duration in seconds") }
            profile.maximumKeyframeInterval = v
        }
    }

    private static func printText(_ c: StreamChecker) {
        for v in c.violations { Output.line(v.description) }
        if c.droppedViolationCount > 0 { Output.line("... \(c.droppedViolationCount) more violations not listed") }
        for e in c.errors { Output.line("error in the stream: \(CLI.message(for: e))") }
        // A blank line between the list and the summary, when there is a list.
        if !c.violations.isEmpty || !c.errors.isEmpty { Output.line("") }
        let broken = c.profile.rules.filter { (c.counts[$0.id] ?? 0) > 0 }
        for rule in broken {
            Output.line("\(rule.id): \(c.counts[rule.id] ?? 0) access unit(s): \(rule.summary)")
            Output.line("  clause: \(rule.clause)")
            Output.line("  fix: \(rule.fix)")
        }
        let unchecked = c.uncheckedRules
        if !unchecked.isEmpty {
            Output.line("not checked (need a container's keyframe flags and sequence headers): " + unchecked.map(\.id).joined(separator: ", "))
        }
        Output.line(c.conforms
                    ? "\(c.profile.name): conforms (\(c.accessUnitCount) access units, \(c.profile.rules.count - unchecked.count) rules)"
                    : "\(c.profile.name): does not conform: \(broken.count) rule(s) broken in \(c.accessUnitCount) access units")
    }

    private static func printJSON(_ c: StreamChecker) {
        for v in c.violations {
            var o = JSONObject()
            o.add("rule", v.rule.id)
            o.add("access_unit", v.accessUnit)
            if let offset = v.byteOffset { o.add("offset", offset) }
            o.add("message", v.message)
            o.add("clause", v.rule.clause)
            o.add("fix", v.rule.fix)
            o.add("remedy", v.rule.remedy.rawValue)
            Output.line(o.rendered)
        }
        var counts = JSONObject()
        for rule in c.profile.rules where (c.counts[rule.id] ?? 0) > 0 { counts.add(dynamicKey: rule.id, c.counts[rule.id] ?? 0) }
        var s = JSONObject()
        s.add("profile", c.profile.name)
        s.add("conforms", c.conforms)
        s.add("access_units", c.accessUnitCount)
        s.add("violations", c.violations.count + c.droppedViolationCount)
        s.add("violations_dropped", c.droppedViolationCount)
        s.add("counts", counts)
        s.add("unchecked_rules", c.uncheckedRules.map(\.id))
        s.add("stream_errors", c.errors.count + c.droppedErrorCount)
        var top = JSONObject()
        top.add("summary", s)
        Output.line(top.rendered)
    }

    private static func listRules() {
        for profile in DeliveryProfile.all {
            Output.line("\(profile.name):")
            for rule in profile.rules { Output.line("  \(rule.id) (\(rule.clause)): \(rule.summary)") }
        }
    }
}
