import H264
import H264Delivery
import H264Fixtures
import Testing
import TestSupport

/// The checker's streaming contract and the rules one by one, on streams built for each.
@Suite struct StreamCheckerTests {
    static func stream(_ options: StreamBuilder.SequenceOptions, _ pictures: [StreamBuilder.Picture],
                       delimiters: Bool = false, everyIDR: Bool = true) throws -> [UInt8] {
        var b = try StreamBuilder(options)
        b.accessUnitDelimiters = delimiters
        b.parameterSetsAtEveryIDR = everyIDR
        for p in pictures { try b.append(p) }
        return b.annexB()
    }

    static var baseline: StreamBuilder.SequenceOptions {
        var o = StreamBuilder.SequenceOptions(width: 64, height: 48, profileIDC: 66, levelIDC: 30)
        o.constraintSetFlags = [true, true, false, false, false, false]
        o.pocType = 2
        o.maxNumRefFrames = 1
        return o
    }

    /// The same violations whatever the chunking, one byte at a time included.
    @Test(arguments: [1, 7, 100, 1 << 20])
    func chunkingDoesNotChangeTheReport(_ size: Int) throws {
        // A start at a recovery point (no IDR first), B-frames, then only-once parameter sets.
        let open = try FieldBugFixture(.recoveryPointNotKeyframe).accessUnits
        let bytes = AnnexB.write(open[0].filter(\.type.isParameterSet) + open[3] + open[4])
            + (try FieldBugFixture(.bFramesForWebRTC).annexB) + (try FieldBugFixture(.parameterSetsOnlyOnce).annexB)
        for profile in DeliveryProfile.all {
            let whole = StreamChecker.check(annexB: bytes[...], profile: profile)
            var chunked = StreamChecker(profile: profile)
            var i = 0
            while i < bytes.count {
                chunked.append(bytes[i..<min(bytes.count, i + size)])
                i += size
            }
            chunked.finish()
            #expect(chunked.violations == whole.violations, "\(profile.name)")
            #expect(chunked.accessUnitCount == whole.accessUnitCount)
            #expect(!whole.violations.isEmpty || profile.name == "rtmp")
        }
    }

    /// Past ``StreamChecker/maximumViolations`` the violations are counted, not kept.
    @Test func violationsAreCapped() throws {
        var options = Self.baseline
        options.width = 16
        options.height = 16
        let pictures = [StreamBuilder.Picture(.i, idr: true)] + Array(repeating: StreamBuilder.Picture(.p), count: 1199)
        let bytes = try Self.stream(options, pictures)
        let checker = StreamChecker.check(annexB: bytes[...], profile: .hls)
        #expect(checker.violations.count == StreamChecker.maximumViolations)
        #expect(checker.counts[DeliveryRule.accessUnitDelimiters.id] == 1200)
        #expect(checker.droppedViolationCount == 1200 - StreamChecker.maximumViolations + (checker.counts[DeliveryRule.keyframeInterval.id] ?? 0))
    }

    @Test func recoveryPointStartIsNotAnIDRStart() throws {
        var b = try StreamBuilder(Self.baseline)
        try b.append(.init(.i, idr: true))
        try b.append(.init(.p))
        try b.append(.init(.i, recoveryPoint: SEIRecoveryPoint()))
        try b.append(.init(.p))
        // Drop the IDR: the stream now begins with the parameter sets and a P picture.
        let aus = b.accessUnits
        let cut = AnnexB.write([aus[0][0], aus[0][1]] + aus[2] + aus[3])
        let checker = StreamChecker.check(annexB: cut[...], profile: .spec)
        #expect(checker.violations.map(\.rule) == [.firstPictureIDR])
        #expect(checker.violations.first?.message.contains("recovery point") == true)
    }

    @Test func missingPPSIsReported() throws {
        let bytes = try Self.stream(Self.baseline, [.init(.i, idr: true), .init(.p)])
        let units = try AnnexB.split(bytes[...]).filter { $0.type != .pps }
        let checker = StreamChecker.check(annexB: AnnexB.write(units)[...], profile: .spec)
        #expect(checker.counts[DeliveryRule.parameterSetsBeforeUse.id] == 2)
    }

    @Test func levelLimitsAndTheirFix() throws {
        var options = Self.baseline
        options.width = 1280
        options.height = 720
        options.levelIDC = 30  // 3600 macroblocks need level 3.1
        options.frameRate = (30, 1)
        let bytes = try Self.stream(options, [.init(.i, idr: true), .init(.p)])
        let checker = StreamChecker.check(annexB: bytes[...], profile: .spec)
        #expect(checker.violations.map(\.rule) == [.levelLimits], "\(checker.violations)")
        #expect(checker.observations.requiredLevel == ProfileLevel.Level(levelIDC: 31))
        let (fixed, plan, _) = try StreamFixer.fix(annexB: bytes[...], profile: .spec)
        #expect(plan.edits.levelIDC == 31)
        #expect(StreamChecker.check(annexB: fixed[...], profile: .spec).conforms)
    }

    @Test func keyframeIntervalIsMeasuredInSeconds() throws {
        var options = Self.baseline
        options.frameRate = (10, 1)
        // IDR every 25 frames at 10 fps: 2.5 s, then every 20: 2 s exactly.
        var pictures: [StreamBuilder.Picture] = []
        for gop in [25, 25, 20, 20] {
            pictures.append(.init(.i, idr: true))
            pictures += Array(repeating: .init(.p), count: gop - 1)
        }
        let checker = StreamChecker.check(annexB: try Self.stream(options, pictures, delimiters: true)[...], profile: .hls)
        let hits = checker.violations.filter { $0.rule == .keyframeInterval }
        #expect(hits.map(\.accessUnit) == [21, 25, 46, 50], "\(hits)")
    }

    @Test func baselineWithoutConstraintSet1IsFixedByTheFlag() throws {
        var options = Self.baseline
        options.constraintSetFlags = [false, false, false, false, false, false]
        let bytes = try Self.stream(options, [.init(.i, idr: true), .init(.p)])
        let before = StreamChecker.check(annexB: bytes[...], profile: .webRTC)
        #expect(before.violations.map(\.rule) == [.constrainedProfile])
        let (fixed, plan, _) = try StreamFixer.fix(annexB: bytes[...], profile: .webRTC)
        #expect(plan.edits.constraintSets == [1: true])
        // Printed, the plan says what it does, a line per rule (not a dump of its fields).
        #expect("\(plan)" == "fix profile.constrained: set constraint_set1_flag: the Baseline stream keeps the Constrained Baseline constraints")
        #expect("\(DeliveryFixPlan())" == "nothing to fix")
        #expect(StreamChecker.check(annexB: fixed[...], profile: .webRTC).conforms)
        let sps = try #require(try AnnexB.split(fixed[...]).first { $0.type == .sps })
        #expect(try ProfileLevel(sps: sps).sdpProfile == .constrainedBaseline)
    }

    /// A High stream without reordering: Constrained High flags and a declared reorder depth of
    /// 0 (the stream's POC type 0 would otherwise let a decoder hold frames).
    @Test func highWithoutBFramesBecomesConstrainedHighWithLowLatency() throws {
        var options = StreamBuilder.SequenceOptions(width: 64, height: 48, profileIDC: 100, levelIDC: 30)
        options.maxNumRefFrames = 1
        let bytes = try Self.stream(options, [.init(.i, idr: true), .init(.p), .init(.p)])
        let before = StreamChecker.check(annexB: bytes[...], profile: .webRTC)
        #expect(Set(before.violations.map(\.rule.id)) == [DeliveryRule.constrainedProfile.id, DeliveryRule.reorderingLatency.id])
        let (fixed, _, _) = try StreamFixer.fix(annexB: bytes[...], profile: .webRTC)
        #expect(StreamChecker.check(annexB: fixed[...], profile: .webRTC).conforms)
        let spsUnit = try #require(try AnnexB.split(fixed[...]).first { $0.type == .sps })
        let sps = try SequenceParameterSet(rbsp: spsUnit.rbsp)
        #expect(ProfileLevel(sps).profileLevelID == "640c1e")
        #expect(sps.vui.bitstreamRestrictionFlag && sps.vui.maxNumReorderFrames == 0 && sps.vui.maxDecFrameBuffering == 1)
    }

    @Test func declaredReorderDepthTooSmall() throws {
        var options = StreamBuilder.SequenceOptions(width: 64, height: 48, profileIDC: 77, levelIDC: 30)
        options.maxNumReorderFrames = 0
        options.maxNumRefFrames = 2
        let pictures: [StreamBuilder.Picture] = [.init(.i, idr: true, poc: 0), .init(.p, poc: 4), .init(.b, poc: 2)]
        let bytes = try Self.stream(options, pictures)
        let checker = StreamChecker.check(annexB: bytes[...], profile: .spec)
        #expect(checker.violations.map(\.rule) == [.reorderingDeclared])
        #expect(checker.violations.first?.accessUnit == 2)
        let (fixed, plan, _) = try StreamFixer.fix(annexB: bytes[...], profile: .spec)
        #expect(plan.edits.bitstreamRestriction?.maxNumReorderFrames == 1)
        #expect(StreamChecker.check(annexB: fixed[...], profile: .spec).conforms)
    }

    @Test func containerRulesAreListedAsUncheckedWithoutFacts() throws {
        let checker = StreamChecker.check(annexB: try FieldBugFixture(.missingAUDsForHLS).annexB[...], profile: .rtmp)
        #expect(checker.uncheckedRules.map(\.id) == [DeliveryRule.sequenceHeaderPerFormatChange.id, DeliveryRule.keyframeFlag.id])
        #expect(checker.conforms)
    }

    @Test func rulesHaveUniqueIDsAndProfilesTheirNames() {
        #expect(Set(DeliveryRule.all.map(\.id)).count == DeliveryRule.all.count)
        for profile in DeliveryProfile.all {
            #expect(DeliveryProfile.named(profile.name.uppercased()) == profile)
            #expect(profile.rules.allSatisfy { rule in DeliveryRule.all.contains(rule) })
        }
        #expect(DeliveryProfile.named("dash") == nil)
    }

    /// Hostile input: damaged streams give errors or violations, never a trap.
    @Test func damagedStreamsAreChecked() throws {
        var rng = SplitMix64(seed: 18)
        let base = try FieldBugFixture(.parameterSetsLargerThanMTU).annexB
        for _ in 0..<40 {
            var bytes = base
            for _ in 0..<8 { bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next()) }
            for profile in DeliveryProfile.all {
                let checker = StreamChecker.check(annexB: bytes[...], profile: profile)
                #expect(checker.violations.count <= StreamChecker.maximumViolations)
                _ = try? StreamFixer.fix(annexB: bytes[...], profile: profile)
            }
        }
    }

    /// A stream whose picture order counts keep falling (20,000 access units, no VUI, so the
    /// parser's limit is 16 + 33) keeps at most the parser's limit waiting: the checker held
    /// every access unit after the first pictures (a 64 MB stream took 3.6 GB).
    @Test func fallingOrderCountsKeepTheCheckerBounded() throws {
        let stream = try StreamBuilder.fallingPictureOrderCounts(count: 20_000)
        var checker = StreamChecker(profile: .spec)
        var offset = 0
        var most = 0
        while offset < stream.count {
            checker.append(stream[offset..<min(offset + 4096, stream.count)])
            offset += 4096
            most = max(most, checker.maximumHeldAccessUnitCount)
        }
        checker.finish()
        #expect(checker.accessUnitCount == 20_000)
        #expect(most == 49)
        #expect(checker.maximumHeldAccessUnitCount == 49)
    }
}
