import Testing
import TestSupport
@testable import H264

@Suite struct BitReaderTests {
    @Test func readsFixedWidthFields() throws {
        var r = BitReader([0b1010_1100, 0xFF, 0x00, 0x80])
        #expect(try r.readBits(1) == 1)
        #expect(try r.readBits(3) == 0b010)
        #expect(try r.readBits(12) == 0b1100_1111_1111)
        #expect(try r.readBits(16) == 0x0080)
        #expect(r.bitsRemaining == 0)
        #expect(throws: H264Error(.truncated, "")) { try r.readBits(1) }
    }

    @Test func reads64Bits() throws {
        var r = BitReader([0xF0, 1, 2, 3, 4, 5, 6, 7, 0x8F])
        _ = try r.readBits(4)
        #expect(try r.readBits(64) == 0x0010_2030_4050_6078)
        #expect(try r.readBits(4) == 0xF)
    }

    /// A failed read leaves the position where it was; more bits than remain is `truncated`,
    /// whatever the count asked for.
    @Test func failedReadsKeepThePosition() throws {
        var r = BitReader([0xFF, 0x00])
        _ = try r.readBits(3)
        #expect(throws: H264Error(.truncated, "")) { try r.readBits(14) }
        #expect(throws: H264Error(.truncated, "")) { try r.readBits(100) }
        #expect(r.bitPosition == 3)
        #expect(try r.readUE() == 0)
        _ = try r.readBits(4)
        #expect(throws: H264Error(.truncated, "")) { try r.readUE() }  // eight zero bits, then the end
        #expect(r.bitPosition == 8)
    }

    @Test(arguments: [(UInt32(0), "1"), (1, "010"), (2, "011"), (3, "00100"), (7, "0001000")])
    func unsignedExpGolomb(value: UInt32, code: String) throws {
        var w = BitWriter()
        w.writeUE(value)
        #expect(w.bitCount == code.count)
        var r = BitReader(w.bytes)
        #expect(try r.readUE() == value)
    }

    @Test func expGolombLimits() throws {
        var w = BitWriter()
        w.writeUE(UInt32.max - 1)  // 31 leading zeros: the largest legal code
        w.writeSE(Int32.min + 1)
        w.writeSE(Int32.max)
        var r = BitReader(w.bytes)
        #expect(try r.readUE() == UInt32.max - 1)
        #expect(try r.readSE() == Int32.min + 1)
        #expect(try r.readSE() == Int32.max)
        var tooLong = BitReader([0, 0, 0, 0, 0x80, 0, 0, 0, 0])  // 32 leading zeros
        #expect(throws: H264Error(.invalidExpGolomb, "")) { try tooLong.readUE() }
        var allZero = BitReader([0, 0])
        #expect(throws: H264Error(.truncated, "")) { try allZero.readUE() }
    }

    @Test func moreRBSPDataIgnoresTrailingZeroBytes() throws {
        var r = BitReader([0b1100_0000, 0x00, 0x00])  // a 1 bit of data, then the stop bit
        #expect(r.moreRBSPData)
        _ = try r.readFlag()
        #expect(!r.moreRBSPData)
        try r.readTrailingBits()
        var bad = BitReader([0b0100_0001])
        _ = try bad.readFlag()
        #expect(throws: H264Error(.invalidTrailingBits, "")) { try bad.readTrailingBits() }
    }
}

@Suite struct EmulationPreventionTests {
    @Test(arguments: [
        ([0x80, 0, 0], [0x80, 0, 0, 3]),
        ([0, 0, 0, 0x80], [0, 0, 3, 0, 0x80]),
        ([0, 0, 1, 0, 0, 2], [0, 0, 3, 1, 0, 0, 3, 2]),
        ([0, 0, 4], [0, 0, 4]),
        ([0, 0, 3, 0, 0], [0, 0, 3, 3, 0, 0, 3]),
        ([1, 2, 3], [1, 2, 3]),
        // Trailing zero bytes: a 03 only after a final 00 00, where it is read back as an
        // emulation-prevention byte (a 03 after a lone 00 would be data).
        ([0x80, 0], [0x80, 0]),
        ([0x80, 0, 0, 0], [0x80, 0, 0, 3, 0]),
        ([0x80, 0, 0, 0, 0], [0x80, 0, 0, 3, 0, 0, 3]),
    ] as [([UInt8], [UInt8])])
    func roundTrip(rbsp: [UInt8], ebsp: [UInt8]) {
        #expect(EmulationPrevention.ebsp(from: rbsp) == ebsp)
        let back = EmulationPrevention.rbsp(from: ebsp[...])
        // A final 03 after trailing zeros is dropped again, leaving the zeros.
        #expect(Array(back) == rbsp)
    }

    /// The byte-at-a-time cursor yields the RBSP that ``EmulationPrevention/rbsp(from:)`` makes,
    /// and counts it, on slices that start anywhere and on runs of zeros and threes.
    @Test func cursorYieldsTheRBSP() {
        var rng = SplitMix64(seed: 0xEB5B_0028)
        for _ in 0..<2000 {
            let bytes: [UInt8] = (0..<Int.random(in: 0...40, using: &rng)).map { _ in [0, 0, 3, 1, 0x80][Int.random(in: 0...4, using: &rng)] }
            let start = Int.random(in: 0...Swift.min(3, bytes.count), using: &rng)
            let ebsp = bytes[start...]
            var cursor = EmulationPrevention.RBSPCursor(ebsp)
            var out: [UInt8] = []
            while let b = cursor.next() { out.append(b) }
            #expect(out == Array(EmulationPrevention.rbsp(from: ebsp)), "\(Array(ebsp))")
            #expect(cursor.count == out.count)
            var bounded = EmulationPrevention.RBSPCursor(ebsp)
            let limit = out.count / 2
            var first: [UInt8] = []
            while let b = bounded.next(within: limit) { first.append(b) }
            #expect(first == Array(out.prefix(limit)))
        }
    }

    @Test func noCopyWithoutEmulationPrevention() {
        let bytes: [UInt8] = [0x67, 0x42, 0, 1, 0, 0, 4]
        let out = EmulationPrevention.rbsp(from: bytes[1...])
        #expect(out.startIndex == 1)
        #expect(Array(out) == [0x42, 0, 1, 0, 0, 4])
    }
}
