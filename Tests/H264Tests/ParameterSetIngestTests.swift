import Testing
import TestSupport
@testable import H264
import H264Fixtures

/// `ParameterSetStore.ingest` recognises an SPS or PPS received again with the same bytes and
/// does not parse it: the store must then be in the state parsing it again would give. Checked
/// against a store that parses every parameter set (setting `parseMode` forgets every payload),
/// after every NAL unit of the fixtures and the corpus, through everything a reader asks of the
/// store: the sets, the slice-header contexts, activation, warnings, and the SEI and slice
/// headers parsed with each store as the context. The same for a set whose bytes switch back to
/// an earlier version the store kept (restored, not parsed), and for hostile streams that cycle
/// ids and bytes (the versions kept stay within their bounds).
@Suite struct ParameterSetIngestTests {
    /// The same NAL units through the store under test and a store that parses every set.
    struct Pair {
        var store: ParameterSetStore
        var reference: ParameterSetStore
        var ppsIDs: Set<Int> = []
        /// The sets the store under test restored from a version it kept.
        var restored = 0
        /// Checks the versions' index after every parameter set (O(versions)).
        var checksVersionIndex = false

        init(mode: ParseMode = .default) {
            store = ParameterSetStore(parseMode: mode)
            reference = ParameterSetStore(parseMode: mode)
        }

        /// Feeds `unit` to both stores as a stream reader does; records any difference.
        mutating func feed(_ unit: NALUnit, _ label: String) {
            switch unit.type {
            case .sps, .pps, .subsetSPS:
                let mode = reference.parseMode
                reference.parseMode = mode  // forgets every payload: a full parse
                let a = Result { () throws(H264Error) in try store.ingestNoting(unit) }
                let b = Result { () throws(H264Error) in try reference.ingestNoting(unit) }
                #expect(Self.same(a.map { $0 != .ignored }, b.map { $0 != .ignored }), "\(label): ingest")
                #expect((try? b.get()) != .restored, "\(label): the reference parses every set")
                if case .success(.restored) = a { restored += 1 }
                let versions = store.versions
                #expect(versions.count <= ParameterSetVersions.capacity && versions.bytes <= ParameterSetVersions.byteBudget,
                        "\(label): versions within their bounds")
                if checksVersionIndex { #expect(versions.isConsistent, "\(label): versions' index") }
                if unit.type == .pps, let id = unit.parameterSetID { ppsIDs.insert(id) }
                expectSameSets(label)
            case .sei:
                // The store overload (specialised) and the generic one, on both stores.
                let a = Result { () throws(H264Error) in try SEI.parse(unit, context: store) }
                let b = Result { () throws(H264Error) in try Self.parseSEIGenerically(unit, context: reference) }
                #expect(Self.same(a, b), "\(label): SEI")
            case .slice, .idrSlice, .sliceExtension:
                let a = Result { () throws(H264Error) in try SliceHeader.parse(unit, context: store).header }
                let b = Result { () throws(H264Error) in try SliceHeader.parse(unit, context: reference).header }
                #expect(Self.same(a, b), "\(label): slice header")
                if case .success(let header) = a {
                    let x = Result { () throws(H264Error) -> Bool in try store.activate(header); return true }
                    let y = Result { () throws(H264Error) -> Bool in try reference.activate(header); return true }
                    #expect(Self.same(x, y), "\(label): activate")
                    #expect(store.activeSPSID == reference.activeSPSID && store.activePPSID == reference.activePPSID, "\(label): active ids")
                }
            default:
                break
            }
        }

        func expectSameSets(_ label: String) {
            for id in 0..<ParameterSetStore.spsIDCount {
                #expect(store.sps(id: id) == reference.sps(id: id), "\(label): SPS \(id)")
                #expect(store.subsetSPS(id: id) == reference.subsetSPS(id: id), "\(label): subset SPS \(id)")
            }
            for id in ppsIDs {
                #expect(store.pps(id: id) == reference.pps(id: id), "\(label): PPS \(id)")
                for subset in [false, true] {
                    #expect(store.sliceHeaderContext(ppsID: id, subset: subset) == reference.sliceHeaderContext(ppsID: id, subset: subset),
                            "\(label): slice-header context of PPS \(id)")
                }
            }
            #expect(store.warnings == reference.warnings && store.droppedWarningCount == reference.droppedWarningCount, "\(label): warnings")
            #expect(store.activeSEITimingInfo == reference.activeSEITimingInfo, "\(label): active timing")
        }

        static func parseSEIGenerically(_ unit: NALUnit, context: some SyntaxContext) throws(H264Error) -> SEINALUnit {
            try SEI.parse(unit, context: context)
        }

        static func same<T: Equatable>(_ a: Result<T, H264Error>, _ b: Result<T, H264Error>) -> Bool {
            switch (a, b) {
            case (.success(let x), .success(let y)): return x == y
            case (.failure(let x), .failure(let y)): return x.code == y.code && x.description == y.description
            default: return false
            }
        }
    }

    static let annexBFixtures = Fixture.allCases.filter { $0.facts.kind == .annexB }

    /// The NAL units of an Annex-B stream, as a lenient reader splits them (leading bytes
    /// skipped, the split stopping at its first error).
    static func units(_ bytes: [UInt8]) -> [NALUnit] {
        var splitter = AnnexB.Splitter(bytes[...], leadingData: .skip)
        var units: [NALUnit] = []
        while let unit = try? splitter.next() { units.append(unit) }
        return units
    }

    @Test(arguments: annexBFixtures)
    func aRecognisedRepeatLeavesTheStateAParseWould(fixture: Fixture) throws {
        let units = Self.units(fixture.bytes())
        for mode in [ParseMode.default, .lenient, .strict] {
            var pair = Pair(mode: mode)
            // Twice over: the second pass repeats every set of the first.
            for pass in 0..<2 {
                for (i, unit) in units.enumerated() { pair.feed(unit, "\(fixture) \(mode) pass \(pass) unit \(i)") }
            }
        }
    }

    @Test(.enabled(if: Corpus.isPresent, "needs the shared corpus (../shared/corpus)"))
    func aRecognisedRepeatLeavesTheStateAParseWouldOnTheCorpus() throws {
        var streams = 0
        for name in Corpus.annexBStreams {
            let bytes = try Corpus.read(name)
            var pair = Pair()
            for (i, unit) in Self.units(bytes).enumerated() { pair.feed(unit, "\(name) unit \(i)") }
            streams += 1
        }
        #expect(streams > 50)
    }

    /// A PPS whose parse depends on its SPS: `pic_init_qp_minus26` -30 is in range only when the
    /// SPS's luma bit depth is above 8 (its low bound is -26 - 6 * bit_depth_luma_minus8).
    static func units(bitDepthMinus8: [UInt8]) throws -> (sps: [NALUnit], pps: NALUnit) {
        let spsUnits = try bitDepthMinus8.map { depth throws(H264Error) -> NALUnit in
            var sps = SequenceParameterSet()
            sps.profileIDC = 110
            sps.bitDepthLumaMinus8 = depth
            sps.bitDepthChromaMinus8 = depth
            return try sps.nalUnit(header: NALUnitHeader(nalRefIdc: 3, nalUnitType: .sps), context: .empty)
        }
        var pps = PictureParameterSet()
        pps.picInitQpMinus26 = -30
        var high = SequenceParameterSet()
        high.profileIDC = 110
        high.bitDepthLumaMinus8 = 2
        let ppsUnit = try pps.nalUnit(header: NALUnitHeader(nalRefIdc: 3, nalUnitType: .pps), context: ParameterSetStore(sps: high))
        return (spsUnits, ppsUnit)
    }

    /// An SPS changed under an unchanged PPS: the PPS's bytes are parsed again against the new
    /// SPS (here they become out of range, then valid again when the first SPS comes back).
    @Test func aPPSIsParsedAgainWhenItsSPSChanged() throws {
        let (sps, pps) = try Self.units(bitDepthMinus8: [2, 0])
        var store = ParameterSetStore()
        try store.ingest(sps[0])
        try store.ingest(pps)
        let parsed = try #require(store.pps(id: 0))
        #expect(parsed.picInitQpMinus26 == -30)
        try store.ingest(pps)  // a repeat
        #expect(store.pps(id: 0) == parsed)
        try store.ingest(sps[1])  // 8-bit: -30 is out of range for the same PPS bytes
        #expect(throws: H264Error.self) { try store.ingest(pps) }
        #expect(throws: H264Error.self, "an error is never remembered as a repeat") { try store.ingest(pps) }
        #expect(store.pps(id: 0) == parsed, "a failed parse leaves the stored PPS")
        try store.ingest(sps[0])  // the 10-bit SPS again
        try store.ingest(pps)
        #expect(store.pps(id: 0) == parsed)
        #expect(store.sliceHeaderContext(ppsID: 0, subset: false)?.bitDepthLumaMinus8 == 2)
        var pair = Pair()
        for (i, unit) in [sps[0], pps, pps, sps[1], pps, pps, sps[0], pps, sps[0], pps].enumerated() { pair.feed(unit, "step \(i)") }
    }

    /// A subset SPS (MVC streams repeat theirs) is recognised by its bytes too: a repeat is not
    /// parsed, another subset SPS under the same id replaces it (and its bytes are no longer a
    /// repeat), and a plain SPS with the same id is another table. After every step the store
    /// equals one that parses every set.
    @Test func aRepeatedSubsetSPSIsRecognisedAndAReplacementIsNot() throws {
        func subset(id: Int, variant: UInt64, extensionByte: UInt8) throws -> NALUnit {
            var s = SubsetSequenceParameterSet()
            s.sps = ParameterSetStoreTests.sps(id: id, variant: variant)
            s.sps.profileIDC = 118  // Multiview High
            s.extensionBytes = [extensionByte, 0x80]
            // The raw extension starts at the byte boundary after the SPS part: the head bits
            // are as many as the SPS part leaves to it (the writer refuses any other count).
            for head in 0...7 {
                s.extensionHeadBitCount = head
                if let unit = try? s.nalUnit(header: NALUnitHeader(nalRefIdc: 3, nalUnitType: .subsetSPS), context: .empty) {
                    return unit
                }
            }
            throw H264Error.invalid(.unsupported, "no head bit count fits")
        }
        let a = try subset(id: 3, variant: 5, extensionByte: 0x11)
        let b = try subset(id: 3, variant: 5, extensionByte: 0x22)  // same SPS part, other extension
        let c = try subset(id: 7, variant: 9, extensionByte: 0x11)
        let plain = try Self.unit(ParameterSetStoreTests.sps(id: 3, variant: 5))
        var store = ParameterSetStore()
        #expect(try store.ingestNoting(a) == .stored)
        #expect(try store.ingestNoting(a) == .repeated)
        #expect(try store.ingest(a), "a repeat still reports a parameter set")
        #expect(try store.ingestNoting(b) == .stored)
        #expect(store.subsetSPS(id: 3)?.extensionBytes == [0x22, 0x80])
        #expect(try store.ingestNoting(a) == .stored, "replaced: a's bytes are not a repeat any more")
        #expect(store.subsetSPS(id: 3)?.extensionBytes == [0x11, 0x80])
        #expect(try store.ingestNoting(c) == .stored)
        #expect(try store.ingestNoting(a) == .repeated, "another id's subset SPS leaves id 3's")
        #expect(try store.ingestNoting(plain) == .stored, "an SPS is not a subset SPS")
        #expect(try store.ingestNoting(a) == .repeated)
        var other = SubsetSequenceParameterSet()
        other.sps = ParameterSetStoreTests.sps(id: 3, variant: 6)
        store.insert(other)
        #expect(try store.ingestNoting(a) == .stored, "a subset SPS inserted directly replaces the remembered bytes")
        #expect(store.subsetSPS(id: 3)?.extensionBytes == [0x11, 0x80])
        var pair = Pair()
        for (i, unit) in [a, a, b, a, c, a, plain, a, b, b].enumerated() { pair.feed(unit, "step \(i)") }
    }

    /// The NAL unit of `pps`, coded against `sps`.
    static func unit(_ pps: PictureParameterSet, sps: SequenceParameterSet) throws -> NALUnit {
        try pps.nalUnit(header: NALUnitHeader(nalRefIdc: 3, nalUnitType: .pps), context: ParameterSetStore(sps: sps))
    }

    /// The NAL unit of `sps`.
    static func unit(_ sps: SequenceParameterSet) throws -> NALUnit {
        try sps.nalUnit(header: NALUnitHeader(nalRefIdc: 3, nalUnitType: .sps), context: .empty)
    }

    /// Sets that switch back and forth between versions under the same ids, in a seeded random
    /// order: three versions of SPS 0 (the PPS of ``units(bitDepthMinus8:)`` is valid under two
    /// of them), two of SPS 1, three of PPS 0 and four of PPS 1 naming SPS 0 or 1, under each
    /// parse mode. After every one the store equals one that parses every set; most are
    /// restored from the versions kept (none is parsed twice against the same SPS).
    @Test func setsSwitchingBackAndForthLeaveTheStateAParseWould() throws {
        let (spsUnits, dependent) = try Self.units(bitDepthMinus8: [2, 0, 1])
        var pool = spsUnits + [dependent]
        var high = SequenceParameterSet()
        high.profileIDC = 110
        high.bitDepthLumaMinus8 = 2
        for level: UInt8 in [30, 31] {
            var sps = high
            sps.id = 1
            sps.levelIDC = level
            pool.append(try Self.unit(sps))
        }
        for (id, spsID, offset) in [(0, 0, 3), (0, 0, -2), (1, 0, 0), (1, 0, 1), (1, 1, 5), (1, 1, 6)] {
            var pps = PictureParameterSet()
            pps.id = UInt8(id)
            pps.spsID = UInt8(spsID)
            pps.picInitQsMinus26 = Int8(offset)
            var sps = high
            sps.id = UInt8(spsID)
            pool.append(try Self.unit(pps, sps: sps))
        }
        for (seed, mode) in [ParseMode.default, .lenient, .strict].enumerated() {
            var rng = SplitMix64(seed: UInt64(seed) &+ 16)
            var pair = Pair(mode: mode)
            for step in 0..<800 {
                pair.feed(pool[Int(rng.next() % UInt64(pool.count))], "\(mode) step \(step)")
            }
            // 13 versions against at most 3 x 2 SPS: at most ~40 parses, the rest restored or repeats.
            #expect(pair.restored > 400, "\(mode): \(pair.restored) restored")
        }
    }

    /// Hostile streams that cycle ids and bytes: 3,000 distinct SPS and PPS over every id (some
    /// of about 2 KB), 1,500 of them in a seeded random order. The versions kept stay
    /// within their count and byte bounds after every set (checked in `feed`), the store equals
    /// one that parses every set, and a NAL unit over the size kept is parsed every time.
    @Test func cyclingIDsAndBytesStaysWithinTheBounds() throws {
        var rng = SplitMix64(seed: 1_616)
        var pool: [NALUnit] = []
        var spsByID: [SequenceParameterSet] = []
        for id in 0..<32 {
            var sps = SequenceParameterSet()
            sps.id = UInt8(id)
            spsByID.append(sps)
        }
        for i in 0..<3_000 {
            if i % 5 == 0 {
                var sps = spsByID[Int(rng.next() % 32)]
                sps.levelIDC = UInt8(truncatingIfNeeded: rng.next())
                if i % 3 == 0 {  // about 2 KB: 255 offsets of 62 bits
                    sps.picOrderCntType = 1
                    sps.offsetForRefFrame = (0..<255).map { _ in Int32.min + 1 + Int32(truncatingIfNeeded: rng.next() % 1_000) }
                }
                pool.append(try Self.unit(sps))
            } else {
                var pps = PictureParameterSet()
                pps.id = UInt8(truncatingIfNeeded: rng.next())
                pps.spsID = UInt8(rng.next() % 32)
                pps.picInitQsMinus26 = Int8(rng.next() % 25) - 12
                pps.picInitQpMinus26 = Int8(rng.next() % 25)
                pool.append(try Self.unit(pps, sps: spsByID[Int(pps.spsID)]))
            }
        }
        // A PPS of about 5 KB (a slice group map of 40,000 units): over the size kept.
        var large = PictureParameterSet()
        large.id = 7
        large.numSliceGroupsMinus1 = 1
        large.sliceGroupMapType = 6
        large.sliceGroupID = (0..<40_000).map { UInt8($0 & 1) }
        let largeUnit = try Self.unit(large, sps: spsByID[0])
        #expect(largeUnit.count > ParameterSetVersions.maximumUnitBytes)
        var pair = Pair()
        pair.checksVersionIndex = true
        var fed = 0
        for step in 0..<1_500 {
            let unit = step % 400 == 0 ? largeUnit : pool[Int(rng.next() % UInt64(pool.count))]
            pair.feed(unit, "step \(step)")
            fed += 1
        }
        #expect(fed == 1_500)
        #expect(pair.restored > 20, "\(pair.restored) restored: sets drawn again after other versions came in between")
        #expect(pair.store.versions.count == ParameterSetVersions.capacity || pair.store.versions.bytes > ParameterSetVersions.byteBudget - 4_096,
                "the versions filled one of their bounds")
        // The large PPS is never kept: parsed every time it changes back.
        var store = ParameterSetStore()
        try store.ingest(Self.unit(spsByID[0]))
        var small = PictureParameterSet()
        small.id = 7
        let smallUnit = try Self.unit(small, sps: spsByID[0])
        let steps: [(NALUnit, ParameterSetStore.Ingested)] = [
            (largeUnit, .stored), (smallUnit, .stored), (largeUnit, .stored), (smallUnit, .restored),
            (largeUnit, .stored), (largeUnit, .repeated), (smallUnit, .restored),
        ]
        for (i, (unit, expected)) in steps.enumerated() { #expect(try store.ingestNoting(unit) == expected, "step \(i)") }
        #expect(store.pps(id: 7) == small)
    }

    /// The highest ids and the largest sets: a repeat of SPS 31 (255 offsets of 62 bits each,
    /// about 2 KB) and PPS 255 is recognised; the same SPS with its last offset changed is not;
    /// an SPS with 60,000 bytes of trailing data warns (default mode), so it is parsed, and
    /// warns, every time it comes.
    @Test func highIDsAndLargeSetsAreRecognisedByTheirBytes() throws {
        var sps = SequenceParameterSet()
        sps.id = 31
        sps.picOrderCntType = 1
        sps.offsetForRefFrame = (0..<255).map { Int32.min + 1 + Int32($0) }
        var lastChanged = sps
        lastChanged.offsetForRefFrame[254] += 1
        var trailing = sps
        trailing.trailingData = [UInt8](repeating: 0x55, count: 60_000)
        var pps = PictureParameterSet()
        pps.id = 255
        pps.spsID = 31
        let header = NALUnitHeader(nalRefIdc: 3, nalUnitType: .sps)
        let spsUnit = try sps.nalUnit(header: header, context: .empty)
        #expect(spsUnit.count > 1_900)
        let changedUnit = try lastChanged.nalUnit(header: header, context: .empty)
        let trailingUnit = try trailing.nalUnit(header: header, context: .empty)
        let ppsUnit = try pps.nalUnit(header: NALUnitHeader(nalRefIdc: 3, nalUnitType: .pps), context: ParameterSetStore(sps: sps))
        var pair = Pair()
        let sequence = [spsUnit, ppsUnit, spsUnit, ppsUnit, changedUnit, ppsUnit, ppsUnit, trailingUnit, trailingUnit, spsUnit, ppsUnit]
        for (i, unit) in sequence.enumerated() { pair.feed(unit, "step \(i)") }
        #expect(pair.store.sps(id: 31) == sps)
        #expect(pair.store.pps(id: 255) == pps)
        #expect(pair.store.warnings.count == 2, "the SPS with trailing data warned each time")
        #expect(pair.store.sliceHeaderContext(ppsID: 255, subset: false) == SliceHeaderContext(sps: sps, pps: pps))
        try pair.store.activate(ppsID: 255)
        #expect(pair.store.activeSPSID == 31 && pair.store.activePPSID == 255)
    }
}
