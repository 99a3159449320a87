import Testing
@testable import H264
import TestSupport

/// The framing layer's fast paths (SIMD scan with its last overlapping block, the four-region
/// lookahead, the streaming parser's carried bytes, the one-pass Annex-B -> AVCC copy) against
/// the obvious byte loop, on random buffers dense in the bytes that matter (`00`, `01`, `03`).
@Suite struct FramingDifferentialTests {
    /// A unit and where it is: the header byte's offset and the start code's length (4 when a
    /// zero byte precedes `00 00 01`).
    struct Located: Equatable, CustomStringConvertible {
        var event: FramingEvents.Event
        var offset: Int
        var startCodeLength: Int
        var description: String { "\(event)@\(offset)/\(startCodeLength)" }
    }

    /// Annex B split by a byte loop: start codes found one byte at a time, zeros before a start
    /// code dropped, the header checks of `NALUnit`.
    static func reference(_ b: [UInt8], policy: AnnexB.LeadingDataPolicy) -> [Located] {
        func startCode(from: Int) -> Int? {
            var i = from
            while i + 3 <= b.count {
                if b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 1 { return i }
                i += 1
            }
            return nil
        }
        var out: [Located] = []
        guard var sc = startCode(from: 0) else {
            if policy == .reject && b.contains(where: { $0 != 0 }) { out.append(Located(event: .error(.missingStartCode), offset: 0, startCodeLength: 3)) }
            return out
        }
        if policy == .reject && b[..<sc].contains(where: { $0 != 0 }) {
            out.append(Located(event: .error(.missingStartCode), offset: 0, startCodeLength: 3))
        }
        while true {
            let start = sc + 3
            let length = sc > 0 && b[sc - 1] == 0 ? 4 : 3
            let next = startCode(from: start)
            var end = next ?? b.count
            while end > start && b[end - 1] == 0 { end -= 1 }
            if end > start {
                let type = b[start] & 0x1F
                let event: FramingEvents.Event
                if b[start] & 0x80 != 0 {
                    event = .error(.forbiddenBitSet)
                } else if (type == 14 || type == 20 || type == 21) && end - start < 4 {
                    event = .error(.truncated)
                } else {
                    event = .unit(Array(b[start..<end]))
                }
                out.append(Located(event: event, offset: start, startCodeLength: length))
            }
            guard let next else { return out }
            sc = next
        }
    }

    /// Random bytes, mostly `00`, `01` and `03`, in runs (zero runs make 4-byte start codes,
    /// trailing zeros and `00 00 03`).
    static func denseBytes(_ n: Int, _ rng: inout SplitMix64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(n)
        let zeroShare = rng.next() % 6 + 2  // of 16
        while out.count < n {
            let r = rng.next() % 16
            if r < zeroShare {
                out.append(contentsOf: repeatElement(0, count: Int(rng.next() % 4) + 1))
            } else if r < zeroShare + 3 {
                out.append(1)
            } else if r < zeroShare + 5 {
                out.append(3)
            } else {
                out.append(UInt8(truncatingIfNeeded: rng.next() >> 11))
            }
        }
        return Array(out.prefix(n))
    }

    static func batch(_ bytes: [UInt8], policy: AnnexB.LeadingDataPolicy) -> [FramingEvents.Event] {
        FramingEvents.split(bytes[...], policy: policy)
    }

    /// The streaming parser's events with their positions.
    static func streamed(_ bytes: [UInt8], sizes: [Int], policy: AnnexB.LeadingDataPolicy) -> [Located] {
        var parser = AnnexBStreamParser(leadingData: policy)
        var out: [Located] = []
        func drain() {
            while true {
                do throws(H264Error) {
                    guard let u = try parser.next() else { return }
                    out.append(Located(event: .unit(Array(u.bytes)), offset: parser.lastNALUnitOffset, startCodeLength: parser.lastStartCodeLength))
                } catch {
                    // Leading data has no NAL unit to locate.
                    let leading = error.code == .missingStartCode
                    out.append(Located(event: .error(error.code), offset: leading ? 0 : parser.lastNALUnitOffset,
                                       startCodeLength: leading ? 3 : parser.lastStartCodeLength))
                }
                if out.count > bytes.count + 2 { return }
            }
        }
        for range in Self.chunks(of: bytes.count, sizes: sizes) {
            parser.append(bytes[range])
            drain()
        }
        parser.finish()
        drain()
        return out
    }

    /// The chunks of `count` bytes cut by `sizes`, cycled.
    static func chunks(of count: Int, sizes: [Int]) -> [Range<Int>] {
        var cuts = [0]
        for size in sizes.cycled() {
            guard cuts.last! < count else { break }
            cuts.append(min(cuts.last! + size, count))
        }
        return zip(cuts, cuts.dropFirst()).map { $0..<$1 }
    }

    /// Short buffers (the scan's last block, chunk boundaries everywhere), chunks of 1 to 40 bytes.
    @Test func shortBuffersAgreeWithTheByteLoop() {
        var rng = SplitMix64(seed: 16)
        for round in 0..<600 {
            let bytes = Self.denseBytes(Int(rng.next() % 400), &rng)
            for policy in [AnnexB.LeadingDataPolicy.reject, .skip] {
                let expected = Self.reference(bytes, policy: policy)
                #expect(Self.batch(bytes, policy: policy) == expected.map(\.event), "round \(round)")
                let sizes = (0..<4).map { _ in Int(rng.next() % 40) + 1 }
                #expect(Self.streamed(bytes, sizes: sizes, policy: policy) == expected, "round \(round), chunks \(sizes)")
            }
            #expect(Self.streamed(bytes, sizes: [1], policy: .skip) == Self.reference(bytes, policy: .skip))
        }
    }

    /// Buffers of every length from 0 to 64 with a start code (3 or 4 bytes) at every offset,
    /// on backgrounds of zero runs and `00 00 03`: batch, and streaming in chunks of 1 byte,
    /// 7 bytes and whole.
    @Test func everyLengthAndStartCodeOffset() {
        var rng = SplitMix64(seed: 6400)
        for n in 0...64 {
            for p in -1..<max(n - 2, 0) {
                var bytes = StartCodeScannerTests.zerosAndThrees(n, &rng)
                if p >= 0 {
                    bytes[p] = 0
                    bytes[p + 1] = 0
                    bytes[p + 2] = 1
                    if p + 3 < n { bytes[p + 3] = 0x65 }
                }
                for policy in [AnnexB.LeadingDataPolicy.reject, .skip] {
                    let expected = Self.reference(bytes, policy: policy)
                    #expect(Self.batch(bytes, policy: policy) == expected.map(\.event), "n \(n), start code at \(p)")
                    for sizes in [[1], [7], [max(n, 1)]] {
                        #expect(Self.streamed(bytes, sizes: sizes, policy: policy) == expected, "n \(n), start code at \(p), chunks \(sizes)")
                    }
                }
            }
        }
    }

    /// Buffers past the lookahead's threshold (256 KiB), whole and in chunks of 1 to 3,000 bytes
    /// and of 300,000 bytes (scanned ahead inside the chunk).
    @Test func largeBuffersAgreeWithTheByteLoop() {
        var rng = SplitMix64(seed: 1616)
        for round in 0..<3 {
            var bytes = Self.denseBytes(300_000 + Int(rng.next() % 5000), &rng)
            if round == 2 {
                // Sparse start codes (NAL units of ~1 KB in random bytes), as in real streams.
                for i in bytes.indices where bytes[i] < 4 { bytes[i] = 0x55 }
                var i = 0
                while i + 4 < bytes.count { bytes[i] = 0; bytes[i + 1] = 0; bytes[i + 2] = 1; i += 20 + Int(rng.next() % 2000) }
            }
            let expected = Self.reference(bytes, policy: .skip)
            #expect(expected.count > 100)
            #expect(Self.batch(bytes, policy: .skip) == expected.map(\.event), "round \(round)")
            let sizes = (0..<8).map { _ in Int(rng.next() % 3000) + 1 }
            #expect(Self.streamed(bytes, sizes: sizes, policy: .skip) == expected, "round \(round), chunks \(sizes)")
            #expect(Self.streamed(bytes, sizes: [300_000], policy: .skip) == expected, "round \(round)")
        }
    }

    /// The one-pass conversion writes what the two-pass one (split, then copy) writes, and
    /// fails where it fails.
    @Test func annexBToAVCCAgreesWithTheTwoPassForm() throws {
        var rng = SplitMix64(seed: 1603)
        let sps: [UInt8] = [0, 0, 0, 1, 0x67, 0x64, 0x00, 0x28, 0xAC, 0xD9, 0x40, 0x78, 0x02, 0x27, 0xE5, 0xC0, 0x44, 0x00, 0x00, 0x03,
                            0x00, 0x04, 0x00, 0x00, 0x03, 0x00, 0xF0, 0x3C, 0x60, 0xC6, 0x58]
        let pps: [UInt8] = [0, 0, 1, 0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]
        var converted = 0
        for round in 0..<400 {
            let n = round < 396 ? Int(rng.next() % 600) : 300_000
            var bytes = sps + pps + Self.denseBytes(n, &rng)
            // Header bytes without the forbidden bit, so that most streams convert.
            for i in 2..<max(bytes.count, 2) where bytes[i - 2] == 0 && bytes[i - 1] == 1 && rng.next() % 8 != 0 { bytes[i] &= 0x7F }
            for lengthSize in [AVCC.LengthSize.four, .two] {
                var twoPass: [UInt8] = []
                let expected = Result { () throws(H264Error) in
                    try FormatConversion.splitThenWrite(bytes[...], appendingTo: &twoPass, lengthSize: lengthSize, leadingData: .skip)
                }
                let onePass = Result { () throws(H264Error) in
                    try FormatConversion.annexBToAVCC(bytes[...], lengthSize: lengthSize, leadingData: .skip)
                }
                switch (expected, onePass) {
                case (.success(let record), .success(let stream)):
                    #expect(stream.bytes == twoPass, "round \(round)")
                    #expect(stream.configuration == record)
                    converted += 1
                case (.failure(let a), .failure(let b)):
                    #expect(a.code == b.code, "round \(round)")
                default:
                    Issue.record("round \(round): \(expected) vs \(onePass)")
                }
            }
        }
        #expect(converted > 200)
    }
}

private extension Sequence {
    /// The elements again and again (without end unless empty).
    func cycled() -> UnfoldSequence<Element, (Array<Element>, Int)> {
        sequence(state: (Array(self), 0)) { state in
            guard !state.0.isEmpty else { return nil }
            defer { state.1 = (state.1 + 1) % state.0.count }
            return state.0[state.1]
        }
    }
}
