import Testing
import TestSupport
import H264

/// The store's tables grow only up to the highest id stored; what it answers must be what a
/// table of every id answers: checked against a model (the latest set per id) after every step
/// of random insertions and activations, for every id in range and just outside it.
@Suite struct ParameterSetStoreTests {
    /// The model: the latest parameter sets by id, and the active ids.
    struct Model {
        var sps: [Int: SequenceParameterSet] = [:]
        var subset: [Int: SubsetSequenceParameterSet] = [:]
        var pps: [Int: PictureParameterSet] = [:]
        var activeSPSID: Int?
        var activePPSID: Int?

        func sliceContext(ppsID: Int, subset useSubset: Bool) -> SliceHeaderContext? {
            guard let p = pps[ppsID], let s = useSubset ? subset[Int(p.spsID)]?.sps : sps[Int(p.spsID)] else { return nil }
            return SliceHeaderContext(sps: s, pps: p)
        }

        var activeSEITimingInfo: SEITimingInfo? {
            if let id = activeSPSID, let s = sps[id] { return s.seiTimingInfo }
            return sps.count == 1 ? sps.values.first?.seiTimingInfo : nil
        }
    }

    /// An SPS with id `id` whose slice-header fields depend on `variant`.
    static func sps(id: Int, variant: UInt64) -> SequenceParameterSet {
        var s = SequenceParameterSet()
        s.id = UInt8(id)
        s.log2MaxFrameNumMinus4 = UInt8(variant % 13)
        s.picOrderCntType = UInt8(variant / 13 % 3)
        s.levelIDC = UInt8(10 &+ variant % 40)
        return s
    }

    /// A PPS with id `id` naming SPS `spsID`, whose slice-header fields depend on `variant`.
    static func pps(id: Int, spsID: Int, variant: UInt64) -> PictureParameterSet {
        var p = PictureParameterSet()
        p.id = UInt8(id)
        p.spsID = UInt8(spsID)
        p.numRefIdxL0DefaultActiveMinus1 = UInt8(variant % 32)
        p.weightedPredFlag = variant & 32 != 0
        return p
    }

    static func expectSame(_ store: ParameterSetStore, _ model: Model, step: Int) {
        for id in -2..<(ParameterSetStore.spsIDCount + 2) {
            #expect(store.sps(id: id) == model.sps[id], "step \(step): sps(id: \(id))")
            #expect(store.subsetSPS(id: id) == model.subset[id], "step \(step): subsetSPS(id: \(id))")
        }
        for id in -2..<(ParameterSetStore.ppsIDCount + 2) {
            #expect(store.pps(id: id) == model.pps[id], "step \(step): pps(id: \(id))")
            for subset in [false, true] {
                #expect(store.sliceHeaderContext(ppsID: id, subset: subset) == model.sliceContext(ppsID: id, subset: subset),
                        "step \(step): sliceHeaderContext(ppsID: \(id), subset: \(subset))")
            }
        }
        #expect(store.activeSPSID == model.activeSPSID, "step \(step)")
        #expect(store.activePPSID == model.activePPSID, "step \(step)")
        #expect(store.activeSPS == model.activeSPSID.flatMap { model.sps[$0] }, "step \(step)")
        #expect(store.activeSEITimingInfo == model.activeSEITimingInfo, "step \(step)")
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func answersAsATableOfEveryIDWould(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var store = ParameterSetStore()
        var model = Model()
        Self.expectSame(store, model, step: 0)
        // Ids mostly small (as streams use them), sometimes anywhere in range, the extremes included.
        func spsID() -> Int { rng.next() % 4 == 0 ? Int(rng.next() % 32) : Int(rng.next() % 3) }
        func ppsID() -> Int {
            switch rng.next() % 8 {
            case 0: return 255
            case 1, 2: return Int(rng.next() % 256)
            default: return Int(rng.next() % 4)
            }
        }
        for step in 1...60 {
            switch rng.next() % 6 {
            case 0, 1:
                let s = Self.sps(id: spsID(), variant: rng.next())
                store.insert(s)
                model.sps[Int(s.id)] = s
            case 2:
                var subset = SubsetSequenceParameterSet()
                subset.sps = Self.sps(id: spsID(), variant: rng.next())
                store.insert(subset)
                model.subset[Int(subset.sps.id)] = subset
            case 3, 4:
                let p = Self.pps(id: ppsID(), spsID: spsID(), variant: rng.next())
                store.insert(p)
                model.pps[Int(p.id)] = p
            default:
                let id = rng.next() % 5 == 0 ? Int(rng.next() % 300) - 20 : ppsID()
                let subset = rng.next() % 4 == 0
                let known = model.pps[id].map { subset ? model.subset[Int($0.spsID)] != nil : model.sps[Int($0.spsID)] != nil } ?? false
                do throws(H264Error) {
                    try store.activate(ppsID: id, subset: subset)
                    #expect(known, "step \(step): activated PPS \(id) (subset \(subset)) without its parameter sets")
                    model.activePPSID = id
                    if !subset { model.activeSPSID = Int(model.pps[id]!.spsID) }
                } catch {
                    #expect(!known, "step \(step): PPS \(id) (subset \(subset)) refused: \(error)")
                    #expect(error.code == .missingParameterSet)
                }
                let spsToActivate = Int(rng.next() % 34) - 1
                do throws(H264Error) {
                    try store.activateSPS(id: spsToActivate)
                    #expect(model.sps[spsToActivate] != nil, "step \(step): activated unknown SPS \(spsToActivate)")
                    model.activeSPSID = spsToActivate
                } catch {
                    #expect(model.sps[spsToActivate] == nil, "step \(step): SPS \(spsToActivate) refused")
                }
            }
            Self.expectSame(store, model, step: step)
        }
    }

    /// A PPS stored before its SPS, at an id above every other: the SPS that arrives later
    /// completes its slice-header context (the merge covers the PPS ids stored so far).
    @Test func aLaterSPSCompletesTheContextOfAHighPPS() throws {
        var store = ParameterSetStore()
        let p = Self.pps(id: 200, spsID: 31, variant: 5)
        store.insert(p)
        #expect(store.sliceHeaderContext(ppsID: 200, subset: false) == nil)
        #expect(throws: H264Error.self) { try store.activate(ppsID: 200) }
        let s = Self.sps(id: 31, variant: 7)
        store.insert(s)
        #expect(store.sliceHeaderContext(ppsID: 200, subset: false) == SliceHeaderContext(sps: s, pps: p))
        try store.activate(ppsID: 200)
        #expect(store.activeSPSID == 31 && store.activePPSID == 200)
        #expect(store.pps(id: 199) == nil && store.pps(id: 201) == nil && store.pps(id: 256) == nil)
    }
}
