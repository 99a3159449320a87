import Testing
import H264Fixtures
@testable import H264

/// The assembler derives an access unit's flags from evidence gathered as its NAL units and
/// slice types arrive (``AccessUnitFlags/Evidence``), not from a second pass over them. These
/// tests hold that derivation to the two-pass one it replaced, kept here as the reference.
@Suite struct AccessUnitFlagsEvidenceTests {
    static let annexBFixtures = Fixture.allCases.filter { $0.facts.kind == .annexB && $0 != .leadingGarbage }

    /// The former derivation: one pass over the NAL units, one over the slice types.
    static func reference(units: [NALUnit], sliceTypes: [SliceType.Kind], allSlicesParsed: Bool,
                          recoveryFrameCount: Int?, maxNumRefFrames: Int?) -> AccessUnitFlags {
        var f = AccessUnitFlags()
        var hasVCL = false
        for unit in units {
            let type = unit.type
            if type == .sps || type == .pps { f.hasParameterSets = true }
            guard type.isVCL else { continue }
            hasVCL = true
            if type == .idrSlice { f.isSync = true }
            if unit.nalRefIdc != 0 { f.isDependedOnByOthers = true }
        }
        f.hasNoPicture = !hasVCL
        let predicted = sliceTypes.contains { $0 == .p || $0 == .b || $0 == .sp }
        f.dependsOnOthers = !f.isSync && (predicted || !allSlicesParsed)
        if let count = recoveryFrameCount {
            f.recoveryFrameCount = count
            f.isRandomAccess = !f.isSync
        }
        let intraOnly = hasVCL && allSlicesParsed && !sliceTypes.isEmpty && !predicted
        if !f.isSync, intraOnly, f.isDependedOnByOthers, let refs = maxNumRefFrames, refs <= 1 {
            f.isRandomAccess = true
        }
        f.isIntraOnlyWithoutIDR = hasVCL && !f.isSync && f.recoveryFrameCount == nil && allSlicesParsed
            && !sliceTypes.isEmpty && !predicted
        return f
    }

    /// Every fixture access unit, and the same NAL units with every slice type, each parse
    /// outcome, recovery point and reference-frame count: the evidence gives the reference's flags.
    @Test(arguments: annexBFixtures)
    func evidenceGivesTheTwoPassFlags(_ fixture: Fixture) {
        let (units, _) = AccessUnits.assemble(annexB: fixture.bytes()[...])
        #expect(!units.isEmpty, "\(fixture)")
        let kinds: [[SliceType.Kind]] = [[], [.i], [.si], [.i, .si], [.p], [.b], [.sp], [.i, .b], [.si, .i, .p]]
        for au in units {
            for sliceTypes in [au.sliceTypes] + kinds {
                for allSlicesParsed in [true, false] {
                    for recovery in [nil, 0, 3] as [Int?] {
                        for refs in [nil, 0, 1, 2] as [Int?] {
                            let ours = AccessUnitFlags(units: au.nalUnits, sliceTypes: sliceTypes, allSlicesParsed: allSlicesParsed,
                                                       recoveryFrameCount: recovery, maxNumRefFrames: refs)
                            let expected = Self.reference(units: au.nalUnits, sliceTypes: sliceTypes,
                                                          allSlicesParsed: allSlicesParsed,
                                                          recoveryFrameCount: recovery, maxNumRefFrames: refs)
                            #expect(ours == expected, "\(fixture) AU \(au.index) \(sliceTypes) \(allSlicesParsed) \(String(describing: recovery)) \(String(describing: refs))")
                        }
                    }
                }
            }
        }
    }

    /// The assembler gathers the evidence of exactly the NAL units it puts in each access unit
    /// (held parameter sets, the stream's last access unit, batch and streaming alike): its
    /// flags are the reference's over the access unit's own NAL units and slice types, with the
    /// SPS in force (every fixture's slice headers parse).
    @Test(arguments: annexBFixtures.filter { $0 != .missingPPS })  // slices without their PPS: nothing to refer to
    func assembledFlagsAreTheTwoPassFlags(_ fixture: Fixture) throws {
        try checkAssembledFlags(fixture.bytes(), "\(fixture)")
    }

    /// A parameter set after the last picture is held, then joins the last access unit when the
    /// stream ends (not through the path that adds NAL units one by one).
    @Test func aParameterSetHeldAtTheEndCounts() throws {
        var bytes = Fixture.allCases.first { $0.facts.kind == .annexB && $0 != .leadingGarbage && $0 != .missingPPS }!.bytes()
        let (units, _) = AccessUnits.assemble(annexB: bytes[...])
        let sps = try #require(units.lazy.flatMap(\.nalUnits).first { $0.type == .sps })
        let lastHadParameterSets = try #require(units.last).flags.hasParameterSets
        bytes += [0, 0, 0, 1] + Array(sps.bytes)
        let (again, _) = AccessUnits.assemble(annexB: bytes[...])
        #expect(again.count == units.count)
        #expect(!lastHadParameterSets && again.last?.flags.hasParameterSets == true)
        try checkAssembledFlags(bytes, "trailing SPS")
    }

    private func checkAssembledFlags(_ bytes: [UInt8], _ fixture: String) throws {
        let (batch, errors) = AccessUnits.assemble(annexB: bytes[...])
        #expect(errors.isEmpty, "\(fixture)")
        var parser = AccessUnitParser()
        var streamed: [AccessUnit] = []
        var i = 0
        while i < bytes.count {
            parser.append(bytes[i..<min(i + 97, bytes.count)])
            i += 97
            while let au = try parser.next() { streamed.append(au) }
        }
        parser.finish()
        while let au = try parser.next() { streamed.append(au) }
        #expect(streamed.map(\.flags) == batch.map(\.flags), "\(fixture)")

        var store = ParameterSetStore()
        for au in batch {
            for unit in au.nalUnits where unit.type == .sps || unit.type == .pps { try store.ingest(unit) }
            var refs: Int?
            if let slice = au.nalUnits.first(where: { $0.type.isVCL }) {
                let header = try SliceHeader.parse(slice, context: store).header
                let spsID = try #require(store.pps(id: Int(header.ppsID))?.spsID, "\(fixture)")
                refs = try Int(#require(store.sps(id: Int(spsID))?.maxNumRefFrames, "\(fixture)"))
            }
            let expected = Self.reference(units: au.nalUnits, sliceTypes: au.sliceTypes, allSlicesParsed: true,
                                          recoveryFrameCount: au.flags.recoveryFrameCount, maxNumRefFrames: refs)
            #expect(au.flags == expected, "\(fixture) AU \(au.index)")
        }
    }
}
