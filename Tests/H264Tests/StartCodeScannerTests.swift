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
    @Test(arguments: [0, 1, 2, 3])
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
