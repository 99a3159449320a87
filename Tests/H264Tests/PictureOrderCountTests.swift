import Testing
@testable import H264
import TestSupport

@Suite struct PictureOrderCountTests {
    @Test func type0WrapsTheLsb() {
        let params = POCParameters(picOrderCntType: 0, maxFrameNum: 16, maxPicOrderCntLsb: 16)
        var counter = PictureOrderCountDecoder()
        var got: [Int64] = []
        for (i, lsb) in [0, 4, 8, 12, 0, 4, 14].enumerated() {
            let pic = POCInputs(isIDR: i == 0, isReference: true, frameNum: Int64(i), picOrderCntLsb: Int64(lsb))
            got.append(counter.next(pic, params).value)
        }
        // 14 after 4 (Msb 16) is more than half the range back: Msb returns to 0.
        #expect(got == [0, 4, 8, 12, 16, 20, 14])
    }

    @Test func type0NonReferencePicturesDoNotMoveTheBase() {
        let params = POCParameters(picOrderCntType: 0, maxFrameNum: 16, maxPicOrderCntLsb: 16)
        var counter = PictureOrderCountDecoder()
        let seq: [(Bool, Int64)] = [(true, 0), (true, 6), (false, 2), (true, 12), (false, 8), (true, 2), (false, 14)]
        let got = seq.enumerated().map { i, p in
            counter.next(POCInputs(isIDR: i == 0, isReference: p.0, frameNum: Int64(i), picOrderCntLsb: p.1), params).value
        }
        // 2 after reference 12 wraps forward to 18; non-reference 8 and 14 are measured from the
        // last reference picture, not from each other.
        #expect(got == [0, 6, 2, 12, 8, 18, 14])
    }

    @Test func type0MMCO5ResetsTheBase() {
        let params = POCParameters(picOrderCntType: 0, maxFrameNum: 16, maxPicOrderCntLsb: 16)
        var counter = PictureOrderCountDecoder()
        _ = counter.next(POCInputs(isIDR: true, isReference: true, frameNum: 0, picOrderCntLsb: 0), params)
        let m = counter.next(POCInputs(isIDR: false, isReference: true, frameNum: 1, picOrderCntLsb: 6, deltaPicOrderCntBottom: 1, hasMMCO5: true), params)
        #expect(m.value == 6)
        // Next picture: prevMsb 0, prevLsb = top - min(top, bottom) = 0.
        let n = counter.next(POCInputs(isIDR: false, isReference: true, frameNum: 1, picOrderCntLsb: 2), params)
        #expect(n.value == 2)
    }

    @Test func type1Cycle() {
        let params = POCParameters(picOrderCntType: 1, maxFrameNum: 16, offsetForNonRefPic: -1,
                                   offsetForTopToBottomField: 0, offsetForRefFrame: [4])
        var counter = PictureOrderCountDecoder()
        // I0 P1 b(nonref, frame_num 2) P2
        let pics = [POCInputs(isIDR: true, isReference: true, frameNum: 0),
                    POCInputs(isIDR: false, isReference: true, frameNum: 1),
                    POCInputs(isIDR: false, isReference: false, frameNum: 2),
                    POCInputs(isIDR: false, isReference: true, frameNum: 2)]
        #expect(pics.map { counter.next($0, params).value } == [0, 4, 3, 8])
    }

    @Test func type2FollowsFrameNumAndWraps() {
        let params = POCParameters(picOrderCntType: 2, maxFrameNum: 4)
        var counter = PictureOrderCountDecoder()
        let pics = (0..<6).map { i in POCInputs(isIDR: i == 0, isReference: i != 4, frameNum: Int64(i % 4)) }
        #expect(pics.map { counter.next($0, params).value } == [0, 2, 4, 6, 7, 10])
    }

    @Test func fieldsGetTheirOwnCounts() {
        let params = POCParameters(picOrderCntType: 0, maxFrameNum: 16, maxPicOrderCntLsb: 64)
        var counter = PictureOrderCountDecoder()
        let top = counter.next(POCInputs(isIDR: true, isReference: true, frameNum: 0, fieldPic: true, picOrderCntLsb: 0), params)
        let bottom = counter.next(POCInputs(isIDR: false, isReference: true, frameNum: 0, fieldPic: true, bottomField: true, picOrderCntLsb: 1), params)
        #expect(top.value == 0 && bottom.value == 1)
    }
}

@Suite struct PresentationOrderTests {
    @Test func reordersBFrames() {
        // Decode order I0 P3 B1 B2 P6 B4 B5 (POC in display units).
        let pocs: [Int64] = [0, 6, 2, 4, 12, 8, 10]
        var order = PresentationOrder(reorderDepth: 2)
        var pairs: [(decodeIndex: Int, presentationIndex: Int)] = []
        for (i, poc) in pocs.enumerated() { pairs += order.push(decodeIndex: i, poc: poc, startsPeriod: i == 0) }
        pairs += order.flush()
        let presentation = pairs.sorted { $0.decodeIndex < $1.decodeIndex }.map(\.presentationIndex)
        #expect(presentation == [0, 3, 1, 2, 6, 4, 5])
        #expect(TimestampDerivation.requiredDelay(pairs) == 1)
    }

    @Test func idrFlushesThePeriod() {
        var order = PresentationOrder(reorderDepth: 4)
        var pairs: [(decodeIndex: Int, presentationIndex: Int)] = []
        for (i, poc) in ([0, 4, 2, 0, 2] as [Int64]).enumerated() {
            pairs += order.push(decodeIndex: i, poc: poc, startsPeriod: i == 0 || i == 3)
        }
        pairs += order.flush()
        #expect(pairs.map(\.decodeIndex) == [0, 2, 1, 3, 4])
    }

    /// The former implementation (scan for the smallest POC, first pushed among equals,
    /// `remove(at:)`), kept as the reference for the sorted order with a head index.
    private struct ScanOrder {
        var depth: Int
        var waiting: [(decodeIndex: Int, poc: Int64)] = []
        var next = 0
        mutating func push(_ d: Int, _ poc: Int64, _ starts: Bool) -> [(decodeIndex: Int, presentationIndex: Int)] {
            var out: [(decodeIndex: Int, presentationIndex: Int)] = []
            if starts { out += flush() }
            waiting.append((d, poc))
            while waiting.count > depth { out.append(release()) }
            return out
        }
        mutating func flush() -> [(decodeIndex: Int, presentationIndex: Int)] {
            var out: [(decodeIndex: Int, presentationIndex: Int)] = []
            while !waiting.isEmpty { out.append(release()) }
            return out
        }
        mutating func release() -> (decodeIndex: Int, presentationIndex: Int) {
            var best = 0
            for i in 1..<waiting.count where waiting[i].poc < waiting[best].poc { best = i }
            let p = waiting.remove(at: best)
            next += 1
            return (p.decodeIndex, next - 1)
        }
    }

    /// Every depth 0...33 (33 is clamped to 32), seeded random POCs with many ties, periods
    /// started at random, flushes mid-stream and long runs without a period start (so that
    /// released places are reclaimed many times): the same pictures released at every push.
    @Test func sameReleasesAsTheScan() {
        var rng = SplitMix64(seed: 16)
        for depth in 0...33 {
            for trial in 0..<6 {
                var order = PresentationOrder(reorderDepth: depth)
                var reference = ScanOrder(depth: Swift.min(depth, 32))
                let span = UInt64([2, 5, 40, 1_000][trial % 4])  // small spans: many equal POCs
                let startsEvery = UInt64([0, 3, 50][trial % 3])
                for d in 0..<400 {
                    let poc = Int64(rng.next() % span) - (trial == 5 ? Int64(span / 2) : 0)
                    let starts = startsEvery != 0 && rng.next() % startsEvery == 0
                    let got = order.push(decodeIndex: d, poc: poc, startsPeriod: starts)
                    let expected = reference.push(d, poc, starts)
                    #expect(got.map(\.decodeIndex) == expected.map(\.decodeIndex), "depth \(depth) trial \(trial) picture \(d)")
                    #expect(got.map(\.presentationIndex) == expected.map(\.presentationIndex))
                    if rng.next() % 97 == 0 {
                        #expect(order.flush().map(\.decodeIndex) == reference.flush().map(\.decodeIndex))
                    }
                }
                #expect(order.flush().map(\.decodeIndex) == reference.flush().map(\.decodeIndex))
            }
        }
    }
}

@Suite struct NewPictureDetectionTests {
    @Test func rulesOf7_4_1_2_4() {
        let a = SlicePictureFields(isIDR: false, nalRefIdc: 2, picParameterSetId: 0, frameNum: 3, picOrderCntLsb: 6)
        var b = a
        b.firstMbInSlice = 40
        #expect(!b.startsNewPicture(after: a))
        var c = a; c.frameNum = 4
        #expect(c.startsNewPicture(after: a))
        var d = a; d.nalRefIdc = 0
        #expect(d.startsNewPicture(after: a))
        var e = a; e.nalRefIdc = 1
        #expect(!e.startsNewPicture(after: a))
        var f = a; f.picOrderCntLsb = 8
        #expect(f.startsNewPicture(after: a))
        var g = a; g.redundantPicCnt = 1; g.frameNum = 9
        #expect(!g.startsNewPicture(after: a))
        var h = a; h.isIDR = true
        #expect(h.startsNewPicture(after: a))
        var i = h; i.idrPicId = 1
        #expect(i.startsNewPicture(after: h))
        var j = a; j.fieldPic = true; var k = j; k.bottomField = true
        #expect(k.startsNewPicture(after: j))
    }
}
