import H264
import H264Delivery
import H264Fixtures
import Testing

/// The snippets of the H264Delivery catalog (Sources/H264Delivery/H264Delivery.docc); each
/// marked region is shown, as it is, in an article (Docs/check-snippets.py checks it).
@Suite struct H264DeliverySnippets {
    @Test func checkAndFix() throws {
        // A sender that put its SPS and PPS before the first IDR only.
        let stream = try FieldBugFixture(.parameterSetsOnlyOnce).annexB
        var reported: [String] = []
        func report(_ finding: some CustomStringConvertible) { reported.append(finding.description) }
        // snippet: check-and-fix
        var profile = DeliveryProfile.webRTC
        profile.negotiated = try ProfileLevel(parsing: "42e01f")      // the SDP's profile-level-id
        let check = StreamChecker.check(annexB: stream[...], profile: profile)
        for violation in check.violations { report(violation) }      // access unit 5: parameter-sets.before-idr: ...

        let (fixed, plan, _) = try StreamFixer.fix(annexB: stream[...], profile: profile)
        for item in plan.unfixable { report(item) }                  // what only the encoder can change
        // end snippet
        #expect(check.violations.contains { $0.rule.id == "parameter-sets.before-idr" })
        #expect(reported.count == check.violations.count + plan.unfixable.count)
        let recheck = StreamChecker.check(annexB: fixed[...], profile: profile)
        #expect(!recheck.violations.contains { $0.rule.id == "parameter-sets.before-idr" })
        #expect(recheck.violations.count < check.violations.count)
    }
}
