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
}
