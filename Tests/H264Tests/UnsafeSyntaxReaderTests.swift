@testable import H264
import Testing
import TestSupport

/// The hot-path reader (base address held, 8-byte loads) reads what ``SyntaxReader`` reads:
/// the same values, the same bit positions and the same error codes, near the end of the buffer
/// too, where it takes its byte-wise path.
@Suite struct UnsafeSyntaxReaderTests {
    /// One element of a random sequence, and what a reader made of it.
    enum Step: Equatable {
        case u(Int, UInt32)
        case ue(UInt32)
        case se(Int32)
        case flag(Bool)
        case peek(Int, UInt32)
        case more(Bool)
        case failed(H264Error.Code, at: Int)
    }

    /// Reads `kinds` in order with `c`, stopping at the first error.
    static func read<C: SyntaxCoder>(_ c: inout C, _ kinds: [(kind: Int, bits: Int)]) -> [Step] {
        var steps: [Step] = []
        for (kind, bits) in kinds {
            do throws(H264Error) {
                switch kind {
                case 0:
                    var v: UInt32 = 0
                    try c.u(bits, &v, "u")
                    steps.append(.u(bits, v))
                case 1:
                    var v: UInt32 = 0
                    try c.ue(&v, "ue", 0...UInt32.max)
                    steps.append(.ue(v))
                case 2:
                    var v: Int32 = 0
                    try c.se(&v, "se", Int32.min...Int32.max)
                    steps.append(.se(v))
                case 3:
                    var v = false
                    try c.flag(&v, "flag")
                    steps.append(.flag(v))
                case 4:
                    steps.append(.peek(bits, try c.peekBits(bits, skipping: bits / 3)))
                default:
                    steps.append(.more(c.moreRBSPData(writerAnswer: false)))
                }
            } catch {
                steps.append(.failed(error.code, at: c.bitPosition))
                break
            }
        }
        return steps
    }

    @Test(arguments: 0..<8)
    func readsAsSyntaxReaderDoes(seedOffset: Int) throws {
        var rng = SplitMix64(seed: 0x5EED_0016 &+ UInt64(seedOffset))
        for _ in 0..<500 {
            // Short buffers (the byte-wise path), zero runs (long Exp-Golomb prefixes) and
            // buffers long enough for the 8-byte loads.
            let count = Int.random(in: 0...24, using: &rng)
            let zeroRun = Int.random(in: 0...4, using: &rng) == 0
            let bytes: [UInt8] = (0..<count).map { i in
                zeroRun && i < count / 2 ? 0 : UInt8.random(in: 0...255, using: &rng)
            }
            let kinds = (0..<12).map { _ in (kind: Int.random(in: 0...5, using: &rng), bits: Int.random(in: 0...32, using: &rng)) }
            var reference = SyntaxReader(bytes[...])
            let expected = Self.read(&reference, kinds)
            // Straight over the bytes, and through withUnsafeSyntaxReader (a zero-padded copy
            // below 24 bytes).
            let got = bytes[...].withUnsafeBytes { raw in
                var fast = UnsafeSyntaxReader(raw)
                return Self.read(&fast, kinds)
            }
            let gotPadded = try bytes[...].withUnsafeSyntaxReader { (r: inout UnsafeSyntaxReader) in Self.read(&r, kinds) }
            #expect(got == expected, "bytes \(bytes), steps \(kinds)")
            #expect(gotPadded == expected, "bytes \(bytes), steps \(kinds)")
        }
    }

    /// `cabac_alignment_one_bit`s: the fast reader's one read against the default, one bit at
    /// a time (every byte value, every offset in it).
    @Test func alignmentOnesAsSyntaxReader() throws {
        for value in 0...255 {
            for skip in 0...7 {
                let bytes: [UInt8] = [UInt8(value), 0x5A]
                var reference = SyntaxReader(bytes[...])
                var v: UInt32 = 0
                try reference.u(skip, &v, "skip")
                let expected: H264Error.Code? = { do throws(H264Error) { try reference.alignmentOnes("a"); return nil } catch { return error.code } }()
                let (got, position) = bytes[...].withUnsafeBytes { raw -> (H264Error.Code?, Int) in
                    var fast = UnsafeSyntaxReader(raw)
                    var v: UInt32 = 0
                    do throws(H264Error) { try fast.u(skip, &v, "skip"); try fast.alignmentOnes("a"); return (nil, fast.bitPosition) } catch {
                        return (error.code, fast.bitPosition)
                    }
                }
                #expect(got == expected, "byte \(value), offset \(skip)")
                let ones = skip == 0 || value & (1 << (8 - skip) - 1) == 1 << (8 - skip) - 1
                #expect(got == (ones ? nil : .invalidBitstream), "byte \(value), offset \(skip)")
                if got == nil { #expect(position == (skip == 0 ? 0 : 8) && reference.bitPosition == position) }
            }
        }
    }

    @Test func trailingBitsAndBytesAsSyntaxReader() throws {
        let cases: [[UInt8]] = [[0x80], [0xC0], [0x81], [0x00], [], [0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 0x80]]
        for bytes in cases {
            var reference = SyntaxReader(bytes[...])
            let expected: H264Error.Code? = { do throws(H264Error) { try reference.trailingBits(); return nil } catch { return error.code } }()
            let got: H264Error.Code? = bytes[...].withUnsafeBytes { raw in
                var fast = UnsafeSyntaxReader(raw)
                do throws(H264Error) { try fast.trailingBits(); return nil } catch { return error.code }
            }
            #expect(got == expected, "\(bytes)")
        }
        let bytes: [UInt8] = [0xAB, 0xCD, 0xEF, 0x01, 0x23]
        var reference = SyntaxReader(bytes[...])
        var skip: UInt32 = 0
        try reference.u(4, &skip, "skip")
        var expected: [UInt8] = []
        try reference.bytes(&expected, count: 3, "b")
        let got = try bytes[...].withUnsafeSyntaxReader { (r: inout UnsafeSyntaxReader) throws(H264Error) -> [UInt8] in
            var skip: UInt32 = 0
            try r.u(4, &skip, "skip")
            var out: [UInt8] = []
            try r.bytes(&out, count: 3, "b")
            return out
        }
        #expect(got == expected)
        #expect(got == [0xBC, 0xDE, 0xF0])
    }
}
