import Testing
@testable import H264
import TestSupport

@Suite struct StartCodeScannerTests {
    /// The obvious byte loop the SIMD scan must agree with.
    static func naive(_ bytes: [UInt8], from: Int, third: UInt8) -> Int? {
        var i = from
        while i + 3 <= bytes.count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == third { return i }
            i += 1
        }
        return nil
    }

    @Test(arguments: [UInt8(1), 3])
    func agreesWithTheByteLoop(_ third: UInt8) {
        var rng = SplitMix64(seed: UInt64(third))
        for _ in 0..<1500 {
            let n = Int(rng.next() % 200)
            let density = rng.next() % 4  // from few zeros to mostly zeros
            let bytes = (0..<n).map { _ -> UInt8 in
                let r = rng.next()
                if r % 8 < density * 2 { return 0 }
                return r % 16 == 0 ? third : UInt8(truncatingIfNeeded: r >> 8)
            }
            let from = n == 0 ? 0 : Int(rng.next() % UInt64(n))
            let got = bytes.withUnsafeBufferPointer { StartCodeScanner.find($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, from: from, count: n, third: third) }
            #expect(got == Self.naive(bytes, from: from, third: third))
        }
    }

    @Test func everyPositionInABlock() {
        for position in 0..<70 {
            var bytes = [UInt8](repeating: 0x55, count: 80)
            bytes[position] = 0
            bytes[position + 1] = 0
            bytes[position + 2] = 1
            let got = bytes.withUnsafeBufferPointer { StartCodeScanner.find($0.baseAddress!, from: 0, count: 80) }
            #expect(got == position)
            // A `00 00` not followed by 01 just before it is skipped.
            if position >= 4 {
                bytes[position - 4] = 0
                bytes[position - 3] = 0
                let again = bytes.withUnsafeBufferPointer { StartCodeScanner.find($0.baseAddress!, from: 0, count: 80) }
                #expect(again == position)
            }
        }
    }

    /// The last block (fewer than 34 bytes left) overlaps positions scanned before or lying
    /// before `from`: a start code there is not reported, one at or after `from` is.
    @Test func lastBlockReportsOnlyFromOn() {
        for n in 34...72 {
            for p in 0...(n - 3) {
                var bytes = [UInt8](repeating: 0x55, count: n)
                bytes[p] = 0
                bytes[p + 1] = 0
                bytes[p + 2] = 1
                for from in max(0, n - 40)...n {
                    let got = bytes.withUnsafeBufferPointer { StartCodeScanner.find($0.baseAddress!, from: from, count: n) }
                    #expect(got == (p >= from ? p : nil), "n \(n), start code at \(p), from \(from)")
                }
            }
        }
    }

    /// The cheap block test never rules out a block with a match: `00 00 third` at every
    /// position of a 32-position block, on backgrounds of other bytes, zero runs and
    /// `00 00 03`; and on random dense blocks, whenever the exact test finds a match.
    @Test(arguments: [UInt8(1), 3])
    func mayMatchNeverMissesAMatch(_ third: UInt8) {
        var rng = SplitMix64(seed: 99 + UInt64(third))
        let backgrounds: [[UInt8]] = [
            [UInt8](repeating: 0x55, count: 40),
            [UInt8](repeating: 0, count: 40),
            (0..<40).map { [0, 0, 3][$0 % 3] },
            (0..<40).map { [0, 0, 0, 2][$0 % 4] },
        ]
        for background in backgrounds {
            for p in 0..<32 {
                for shift in 0..<2 {
                    var bytes = background
                    if shift == 1 { bytes.insert(0x7F, at: 0); bytes.removeLast() }
                    bytes[p] = 0
                    bytes[p + 1] = 0
                    bytes[p + 2] = third
                    bytes.withUnsafeBytes { raw in
                        let m = StartCodeScanner.mayMatch(raw.baseAddress!, at: 0, third: third)
                        #expect(m[0] | m[1] != 0, "match at \(p), third \(third)")
                        #expect(StartCodeScanner.firstMatch(raw.baseAddress!, at: 0, third: third) == Self.naive(Array(bytes.prefix(34)), from: 0, third: third))
                    }
                }
            }
        }
        var misses = 0
        var ruledOut = 0
        for _ in 0..<20_000 {
            let bytes = (0..<34).map { _ -> UInt8 in
                let r = rng.next() % 8
                return r < 3 ? 0 : r == 3 ? third : r == 4 ? 3 : UInt8(truncatingIfNeeded: rng.next())
            }
            bytes.withUnsafeBytes { raw in
                let m = StartCodeScanner.mayMatch(raw.baseAddress!, at: 0, third: third)
                let exact = StartCodeScanner.firstMatch(raw.baseAddress!, at: 0, third: third)
                #expect(exact == Self.naive(bytes, from: 0, third: third).flatMap { $0 < 32 ? $0 : nil })
                if exact != nil && m[0] | m[1] == 0 { misses += 1 }
                if m[0] | m[1] == 0 { ruledOut += 1 }
            }
        }
        #expect(misses == 0)
        #expect(ruledOut > 0)  // the test rules blocks out, or it would test nothing
    }

    /// `n` bytes, 40% `00`, 20% `03`, the rest between `04` and `7F` (header bytes
    /// without the forbidden bit): zero runs and `00 00 03` without start codes.
    static func zerosAndThrees(_ n: Int, _ rng: inout SplitMix64) -> [UInt8] {
        (0..<n).map { _ -> UInt8 in
            switch rng.next() % 5 {
            case 0, 1: 0
            case 2: 3
            default: UInt8(truncatingIfNeeded: rng.next() >> 9) & 0x7F | 4
            }
        }
    }

    /// Buffers of every length from 0 to 100, a start code at every offset (or none), on
    /// backgrounds of zero runs and `00 00 03`, from every start index: the scan, and the
    /// scan that copies, agree with the byte loop.
    @Test(arguments: [UInt8(1), 3])
    func everyLengthAndOffset(_ third: UInt8) {
        var rng = SplitMix64(seed: 64 + UInt64(third))
        for n in 0...100 {
            for p in -1..<max(n - 2, 0) {
                var bytes = Self.zerosAndThrees(n, &rng)
                // No chance matches: only the planted one (or none).
                for i in 0..<max(n - 2, 0) where bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == third { bytes[i + 2] = 0x44 }
                if p >= 0 {
                    bytes[p] = 0
                    bytes[p + 1] = 0
                    bytes[p + 2] = third
                }
                let from = n == 0 ? 0 : Int(rng.next() % UInt64(n + 1))
                let expected = Self.naive(bytes, from: from, third: third)
                var copy = [UInt8](repeating: 0xEE, count: max(n - from, 0))
                bytes.withUnsafeBufferPointer { b in
                    let base = b.baseAddress ?? UnsafePointer(bitPattern: 1)!
                    #expect(StartCodeScanner.find(base, from: from, count: n, third: third) == expected, "n \(n), match at \(p), from \(from)")
                    let r = copy.withUnsafeMutableBytes { d in
                        StartCodeScanner.scan(base, from: from, count: n, third: third, copyingTo: d.baseAddress ?? UnsafeMutableRawPointer(bitPattern: 1)!)
                    }
                    #expect(r.match == expected)
                    #expect(r.copiedEnd >= from && r.copiedEnd <= max(n, from))
                    #expect(Array(copy.prefix(max(r.copiedEnd - from, 0))) == Array(bytes[from..<max(r.copiedEnd, from)]))
                }
            }
        }
    }

    /// Every start code, in order, as repeated calls of the direct scan find them.
    static func all(_ bytes: [UInt8], find: (Int) -> Int?) -> [Int] {
        var out: [Int] = []
        var from = 0
        while let j = find(from) {
            out.append(j)
            from = j + 3 + Int(out.count % 3)  // readers skip a start code and sometimes more
        }
        return out
    }

    /// The lookahead answers as the direct scan does: sparse start codes (whole windows), dense
    /// ones (a lane fills up: lane 0 first, or a later lane), start codes across lane and
    /// window boundaries, and the short tail scanned directly.
    @Test(arguments: [0, 1, 2, 3, 4, 5])
    func lookaheadAgreesWithTheScan(_ kind: Int) {
        var rng = SplitMix64(seed: UInt64(kind) + 7)
        let n = 300_000 + Int(rng.next() % 1000)
        var bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next() | 1) }
        func plant(at i: Int) { if i >= 0 && i + 3 <= n { bytes[i] = 0; bytes[i + 1] = 0; bytes[i + 2] = 1 } }
        switch kind {
        case 0:  // NAL units of 10 to 5,000 bytes
            var i = 0
            while i < n { plant(at: i); i += 10 + Int(rng.next() % 5000) }
        case 1:  // dense everywhere: every lane overflows
            var i = 0
            while i < n { plant(at: i); i += 3 + Int(rng.next() % 8) }
        case 2:  // dense only in the second quarter of the first window: lane 1 overflows
            var i = 16 << 10
            while i < 40 << 10 { plant(at: i); i += 3 + Int(rng.next() % 4) }
            for k in stride(from: 0, to: n, by: 16 << 10) { plant(at: k - 1); plant(at: k + 30) }
        case 4:  // a start code at 0, then sparse ones in runs of zeros and `00 00 03` (blocks the cheap test marks)
            for i in 0..<n where rng.next() % 5 == 0 { bytes[i] = rng.next() % 2 == 0 ? 0 : 3 }
            for i in 0..<(n - 2) where bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 { bytes[i + 2] = 5 }
            plant(at: 0)
            var i = 0
            while i < n { plant(at: i); i += 100 + Int(rng.next() % 3000) }
        case 5:  // long zero runs (every 2-byte lane `00 00`) with start codes inside and at their ends
            var i = 0
            while i < n {
                let run = Int(rng.next() % 300)
                for k in i..<min(i + run, n) { bytes[k] = 0 }
                plant(at: i + run - 2)
                if rng.next() % 2 == 0 { plant(at: i + run / 2) }
                i += run + 50 + Int(rng.next() % 500)
            }
        default:  // start codes at every lane and block boundary, with zero runs before them
            for k in stride(from: 32, to: n, by: 32) {
                plant(at: k - 2 + Int(rng.next() % 4))
                if rng.next() % 3 == 0, k >= 40 { bytes[k - 5] = 0; bytes[k - 4] = 0 }
            }
        }
        let expected = bytes.withUnsafeBufferPointer { b in
            Self.all(bytes) { StartCodeScanner.find(b.baseAddress!, from: $0, count: n) }
        }
        var lookahead = StartCodeLookahead()
        let got = bytes.withUnsafeBufferPointer { b in
            Self.all(bytes) { lookahead.next(b.baseAddress!, from: $0, count: n) }
        }
        #expect(expected.count > 50)
        #expect(got == expected)
    }
}
