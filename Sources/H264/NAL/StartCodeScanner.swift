/// The start-code search shared by the batch and streaming Annex-B parsers.
///
/// Looks at 32 positions at a time. A cheap test first (``mayMatch(_:at:third:)``: two loads
/// and a 16-bit compare per 32 positions) rules out almost every block; the exact test for the
/// whole pattern `00 00 01` runs on the rest: per 16 positions, three overlapping unaligned
/// loads (at i, i + 1 and i + 2), `a | b | (c ^ 01)`, compare with zero; the two masks are ORed
/// and tested as 64-bit words (`por`, `pxor`, `pcmpeqb` on x86-64). Every lane the exact test
/// marks is a match.
///
/// ``StartCodeLookahead`` (four regions at once, for large buffers) uses the exact test alone:
/// there the branches the cheap test also takes at `00 00 03` (frequent in high-bitrate slices)
/// cost more than the loads it saves (measured: 4% slower on a high-bitrate stream, no faster on
/// small NAL units).
///
/// The operations are chosen for the code they compile to: `any(_:)`, mask `.|` and mask
/// equality are, today, scalarised or shuffled lane by lane; the bit cast of the mask is not.
///
/// Its functions are forced inline (`@inline(__always)`) into the splitters' loops, with `third`
/// a constant there: without forced inlining, `split_batch_gbps` fell 16-20% and `rbsp_gbps`
/// 9-14% (Docs/Benchmarks.md, issue 28).
@usableFromInline
enum StartCodeScanner {
    /// The index of the first `00` of the first `00 00 01` (or `00 00 third`) at or after
    /// `from`, considering only `base[0..<count]`. `third` must not be 0; the emulation-prevention
    /// search uses 3.
    @inlinable @inline(__always)
    static func find(_ base: UnsafePointer<UInt8>, from: Int, count: Int, third: UInt8 = 1) -> Int? {
        scan(base, from: from, count: count, third: third, copyingTo: nil).match
    }

    /// ``find(_:from:count:third:)`` that also copies the bytes it scans to `destination`
    /// (byte `k` goes to `destination[k - from]`), so that a NAL unit is read from memory once
    /// when it is both framed and copied (Annex-B -> AVCC).
    ///
    /// - Returns: the match, and `copiedEnd`: bytes `from..<copiedEnd` have been copied (whole
    ///   32-byte blocks, so possibly some past the match; never past `count`). The caller copies
    ///   any rest it needs. `destination` must have room for `count - from` bytes.
    @inlinable @inline(__always)
    static func scan(_ base: UnsafePointer<UInt8>, from: Int, count: Int, third: UInt8,
                     copyingTo destination: UnsafeMutableRawPointer?) -> (match: Int?, copiedEnd: Int) {
        var i = from
        let raw = UnsafeRawPointer(base)
        // Two 16-byte blocks per step. Loads of 16 bytes at i, i + 1, i + 2, i + 16, i + 17 and
        // i + 18 stay inside the buffer while i + 34 <= count.
        while i &+ 34 <= count {
            if let destination {
                // i - from >= 0; the caller sized destination for count - from >= i + 32 - from bytes.
                let a = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                let c = raw.loadUnaligned(fromByteOffset: i &+ 16, as: SIMD16<UInt8>.self)
                destination.storeBytes(of: a, toByteOffset: i &- from, as: SIMD16<UInt8>.self)
                destination.storeBytes(of: c, toByteOffset: i &- from &+ 16, as: SIMD16<UInt8>.self)
            }
            let candidates = mayMatch(raw, at: i, third: third)
            if candidates[0] | candidates[1] != 0, let match = firstMatch(raw, at: i, third: third) {
                return (match, i &+ 32)
            }
            i &+= 32
        }
        let copiedEnd = i
        if i &+ 3 <= count && count >= 34 {
            // The last positions (i + 34 > count): one more block, the one that ends at count,
            // instead of a byte loop over up to 31 positions (once per chunk when streaming).
            // It starts at s = count - 34 < i; its lanes before i were scanned already (or lie
            // before `from`) and are masked off: 1 <= i - s <= 31.
            let s = count &- 34
            let (low, high) = matchMasks(raw, at: s, third: third)
            let bits = (laneBits(low[0]) | laneBits(low[1]) &<< 8 | laneBits(high[0]) &<< 16 | laneBits(high[1]) &<< 24)
                & (UInt32.max &<< UInt32(truncatingIfNeeded: i &- s))
            return (bits == 0 ? nil : s &+ bits.trailingZeroBitCount, copiedEnd)
        }
        while i &+ 3 <= count {
            let c = base[i &+ 2]
            if c != 0 && c != third {
                i &+= 3  // no match can start at i, i + 1 or i + 2
            } else if base[i] == 0 && base[i &+ 1] == 0 && c == third {
                return (i, copiedEnd)
            } else {
                i &+= 1
            }
        }
        return (nil, copiedEnd)
    }

    /// The first match at `i..<i + 32` (bytes `i..<i + 34` are read), by the exact test.
    @inlinable @inline(__always)
    static func firstMatch(_ raw: UnsafeRawPointer, at i: Int, third: UInt8) -> Int? {
        let (low, high) = matchMasks(raw, at: i, third: third)
        let any = low | high
        guard any[0] | any[1] != 0 else { return nil }
        // The first marked lane, in memory order.
        var m = low[0]
        var word = 0
        if m == 0 { m = low[1]; word = 1 }
        if m == 0 { m = high[0]; word = 2 }
        if m == 0 { m = high[1]; word = 3 }
        return i &+ word &* 8 &+ takeLowestLane(&m)
    }

    /// Zero when no `00 00 third` begins at `i..<i + 32` (bytes `i + 1 ..< i + 33` are read);
    /// nonzero when one may.
    ///
    /// A match at `p` puts `00 00` (p - i odd) or `00 third` (p - i even) in the 2-byte lane at
    /// `p` or `p + 1` of the 32 bytes from `i + 1`. A lane whose first byte is 0 and whose
    /// second byte has no bit above `third`'s highest marks the block: two loads, an AND and a
    /// 16-bit compare per 32 positions against six loads for ``matchMasks(_:at:third:)``, which
    /// then confirms. `00 00 03`, `00 00 00` and a chance `00 01` mark a block too.
    @inlinable @inline(__always)
    static func mayMatch(_ raw: UnsafeRawPointer, at i: Int, third: UInt8) -> SIMD2<UInt64> {
        // Per 2-byte lane: FF over the first byte, the second byte's bits above third's highest.
        let high = UInt64(truncatingIfNeeded: ~((UInt16(1) &<< UInt16(8 &- third.leadingZeroBitCount)) &- 1)) & 0xFF
        #if _endian(big)
        let keep = SIMD2<UInt64>(repeating: (0xFF00 | high) &* 0x0001_0001_0001_0001)
        #else
        let keep = SIMD2<UInt64>(repeating: (0xFF | high &<< 8) &* 0x0001_0001_0001_0001)
        #endif
        let a = raw.loadUnaligned(fromByteOffset: i &+ 1, as: SIMD2<UInt64>.self) & keep
        let b = raw.loadUnaligned(fromByteOffset: i &+ 17, as: SIMD2<UInt64>.self) & keep
        let zero = SIMD8<UInt16>(repeating: 0)
        return unsafeBitCast(unsafeBitCast(a, to: SIMD8<UInt16>.self) .== zero, to: SIMD2<UInt64>.self)
            | unsafeBitCast(unsafeBitCast(b, to: SIMD8<UInt16>.self) .== zero, to: SIMD2<UInt64>.self)
    }

    /// The matches at the 32 positions `i..<i + 32` (bytes `i..<i + 34` are read): byte lane k
    /// of word w of `low` is 0xFF when `00 00 third` begins at `i + 8w + k`; `high` the same for
    /// `i + 16...`. The caller tests the words as 64-bit integers.
    @inlinable @inline(__always)
    static func matchMasks(_ raw: UnsafeRawPointer, at i: Int, third: UInt8) -> (low: SIMD2<UInt64>, high: SIMD2<UInt64>) {
        let zero = SIMD16<UInt8>(repeating: 0)
        let t = SIMD16<UInt8>(repeating: third)
        let a = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
        let b = raw.loadUnaligned(fromByteOffset: i &+ 1, as: SIMD16<UInt8>.self)
        let c = raw.loadUnaligned(fromByteOffset: i &+ 2, as: SIMD16<UInt8>.self)
        let d = raw.loadUnaligned(fromByteOffset: i &+ 16, as: SIMD16<UInt8>.self)
        let e = raw.loadUnaligned(fromByteOffset: i &+ 17, as: SIMD16<UInt8>.self)
        let f = raw.loadUnaligned(fromByteOffset: i &+ 18, as: SIMD16<UInt8>.self)
        return (unsafeBitCast((a | b | (c ^ t)) .== zero, to: SIMD2<UInt64>.self),
                unsafeBitCast((d | e | (f ^ t)) .== zero, to: SIMD2<UInt64>.self))
    }

    /// One bit per byte lane of a mask word (0x00 or 0xFF per byte), lane 0 (first in memory)
    /// in bit 0.
    @inlinable @inline(__always)
    static func laneBits(_ word: UInt64) -> UInt32 {
        #if _endian(big)
        let w = word.byteSwapped
        #else
        let w = word
        #endif
        // The low bit of each byte, gathered into the top byte by one multiplication.
        return UInt32(truncatingIfNeeded: ((w & 0x0101_0101_0101_0101) &* 0x0102_0408_1020_4080) &>> 56)
    }

    /// Removes the first marked byte lane (0...7, in memory order) of a mask word and returns it.
    @inlinable @inline(__always)
    static func takeLowestLane(_ m: inout UInt64) -> Int {
        #if _endian(big)
        let lane = m.leadingZeroBitCount &>> 3  // lane 0 is the most significant byte
        m &= ~(0xFF00_0000_0000_0000 &>> UInt64(lane &<< 3))
        #else
        let lane = m.trailingZeroBitCount &>> 3  // lane 0 is the least significant byte
        m &= ~(0xFF &<< UInt64(lane &<< 3))
        #endif
        return lane
    }
}
