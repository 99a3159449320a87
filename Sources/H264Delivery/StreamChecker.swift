import H264

/// Checks a stream against a ``DeliveryProfile``, access unit by access unit, as it arrives.
///
/// Give it Annex-B bytes in chunks (``append(_:)``, then ``finish()``), or access units you
/// already have (``check(_:container:)``, then ``finish()``), with what the container says of
/// each (an FLV keyframe flag, a sequence header) for the rules that need it:
///
/// ```swift
/// var checker = StreamChecker(profile: .webRTC)
/// for chunk in chunks { checker.append(chunk) }
/// checker.finish()
/// for v in checker.violations { print(v.accessUnit, v.rule.id, v.message, v.rule.fix) }
/// ```
///
/// Every violation names the access unit (its index in decoding order), the rule and what is
/// wrong; the rule carries its clause and the fix. The first ``maximumViolations`` are kept,
/// the others counted in ``droppedViolationCount``; ``counts`` has every rule's total.
///
/// Memory: the Annex-B parser's bound (one NAL unit, one access unit, the pictures waiting for
/// their presentation time: `AccessUnitParser`), the parameter sets by id (32 SPS, 256 PPS),
/// the last 32 pictures' order counts, at most ``maximumViolations`` violations and
/// ``maximumErrors`` errors: independent of the stream's length.
public struct StreamChecker: Sendable {
    /// The most violations kept in ``violations``.
    public static let maximumViolations = 1000
    /// The most parse errors kept in ``errors``.
    public static let maximumErrors = 64
    /// The pictures whose order counts are kept to measure reordering: 32, twice the deepest
    /// reordering H.264 allows (16 frames).
    static let orderWindow = 32

    /// The profile checked.
    public let profile: DeliveryProfile
    /// The first ``maximumViolations`` violations, in the order found.
    public private(set) var violations: [DeliveryViolation] = []
    /// Violations found beyond ``maximumViolations``.
    public private(set) var droppedViolationCount = 0
    /// How many violations of each rule (by ``DeliveryRule/id``), all of them.
    public private(set) var counts: [String: Int] = [:]
    /// Access units checked.
    public private(set) var accessUnitCount = 0
    /// Parse errors of the stream (malformed NAL units, access units past the limits): the first
    /// ``maximumErrors``; the checker goes on after each.
    public private(set) var errors: [H264Error] = []
    /// Parse errors beyond ``maximumErrors``.
    public private(set) var droppedErrorCount = 0
    /// What the stream turned out to be: what ``DeliveryProfile/fixPlan(for:)`` decides from.
    public private(set) var observations = StreamObservations()
    /// Rules of the profile that need container facts and got none: not checked.
    public var uncheckedRules: [DeliveryRule] {
        sawContainerFacts ? [] : profile.rules.filter(\.needsContainerFacts)
    }

    /// True when the checked stream broke no rule (after ``finish()``).
    public var conforms: Bool { violations.isEmpty && droppedViolationCount == 0 }

    /// The most access units the Annex-B parser has held at once, waiting for their
    /// presentation time (at most its `heldAccessUnitLimit`).
    package var maximumHeldAccessUnitCount: Int { parser?.maximumHeldAccessUnitCount ?? 0 }

    private var parser: AccessUnitParser?
    private var store = ParameterSetStore()
    /// The SPS and PPS NAL units by slot (SPS 0...31, PPS 32...287), as last seen.
    private var parameterSets = [NALUnit?](repeating: nil, count: 288)
    /// The decoder configuration the container last sent (same slots), with container facts.
    private var configuration = [NALUnit?](repeating: nil, count: 288)
    private var sawContainerFacts = false
    private var sawPicture = false
    private var lastIDRTime: Double?
    /// Order counts of the pictures since the last IDR (or memory_management_control_operation
    /// 5), the latest last: at most ``orderWindow``.
    private var recentPOCs: [Int64] = []
    /// Per SPS id: the first access unit that used the SPS in its current content, whether it
    /// declares reordering (for ``DeliveryRule/reorderingLatency``).
    private var spsFirstUse = [Int?](repeating: nil, count: 32)
    private var spsChecked = [Bool](repeating: false, count: 32)
    /// Per SPS id: the SPS in force was parsed.
    private var spsParsed = [Bool](repeating: false, count: 32)
    /// Per PPS id: what a picture needs of the PPS in force, read when it arrives (no copy of
    /// the parsed PPS per access unit).
    private var ppsFacts = [PPSFacts](repeating: PPSFacts(), count: 256)

    private struct PPSFacts: Sendable {
        /// The SPS it refers to; nil when the PPS is unknown or could not be parsed.
        var spsID: Int?
        /// Slice groups or redundant pictures.
        var outsideConstrainedBaseline = false
    }
    private var finished = false
    /// The byte offset of the access unit being checked, for its violations.
    private var currentOffset: Int?
    /// Per SPS id: the byte offset of the access unit that first used it.
    private var spsFirstUseOffset = [Int?](repeating: nil, count: 32)
    /// Pictures whose order count was not known (a slice header not parsed, FLV input).
    private var picturesWithoutOrderCount = 0

    /// The rules the profile has, looked up once (not by identifier per access unit).
    private let enabled: EnabledRules

    /// Creates a checker.
    public init(profile: DeliveryProfile) {
        self.profile = profile
        enabled = EnabledRules(profile)
    }

    // MARK: - Input

    /// Checks the next chunk of an Annex-B stream: the access units it completes are checked
    /// at once (``check(_:container:)``).
    public mutating func append(_ chunk: ArraySlice<UInt8>) {
        if parser == nil { parser = AccessUnitParser(leadingData: .skip) }
        parser?.append(chunk)
        drain()
    }

    /// Ends the stream: checks the last access units and the rules that need the whole stream.
    public mutating func finish() {
        guard !finished else { return }
        if parser != nil {
            parser?.finish()
            drain()
        }
        finished = true
        // Only when every picture's order count was known (not from FLV tags) and none reordered.
        if enabled.reorderingLatency && observations.maximumReorderDepth == 0 && !observations.hasFieldPictures
            && !observations.hasBSlices && picturesWithoutOrderCount == 0 {
            for id in 0..<32 {
                guard let first = spsFirstUse[id], let sps = store.sps(id: id), sps.picOrderCntType != 2, sps.reorderDepth > 0
                else { continue }
                currentOffset = spsFirstUseOffset[id]
                report(.reorderingLatency, at: first,
                       "SPS \(id) lets a decoder hold \(sps.reorderDepth) frame(s) before output (no bitstream_restriction with "
                       + "max_num_reorder_frames 0) although the stream never reorders")
            }
        }
    }

    private mutating func drain() {
        guard var p = parser else { return }
        parser = nil  // not held twice while checking
        while true {
            do throws(H264Error) {
                guard let au = try p.next() else { break }
                check(au)
            } catch {
                note(error)
            }
        }
        parser = p
    }

    /// Checks one access unit, in decoding order.
    /// - Parameters:
    ///   - accessUnit: the access unit (its `AccessUnit/index` is not used: access units are
    ///     counted from 0 as they come).
    ///   - container: what the container says of it, for the rules that need it.
    /// - Complexity: O(n) in the number of NAL units, reading the headers of each, plus the
    ///   parameter sets' parse when they change.
    public mutating func check(_ accessUnit: AccessUnit, container: DeliveryContainerFacts? = nil) {
        let index = accessUnitCount
        accessUnitCount &+= 1
        let au = accessUnit
        currentOffset = au.byteOffset
        if let container { learnContainer(container) }

        // Parameter sets carried in band: new or changed content is parsed and checked.
        var inBand: [Int] = []
        var changed: [Int] = []
        for unit in au.nalUnits where unit.type == .sps || unit.type == .pps {
            guard let slot = Self.slot(of: unit) else { continue }
            inBand.append(slot)
            if parameterSets[slot] != unit { changed.append(slot) }
            learn(unit, slot: slot)
        }

        let hasPicture = !au.flags.hasNoPicture
        // Which PPS (and SPS) the picture uses.
        var ppsIDs: [Int] = []
        var firstMbs: [UInt32] = []
        var seiBytes = 0
        for unit in au.nalUnits {
            switch unit.type {
            case .slice, .idrSlice:
                let lead = unit.sliceHeaderLeadingElements()
                if let id = lead.ppsID, !ppsIDs.contains(Int(id)) { ppsIDs.append(Int(id)) }
                if let mb = lead.firstMbInSlice { firstMbs.append(mb) }
            case .sei:
                seiBytes = Swift.max(seiBytes, unit.count)
                if enabled.seiSize && unit.count > profile.maximumSEIBytes {
                    report(.seiSize, at: index, "SEI NAL unit of \(unit.count) bytes exceeds \(profile.maximumSEIBytes)")
                }
            default:
                break
            }
        }
        observations.largestSEIBytes = Swift.max(observations.largestSEIBytes, seiBytes)
        if zip(firstMbs, firstMbs.dropFirst()).contains(where: { $0.0 >= $0.1 }) { observations.hasArbitrarySliceOrder = true }

        var spsIDs: [Int] = []
        for id in ppsIDs {
            guard let spsID = ppsFacts[id].spsID else {
                if enabled.parameterSetsBeforeUse {
                    report(.parameterSetsBeforeUse, at: index, "a slice refers to PPS \(id), which no PPS before it defines")
                }
                continue
            }
            if ppsFacts[id].outsideConstrainedBaseline { observations.hasSliceGroupsOrRedundantPictures = true }
            guard spsParsed[spsID] else {
                if enabled.parameterSetsBeforeUse {
                    report(.parameterSetsBeforeUse, at: index, "PPS \(id) refers to SPS \(spsID), which no SPS before it defines")
                }
                continue
            }
            if !spsIDs.contains(spsID) { spsIDs.append(spsID) }
        }

        // Rules of the SPS in force, once per SPS content.
        for id in spsIDs {
            if spsFirstUse[id] == nil {
                spsFirstUse[id] = index
                spsFirstUseOffset[id] = currentOffset
            }
            if !spsChecked[id] {
                spsChecked[id] = true
                checkSPS(id: id, at: index)
            }
        }
        if enabled.parameterSetsFitMTU && !changed.isEmpty { checkMTU(at: index) }

        guard hasPicture else { return }
        let isIDR = au.flags.isSync
        if !sawPicture {
            sawPicture = true
            if !isIDR && enabled.firstPictureIDR {
                report(.firstPictureIDR, at: index, au.isRandomAccessPoint
                       ? "the stream begins with a recovery point, not an IDR access unit"
                       : "the stream begins with a non-IDR picture")
            }
        }
        if au.sliceTypes.contains(.b) { observations.hasBSlices = true }
        if au.structure != .frame { observations.hasFieldPictures = true }

        if isIDR && enabled.parameterSetsBeforeIDR {
            var missing: [String] = []
            // In band, or (with container facts) in the decoder configuration the container
            // sends out of band, which a packetiser puts before the IDR.
            let outOfBand = container != nil ? configuration : []
            let carried = { (slot: Int) in inBand.contains(slot) || (slot < outOfBand.count && outOfBand[slot] != nil) }
            for id in ppsIDs where !carried(32 &+ id) { missing.append("PPS \(id)") }  // id < 256
            for id in spsIDs where !carried(id) { missing.insert("SPS \(id)", at: 0) }
            if ppsIDs.isEmpty && !inBand.contains(where: { $0 < 32 }) { missing.append("SPS and PPS") }
            if !missing.isEmpty {
                report(.parameterSetsBeforeIDR, at: index,
                       "IDR access unit without \(missing.joined(separator: ", ")): a receiver that joins here cannot decode")
            }
        }

        checkReordering(au, index: index, spsIDs: spsIDs)
        if enabled.accessUnitDelimiters && au.nalUnits.first?.type != .accessUnitDelimiter {
            report(.accessUnitDelimiters, at: index, "access unit without an access unit delimiter first")
        }
        if enabled.keyframeInterval {
            let time = au.dts.flatMap { dts in au.timeBase.map { $0.seconds(dts) } }
            if isIDR {
                if let last = lastIDRTime, let time, time - last > profile.maximumKeyframeInterval + 1e-9 {
                    report(.keyframeInterval, at: index,
                           "\(Self.format(time - last)) s since the previous IDR, more than \(Self.format(profile.maximumKeyframeInterval)) s")
                }
                lastIDRTime = time
            } else if let last = lastIDRTime, let time, time - last > profile.maximumKeyframeInterval + 1e-9,
                      time - last - (au.duration.flatMap { d in au.timeBase.map { $0.seconds(d) } } ?? 0) <= profile.maximumKeyframeInterval + 1e-9 {
                // The first picture past the interval: reported once per long group.
                report(.keyframeInterval, at: index,
                       "no IDR for more than \(Self.format(profile.maximumKeyframeInterval)) s since the previous one")
            }
        }
        if let container, let flag = container.keyframeFlag, enabled.keyframeFlag {
            if flag && !au.isRandomAccessPoint {
                report(.keyframeFlag, at: index, "flagged as a keyframe, but neither IDR nor a recovery point")
            } else if !flag && au.isRandomAccessPoint {
                report(.keyframeFlag, at: index, au.flags.isSync
                       ? "an IDR access unit not flagged as a keyframe"
                       : "an I picture with a recovery point SEI (recovery_frame_cnt \(au.flags.recoveryFrameCount ?? 0)) not flagged as a keyframe")
            }
        }
        if container != nil && enabled.sequenceHeaderPerFormatChange {
            for slot in spsIDs + ppsIDs.map({ 32 &+ $0 }) where parameterSets[slot] != nil && configuration[slot] != parameterSets[slot] {
                let name = slot < 32 ? "SPS \(slot)" : "PPS \(slot &- 32)"  // slot < 288
                report(.sequenceHeaderPerFormatChange, at: index, configuration[slot] == nil
                       ? "\(name) is used but no sequence header carried it"
                       : "\(name) changed in band but no new sequence header was sent")
                configuration[slot] = parameterSets[slot]  // once per change
            }
        }
    }

    // MARK: - Rules

    private mutating func checkSPS(id: Int, at index: Int) {
        guard let sps = store.sps(id: id) else { return }
        let pl = ProfileLevel(sps)
        if let level = sps.minimumLevel {
            observations.requiredLevel = observations.requiredLevel.map { Swift.max($0, level) } ?? level
        }
        observations.largestMaxNumRefFrames = Swift.max(observations.largestMaxNumRefFrames, Int(sps.maxNumRefFrames))
        observations.smallestMaxDpbFrames = Swift.min(observations.smallestMaxDpbFrames ?? 16, sps.maxDpbFrames)
        if !sps.frameMbsOnlyFlag { observations.hasFieldPictures = true }
        observations.profileIDCs.insert(sps.profileIDC)
        if observations.profileLevels.count < StreamObservations.maximumProfileLevels { observations.profileLevels.insert(pl) }
        if enabled.constrainedProfile, pl.sdpProfile != .constrainedBaseline, pl.sdpProfile != .constrainedHigh {
            report(.constrainedProfile, at: index, "SPS \(id) is \(pl.profileName) (\(pl.profileLevelID)), not Constrained Baseline or Constrained High")
        }
        if enabled.negotiatedProfileLevel, let negotiated = profile.negotiated {
            let c = pl.compatibility(withNegotiated: negotiated, levelAsymmetryAllowed: profile.levelAsymmetryAllowed)
            if !c.isCompatible { report(.negotiatedProfileLevel, at: index, "SPS \(id): \(c)") }
        }
        if enabled.levelLimits {
            let problems = sps.levelViolations(of: pl.level)
            if !problems.isEmpty { report(.levelLimits, at: index, "SPS \(id): " + problems.joined(separator: "; ")) }
        }
    }

    /// The parameter sets in force as one STAP-A (RFC 6184 5.7.1: a one-byte header, then a
    /// two-byte size before each NAL unit) after a 12-byte RTP header.
    private mutating func checkMTU(at index: Int) {
        var bytes = 12 &+ 1
        var largest = 0
        for unit in parameterSets.compactMap({ $0 }) {
            bytes &+= 2 &+ unit.count  // at most 288 units of at most 64 KiB
            largest = Swift.max(largest, unit.count)
        }
        observations.parameterSetPacketBytes = Swift.max(observations.parameterSetPacketBytes, bytes)
        if bytes > profile.mtu {
            report(.parameterSetsFitMTU, at: index, largest &+ 12 &+ 3 > profile.mtu
                   ? "a parameter set of \(largest) bytes does not fit one packet of \(profile.mtu) bytes: it must go as FU-A fragments"
                   : "SPS and PPS need a STAP-A of \(bytes) bytes, more than the MTU of \(profile.mtu)")
        }
    }

    private mutating func checkReordering(_ au: AccessUnit, index: Int, spsIDs: [Int]) {
        if au.startsPOCPeriod { recentPOCs.removeAll(keepingCapacity: true) }
        if au.poc == nil { picturesWithoutOrderCount &+= 1 }  // one per access unit
        guard au.structure == .frame, let poc = au.poc else {
            if enabled.noFrameReordering && au.sliceTypes.contains(.b) {
                report(.noFrameReordering, at: index, "B slices")
            }
            return
        }
        // Pictures decoded before this one and presented after it.
        let depth = recentPOCs.reduce(0) { $0 &+ ($1 > poc ? 1 : 0) }
        recentPOCs.append(poc)
        if recentPOCs.count > Self.orderWindow { recentPOCs.removeFirst() }
        observations.maximumReorderDepth = Swift.max(observations.maximumReorderDepth, depth)
        if enabled.noFrameReordering && (depth > 0 || au.sliceTypes.contains(.b)) {
            var what: [String] = []
            if au.sliceTypes.contains(.b) { what.append("B slices") }
            if depth > 0 { what.append("presented before \(depth) picture(s) decoded earlier") }
            report(.noFrameReordering, at: index, what.joined(separator: ", "))
        }
        if enabled.reorderingDeclared {
            for id in spsIDs {
                guard let sps = store.sps(id: id), sps.vuiParametersPresentFlag, sps.vui.bitstreamRestrictionFlag,
                      depth > Int(sps.vui.maxNumReorderFrames) else { continue }
                report(.reorderingDeclared, at: index,
                       "presented after \(depth) frame(s) decoded later, more than max_num_reorder_frames \(sps.vui.maxNumReorderFrames) of SPS \(id)")
            }
        }
    }

    // MARK: - State

    private mutating func learn(_ unit: NALUnit, slot: Int) {
        guard parameterSets[slot] != unit else { return }
        parameterSets[slot] = NALUnit(copying: unit)
        if slot < 32 {
            let sps = try? SequenceParameterSet(rbsp: unit.rbsp)
            if let sps { store.insert(sps) }
            spsParsed[slot] = sps != nil
            spsChecked[slot] = false
            spsFirstUse[slot] = nil
        } else if let pps = try? PictureParameterSet(rbsp: unit.rbsp, context: store) {
            store.insert(pps)
            ppsFacts[slot &- 32] = PPSFacts(spsID: Int(pps.spsID),
                                            outsideConstrainedBaseline: pps.numSliceGroupsMinus1 > 0 || pps.redundantPicCntPresentFlag)
        } else {
            ppsFacts[slot &- 32] = PPSFacts()
        }
    }

    private mutating func learnContainer(_ facts: DeliveryContainerFacts) {
        sawContainerFacts = true
        guard let units = facts.decoderConfiguration else { return }
        configuration = [NALUnit?](repeating: nil, count: 288)
        for unit in units {
            guard let slot = Self.slot(of: unit) else { continue }
            configuration[slot] = NALUnit(copying: unit)
            learn(unit, slot: slot)
        }
    }

    private mutating func report(_ rule: DeliveryRule, at index: Int, _ message: String) {
        counts[rule.id, default: 0] &+= 1  // at most a few per access unit
        if violations.count < Self.maximumViolations {
            violations.append(DeliveryViolation(rule: rule, accessUnit: index, message: message, byteOffset: currentOffset))
        } else {
            droppedViolationCount &+= 1
        }
    }

    private mutating func note(_ error: H264Error) {
        if errors.count < Self.maximumErrors { errors.append(error) } else { droppedErrorCount &+= 1 }  // one per NAL unit at most
    }

    /// SPS 0...31, PPS 32...287; nil for an unreadable id.
    static func slot(of unit: NALUnit) -> Int? {
        guard let id = unit.parameterSetID else { return nil }
        switch unit.type {
        case .sps: return id < 32 ? id : nil
        case .pps: return id < 256 ? 32 &+ id : nil
        default: return nil
        }
    }

    static func format(_ seconds: Double) -> String {
        let hundredths = (seconds * 100).rounded()
        return hundredths == hundredths.rounded(.towardZero) && hundredths.truncatingRemainder(dividingBy: 100) == 0
            ? String(Int(hundredths / 100)) : String(hundredths / 100)
    }
}

extension StreamChecker {
    /// Checks a whole Annex-B stream in memory.
    /// - Complexity: O(n) in the stream's size.
    public static func check(annexB bytes: ArraySlice<UInt8>, profile: DeliveryProfile) -> StreamChecker {
        var checker = StreamChecker(profile: profile)
        checker.append(bytes)
        checker.finish()
        return checker
    }
}

extension NALUnit {
    /// A NAL unit with its own copy of the bytes (a view would keep a whole chunk alive).
    init(copying unit: NALUnit) { self = (try? NALUnit(Array(unit.bytes))) ?? unit }  // valid already: cannot fail
}

/// Which rules of the catalog a profile has, one flag each.
private struct EnabledRules: Sendable {
    let accessUnitDelimiters: Bool
    let constrainedProfile: Bool
    let firstPictureIDR: Bool
    let keyframeFlag: Bool
    let keyframeInterval: Bool
    let levelLimits: Bool
    let negotiatedProfileLevel: Bool
    let noFrameReordering: Bool
    let parameterSetsBeforeIDR: Bool
    let parameterSetsBeforeUse: Bool
    let parameterSetsFitMTU: Bool
    let reorderingDeclared: Bool
    let reorderingLatency: Bool
    let seiSize: Bool
    let sequenceHeaderPerFormatChange: Bool

    init(_ profile: DeliveryProfile) {
        accessUnitDelimiters = profile.contains(.accessUnitDelimiters)
        constrainedProfile = profile.contains(.constrainedProfile)
        firstPictureIDR = profile.contains(.firstPictureIDR)
        keyframeFlag = profile.contains(.keyframeFlag)
        keyframeInterval = profile.contains(.keyframeInterval)
        levelLimits = profile.contains(.levelLimits)
        negotiatedProfileLevel = profile.contains(.negotiatedProfileLevel)
        noFrameReordering = profile.contains(.noFrameReordering)
        parameterSetsBeforeIDR = profile.contains(.parameterSetsBeforeIDR)
        parameterSetsBeforeUse = profile.contains(.parameterSetsBeforeUse)
        parameterSetsFitMTU = profile.contains(.parameterSetsFitMTU)
        reorderingDeclared = profile.contains(.reorderingDeclared)
        reorderingLatency = profile.contains(.reorderingLatency)
        seiSize = profile.contains(.seiSize)
        sequenceHeaderPerFormatChange = profile.contains(.sequenceHeaderPerFormatChange)
    }
}
