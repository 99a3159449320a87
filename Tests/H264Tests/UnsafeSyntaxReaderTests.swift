@testable import H264
import Testing
import TestSupport

/// The one reading implementation (base address held, 8-byte loads) reads what a model that
/// reads one bit at a time reads: the same values, the same bit positions and the same error
/// codes, near the end of the buffer too, where it takes its byte-wise path; and so do
/// ``SyntaxReader`` and ``BitReader``, which read through it.
@Suite struct UnsafeSyntaxReaderTests {
    /// 7.2 and 9.1 transcribed bit by bit, independent of the library's reader. It has no
    /// look-ahead of its own: ``SyntaxCoder/peekBits(_:skipping:)`` is the protocol's default,
    /// which reads from a copy of the coder.
    struct ModelReader: SyntaxCoder {
        let bytes: [UInt8]
        var bitPosition = 0
        var isReading: Bool { true }
        var isAtEnd: Bool { bitPosition == bytes.count * 8 }

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func bit(at position: Int) -> UInt64 { UInt64(bytes[position / 8] >> (7 - position % 8) & 1) }

        mutating func bits(_ count: Int) throws(H264Error) -> UInt64 {
            guard count <= bytes.count * 8 - bitPosition else { throw .truncated("model") }
            var v: UInt64 = 0
            for _ in 0..<count { v = v << 1 | bit(at: bitPosition); bitPosition += 1 }
            return v
        }

        /// `ue(v)`: leading zeros (at most 31), a 1, as many info bits; nothing consumed on failure.
        mutating func codeNum() throws(H264Error) -> UInt64 {
            let start = bitPosition
            var zeros = 0
            while true {
                guard bitPosition < bytes.count * 8 else { bitPosition = start; throw .truncated("model") }
                if bit(at: bitPosition) == 1 { break }
                zeros += 1
                bitPosition += 1
                guard zeros < 32 else { bitPosition = start; throw H264Error.invalid(.invalidExpGolomb, "model") }
            }
            bitPosition += 1
            do throws(H264Error) {
                return (1 << UInt64(zeros)) - 1 + (try bits(zeros))
            } catch {
                bitPosition = start
                throw error
            }
        }

        mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error) {
            value = T(truncatingIfNeeded: try self.bits(bits))
        }
        mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
            let raw = try self.bits(bits)
            guard let v = T(exactly: raw), range.contains(v) else { throw .outOfRange("\(name)", Int64(raw)) }
            value = v
        }
        mutating func ue<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
            let raw = try codeNum()
            guard let v = T(exactly: raw), range.contains(v) else { throw .outOfRange("\(name)", Int64(raw)) }
            value = v
        }
        mutating func se<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
            let k = Int64(try codeNum())
            let raw = k % 2 == 1 ? (k + 1) / 2 : -(k / 2)
            guard let v = T(exactly: raw), range.contains(v) else { throw .outOfRange("\(name)", raw) }
            value = v
        }
        mutating func flag(_ value: inout Bool, _ name: SyntaxName) throws(H264Error) { value = try bits(1) == 1 }
        mutating func moreRBSPData(writerAnswer: Bool) -> Bool {
            guard let last = (0..<bytes.count * 8).last(where: { bit(at: $0) == 1 }) else { return false }
            return bitPosition < last
        }
        mutating func trailingBits() throws(H264Error) {
            guard try bits(1) == 1 else { throw H264Error.invalid(.invalidTrailingBits, "model") }
            while bitPosition % 8 != 0 {
                guard try bits(1) == 0 else { throw H264Error.invalid(.invalidTrailingBits, "model") }
            }
        }
        mutating func bytes(_ bytes: inout [UInt8], count: Int, _ name: SyntaxName) throws(H264Error) {
            guard count * 8 <= self.bytes.count * 8 - bitPosition else { throw .truncated("model") }
            bytes = []
            for _ in 0..<count { bytes.append(UInt8(try bits(8))) }
        }
    }

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
            var model = ModelReader(bytes)
            let expected = Self.read(&model, kinds)
            var reader = SyntaxReader(bytes[...])
            #expect(Self.read(&reader, kinds) == expected, "bytes \(bytes), steps \(kinds)")
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

    /// Look-ahead is bounded by a ``BoundedSyntaxCoder`` over any coder (here one with the
    /// protocol's default look-ahead).
    @Test func boundedLookAheadOverAnyCoder() throws {
        let b = BoundedSyntaxCoder(ModelReader([0xA5, 0xFF]), limit: 12)
        #expect(try b.peekBits(8, skipping: 4) == 0x5F)
        #expect(b.bitPosition == 0)
        #expect(throws: H264Error(.truncated, "")) { try b.peekBits(8, skipping: 5) }
    }

    /// A failed element's error comes from the coder (``SyntaxCoder/failure(_:)``), through a
    /// wrapping coder too: the one shared error of a reader whose errors are discarded, the
    /// element's own otherwise.
    @Test func failureComesFromTheCoder() {
        let bytes: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        for discards in [false, true] {
            let error: H264Error? = bytes.withUnsafeBytes { raw in
                var reader = UnsafeSyntaxReader(raw)
                reader.discardsErrors = discards
                var coder = BoundedSyntaxCoder(reader, limit: 64)
                var list: [UInt8] = []
                do throws(H264Error) {
                    try coder.prepare(&list, count: 5, limit: 4, fill: 0, "list")
                    return nil
                } catch {
                    return error
                }
            }
            #expect(error?.isIdentical(to: UnsafeSyntaxReader.discarded) == discards)
            #expect(error?.code == (discards ? .invalidBitstream : .limitExceeded))
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
