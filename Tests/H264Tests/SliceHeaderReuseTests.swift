import H264Fixtures
import Testing
@testable import H264
import TestSupport

/// `SliceHeader.parse(_:context:into:)` gives the header a fresh parse gives, whatever the
/// header it parses into held: another slice of any kind (with or without weights, marking
/// operations, list modifications) or what a failed parse left half written.
@Suite struct SliceHeaderReuseTests {
    /// What parsing one NAL unit gave: the header and its length, or the error.
    struct Outcome: Equatable {
        var header: SliceHeader?
        var bitLength = 0
        var error: H264Error?
    }

    static func fresh(_ unit: NALUnit, _ store: ParameterSetStore) -> Outcome {
        do throws(H264Error) {
            let (header, bits) = try SliceHeader.parse(unit, context: store)
            return Outcome(header: header, bitLength: bits)
        } catch {
            return Outcome(error: error)
        }
    }

    /// Parses into `header`; the outcome, and `header` as the parse left it.
    static func reused(_ unit: NALUnit, _ store: ParameterSetStore, into header: inout SliceHeader) -> Outcome {
        do throws(H264Error) {
            let bits = try SliceHeader.parse(unit, context: store, into: &header)
            return Outcome(header: header, bitLength: bits)
        } catch {
            return Outcome(error: error)
        }
    }

    /// The checks of one stream: every slice parsed into the header of the slice before it (in
    /// stream order), into headers held from other slices and other streams (`pool`, a rotating
    /// pick), and, after a parse of a truncated copy of the slice failed in it, into that header.
    /// - Returns: the number of slices checked.
    static func check(_ bytes: [UInt8], name: String, pool: inout [SliceHeader]) -> Int {
        var store = ParameterSetStore()
        var previous = SliceHeader()
        var checked = 0
        var splitter = AnnexB.Splitter(bytes[...], leadingData: .skip)
        while let unit = try? splitter.next() {
            switch unit.type {
            case .sps, .pps, .subsetSPS:
                _ = try? store.ingest(unit)
                continue
            case .slice, .idrSlice, .sliceExtension: break
            default: continue
            }
            let expected = fresh(unit, store)
            // In stream order.
            #expect(reused(unit, store, into: &previous) == expected, "\(name): slice \(checked) parsed into the previous slice's header")
            if let header = expected.header {
                #expect(previous.hashValue == header.hashValue, "\(name): slice \(checked): hash")
            }
            // Into headers of other slices (copies: their storage is shared, as a caller's may be).
            for k in 0..<min(3, pool.count) {
                var other = pool[(checked &* 7 &+ k &* 13) % pool.count]
                #expect(reused(unit, store, into: &other) == expected, "\(name): slice \(checked) parsed into pool header \(k)")
            }
            // After a failed parse of a cut copy, in a header that held a full slice.
            let payload = Array(unit.bytes)
            if payload.count > 3 {
                let cutAt = 2 &+ checked % min(payload.count &- 2, 40)
                if let cut = try? NALUnit(Array(payload[..<cutAt])) {
                    var broken = pool.last ?? previous
                    let cutExpected = fresh(cut, store)
                    #expect(reused(cut, store, into: &broken) == cutExpected, "\(name): slice \(checked) cut at \(cutAt)")
                    #expect(reused(unit, store, into: &broken) == expected, "\(name): slice \(checked) after a failed parse")
                    if cutExpected.error != nil && pool.count < 64 { pool.append(broken) }
                }
            }
            // Keep headers with lists (and a few others) for the next slices.
            if let header = expected.header {
                if header.predWeightTable == nil && header.refPicListModificationL0.operations.isEmpty
                    && header.refPicListModificationL1.operations.isEmpty {
                    #expect(header.lists.storage == nil, "\(name): slice \(checked): a fresh header without lists holds no storage")
                }
                let rich = header.predWeightTable != nil || !(header.decRefPicMarking?.operations.isEmpty ?? true)
                    || !header.refPicListModificationL0.operations.isEmpty || !header.refPicListModificationL1.operations.isEmpty
                if rich || checked % 50 == 0 {
                    if pool.count >= 64 { pool.removeFirst() }
                    pool.append(header)
                }
            }
            checked &+= 1
        }
        return checked
    }

    /// Every Annex-B fixture.
    @Test func fixtures() {
        var pool: [SliceHeader] = []
        var checked = 0
        for fixture in Fixture.allCases where fixture.facts.kind == .annexB {
            checked += Self.check(fixture.bytes(), name: "\(fixture)", pool: &pool)
        }
        #expect(checked > 100)
    }

    /// Every Annex-B stream of the corpus (weighted prediction, marking operations, list
    /// modifications, MVC and field streams among them), each with the headers of the streams
    /// before it in the pool.
    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
    func corpus() throws {
        var pool: [SliceHeader] = []
        var checked = 0
        var weighted = 0
        for path in Corpus.annexBStreams {
            checked += Self.check(try Corpus.read(path), name: path, pool: &pool)
            weighted += pool.filter { $0.predWeightTable != nil }.count
        }
        #expect(checked > 10_000)
        #expect(weighted > 0)
    }

    /// A weight table and a marking that the next slice does not code are nil, and compare and
    /// hash as nil, whatever storage they keep; one written through the optional is there.
    @Test func absentTablesCompareAsNil() {
        var header = SliceHeader()
        var table = PredWeightTable()
        table.l0 = [PredWeightTable.Entry(), PredWeightTable.Entry()]
        header.predWeightTable = table
        var marking = DecRefPicMarking()
        marking.adaptiveRefPicMarkingModeFlag = true
        marking.operations = [DecRefPicMarking.Operation(operation: 5)]
        header.decRefPicMarking = marking
        #expect(header != SliceHeader())
        #expect(header.hasMMCO5)
        header.predWeightTable = nil
        header.decRefPicMarking = nil
        #expect(header == SliceHeader())
        #expect(header.hashValue == SliceHeader().hashValue)
        #expect(!header.hasMMCO5)
        // Through the optional, in place.
        header.predWeightTable = PredWeightTable()
        header.predWeightTable?.l0.append(PredWeightTable.Entry())
        header.predWeightTable?.lumaLog2WeightDenom = 3
        #expect(header.predWeightTable?.l0.count == 1)
        #expect(header.predWeightTable?.lumaLog2WeightDenom == 3)
        header.decRefPicMarking?.operations.append(DecRefPicMarking.Operation(operation: 1))
        #expect(header.decRefPicMarking == nil)  // optional chaining on nil changes nothing
    }

    /// Copies of a header share its lists' storage until one of them changes: changing the
    /// lists of one, or parsing into it, leaves the others as they were.
    @Test func copiesKeepTheirLists() {
        var header = SliceHeader()
        header.refPicListModificationL0 = RefPicListModification(operations: [.init(idc: 0, value: 1)])
        var table = PredWeightTable()
        table.l0 = [PredWeightTable.Entry()]
        header.predWeightTable = table
        let copy = header
        #expect(copy.lists.storage === header.lists.storage)
        header.refPicListModificationL0.operations.append(.init(idc: 1, value: 2))
        header.predWeightTable?.l0.append(PredWeightTable.Entry())
        header.refPicListModificationL1.operations.append(.init(idc: 2, value: 3))
        #expect(copy.refPicListModificationL0.operations == [.init(idc: 0, value: 1)])
        #expect(copy.predWeightTable?.l0.count == 1)
        #expect(copy.refPicListModificationL1.operations.isEmpty)
        #expect(header.refPicListModificationL0.operations.count == 2)
        #expect(header.predWeightTable?.l0.count == 2)
        // Parsing into the header (its reset) leaves a copy whole, and the header ends fresh.
        let snapshot = header
        header.resetForReading(nalUnitHeader: NALUnitHeader(nalRefIdc: 0, nalUnitType: .slice), keepingStorage: true)
        #expect(header == SliceHeader())
        #expect(snapshot.refPicListModificationL0.operations.count == 2)
        #expect(snapshot.refPicListModificationL1.operations.count == 1)
        #expect(snapshot.predWeightTable?.l0.count == 2)
        #expect(snapshot != header)
        #expect(copy != snapshot)
    }

    /// The reset before a parse into a header leaves nothing of the old header: with every
    /// stored property changed, it gives the fresh header. A stored property added to
    /// `SliceHeader` changes the count below (the packed scalars, the lists, the marking's
    /// operations), so that this test (and the reset) are updated.
    @Test func resetLeavesNothingOfTheOldHeader() {
        var h = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 3, nalUnitType: .idrSlice))
        #expect(Mirror(reflecting: h).children.count == 3)
        h.firstMbInSlice = 7
        h.sliceType = .b
        h.ppsID = 9
        h.colourPlaneID = 2
        h.frameNum = 11
        h.fieldPicFlag = true
        h.bottomFieldFlag = true
        h.idrPicID = 13
        h.picOrderCntLsb = 15
        h.deltaPicOrderCntBottom = -1
        h.deltaPicOrderCnt0 = -2
        h.deltaPicOrderCnt1 = -3
        h.redundantPicCnt = 4
        h.directSpatialMvPredFlag = true
        h.numRefIdxActiveOverrideFlag = true
        h.numRefIdxL0ActiveMinus1 = 5
        h.numRefIdxL1ActiveMinus1 = 6
        h.refPicListModificationFlagL0 = true
        h.refPicListModificationL0 = RefPicListModification(operations: [.init(idc: 0, value: 1)])
        h.refPicListModificationFlagL1 = true
        h.refPicListModificationL1 = RefPicListModification(operations: [.init(idc: 1, value: 2)])
        h.predWeightTable = PredWeightTable()
        h.decRefPicMarking = SliceHeaderFieldsTests.everyMarkingPart(operation: 5)  // every flag set
        h.cabacInitIDC = 2
        h.sliceQpDelta = -4
        h.spForSwitchFlag = true
        h.sliceQsDelta = 3
        h.disableDeblockingFilterIDC = 2
        h.sliceAlphaC0OffsetDiv2 = 1
        h.sliceBetaOffsetDiv2 = -1
        h.sliceGroupChangeCycle = 17
        let nalUnitHeader = NALUnitHeader(nalRefIdc: 0, nalUnitType: .slice)
        h.resetForReading(nalUnitHeader: nalUnitHeader, keepingStorage: true)
        #expect(h == SliceHeader(nalUnitHeader: nalUnitHeader))
        // The lists kept their storage.
        #expect(h.refPicListModificationL0.operations.capacity >= 1)
        #expect(h.refPicListModificationL1.operations.capacity >= 1)
    }
}
