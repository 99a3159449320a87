import H264

/// What ``StreamFixer`` does to a stream to make it conform to a profile without re-encoding,
/// and what it cannot fix: made by ``DeliveryProfile/fixPlan(for:)`` from a check of the stream.
///
/// Each fix is applied only where the stream allows it: a constraint flag is set only when the
/// stream keeps the constraint (no B slices, no slice groups, no arbitrary slice order, frames
/// only), a level is written only when the stream's frame size, macroblock rate and reference
/// frames fit it, a reorder depth of 0 is declared only when no picture was reordered.
public struct DeliveryFixPlan: Hashable, Sendable {
    /// One rule and what is done about it (or why nothing can be).
    public struct Item: Hashable, Sendable, CustomStringConvertible {
        /// The rule.
        public var rule: DeliveryRule
        /// What the fixer does, or, for a rule it cannot fix, the reason and what avoids it.
        public var action: String

        /// Creates an item.
        public init(rule: DeliveryRule, action: String) {
            self.rule = rule
            self.action = action
        }

        /// `rule-id: action`.
        public var description: String { "\(rule.id): \(action)" }
    }

    /// The header edits (level, constraint flags, VUI bitstream restriction, access unit
    /// delimiters) applied to every SPS and access unit.
    public var edits = HeaderEdits()
    /// The SPS and PPS are put before every random access point that lacks them.
    public var insertsParameterSets = false
    /// SEI NAL units larger than this are dropped; nil keeps them all.
    public var maximumSEIBytes: Int?
    /// The rules the plan fixes.
    public var fixes: [Item] = []
    /// The rules broken that the plan cannot fix, each with what avoids it.
    public var unfixable: [Item] = []

    /// Creates an empty plan: the fixer copies the stream.
    public init() {}

    /// True when the plan changes nothing.
    public var isEmpty: Bool { fixes.isEmpty }
}

extension DeliveryFixPlan: CustomStringConvertible {
    /// One line per item, as a log or a terminal shows a plan: `fix rule-id: action` for each
    /// fix, `cannot fix rule-id: reason` for each rule it leaves broken; `nothing to fix` for
    /// an empty plan.
    public var description: String {
        if fixes.isEmpty && unfixable.isEmpty { return "nothing to fix" }
        return (fixes.map { "fix \($0)" } + unfixable.map { "cannot fix \($0)" }).joined(separator: "\n")
    }
}

extension DeliveryProfile {
    /// The fixes for the violations `checker` found (after its ``StreamChecker/finish()``),
    /// decided from its ``StreamChecker/observations``.
    public func fixPlan(for checker: StreamChecker) -> DeliveryFixPlan {
        var plan = DeliveryFixPlan()
        let o = checker.observations
        func fixed(_ rule: DeliveryRule, _ action: String) { plan.fixes.append(.init(rule: rule, action: action)) }
        func cannot(_ rule: DeliveryRule, _ reason: String) { plan.unfixable.append(.init(rule: rule, action: reason)) }
        let broken = rules.filter { (checker.counts[$0.id] ?? 0) > 0 }

        for rule in broken {
            switch rule.id {
            case DeliveryRule.parameterSetsBeforeIDR.id:
                plan.insertsParameterSets = true
                fixed(rule, "insert the SPS and PPS before every random access point that lacks them")
            case DeliveryRule.accessUnitDelimiters.id:
                plan.edits.accessUnitDelimiters = .insert
                fixed(rule, "insert an access unit delimiter in every access unit that lacks one")
            case DeliveryRule.seiSize.id:
                plan.maximumSEIBytes = maximumSEIBytes
                fixed(rule, "drop SEI NAL units larger than \(maximumSEIBytes) bytes")
            case DeliveryRule.constrainedProfile.id:
                if o.profileIDCs == [66] && !o.hasSliceGroupsOrRedundantPictures && !o.hasArbitrarySliceOrder {
                    plan.edits.constraintSets[1] = true
                    fixed(rule, "set constraint_set1_flag: the Baseline stream keeps the Constrained Baseline constraints")
                } else if o.profileIDCs == [100] && !o.hasBSlices && o.maximumReorderDepth == 0 && !o.hasFieldPictures {
                    for n in 0..<4 { plan.edits.constraintSets[n] = false }
                    plan.edits.constraintSets[4] = true
                    plan.edits.constraintSets[5] = true
                    fixed(rule, "set constraint_set4_flag and constraint_set5_flag: the High stream has frames only and no B slices (Constrained High)")
                } else {
                    cannot(rule, "the stream uses tools outside Constrained Baseline and Constrained High (B slices, fields, Main profile): " + rule.fix)
                }
            case DeliveryRule.levelLimits.id:
                if let level = o.requiredLevel {
                    plan.edits.levelIDC = level.levelIDC
                    fixed(rule, "write level_idc \(level.levelIDC) (level \(level)), the lowest level the stream keeps")
                } else {
                    cannot(rule, "no level of Table A-1 holds the stream")
                }
            case DeliveryRule.reorderingDeclared.id:
                let buffering = Swift.max(o.maximumReorderDepth, o.largestMaxNumRefFrames)
                if buffering <= (o.smallestMaxDpbFrames ?? 16) {
                    plan.edits.bitstreamRestriction = (UInt32(o.maximumReorderDepth), UInt32(buffering))  // both <= 16
                    fixed(rule, "declare max_num_reorder_frames \(o.maximumReorderDepth), max_dec_frame_buffering \(buffering)")
                } else {
                    cannot(rule, "the stream reorders \(o.maximumReorderDepth) frames, more than its level's decoded picture buffer holds")
                }
            case DeliveryRule.reorderingLatency.id:
                if o.largestMaxNumRefFrames <= (o.smallestMaxDpbFrames ?? 16) {
                    plan.edits.bitstreamRestriction = (0, UInt32(o.largestMaxNumRefFrames))  // <= 16
                    fixed(rule, "declare max_num_reorder_frames 0, max_dec_frame_buffering \(o.largestMaxNumRefFrames)")
                } else {
                    cannot(rule, "max_num_ref_frames \(o.largestMaxNumRefFrames) exceeds the level's decoded picture buffer")
                }
            case DeliveryRule.negotiatedProfileLevel.id:
                break  // below, once the constraint flags are known
            default:
                cannot(rule, rule.fix)
            }
        }

        if let rule = broken.first(where: { $0.id == DeliveryRule.negotiatedProfileLevel.id }), let negotiated {
            // Lower (or raise) level_idc to the negotiated level when the stream fits it, and
            // see whether every SPS then matches the negotiated profile-level-id.
            var edits = plan.edits
            if let required = o.requiredLevel, required <= negotiated.level, !negotiated.isLevel1b {
                edits.levelIDC = negotiated.levelIDC
            }
            let after = o.profileLevels.map { Self.applying(edits, to: $0) }
            if !after.isEmpty, after.allSatisfy({ $0.compatibility(withNegotiated: negotiated, levelAsymmetryAllowed: levelAsymmetryAllowed).isCompatible }) {
                plan.edits = edits
                fixed(rule, edits.levelIDC.map { "write level_idc \($0) (level \(negotiated.level)), the negotiated level the stream fits" }
                      ?? "the constraint flags make the stream match the negotiated profile-level-id \(negotiated.profileLevelID)")
            } else {
                let needed = o.requiredLevel.map { " (the stream needs level \($0))" } ?? ""
                cannot(rule, "the stream does not fit profile-level-id \(negotiated.profileLevelID)\(needed): " + rule.fix)
            }
        }
        return plan
    }

    /// The profile and level bytes an SPS with `pl` has after `edits`.
    static func applying(_ edits: HeaderEdits, to pl: ProfileLevel) -> ProfileLevel {
        var out = pl
        if let level = edits.levelIDC { out = out.replacingLevel(ProfileLevel.Level(levelIDC: level)) }
        for (n, value) in edits.constraintSets where n >= 0 && n < 6 {
            let bit = UInt8(0x80) >> UInt8(n)
            out.constraintFlags = value ? out.constraintFlags | bit : out.constraintFlags & ~bit
        }
        return out
    }
}
