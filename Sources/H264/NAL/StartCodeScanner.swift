/// The start-code search shared by the batch and streaming Annex-B parsers.
///
/// Looks 32 bytes at a time for two consecutive zero bytes: per 16-byte block, two overlapping
/// unaligned loads (at i and i + 1), OR, compare with zero; the two masks are ORed and tested
/// as 64-bit words (`por`, `pcmpeqb`, `movmskps` on x86-64: one branch per 32 bytes). Only a block that holds such a
/// pair is examined byte by byte. In coded data `00 00` is rare (emulation prevention guarantees
/// it is followed by `03` inside a NAL unit), so the byte loop runs almost only at real start
/// codes.
///
/// The operations are chosen for the code they compile to: `any(_:)`, mask `.|` and mask
/// equality are, today, scalarised or shuffled lane by lane; the bit cast of the mask is not.
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
        // Two 16-byte blocks per step. Loads at i, i + 1, i + 16 and i + 17 of 16 bytes each,
        // plus the byte at i + 33 for the `01` check of the last lane, stay inside the buffer
        // while i + 34 <= count.
        while i &+ 34 <= count {
            if let destination {
                // i - from >= 0; the caller sized destination for count - from >= i + 32 - from bytes.
                let a = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                let c = raw.loadUnaligned(fromByteOffset: i &+ 16, as: SIMD16<UInt8>.self)
                destination.storeBytes(of: a, toByteOffset: i &- from, as: SIMD16<UInt8>.self)
                destination.storeBytes(of: c, toByteOffset: i &- from &+ 16, as: SIMD16<UInt8>.self)
            }
            let (low, high) = pairMasks(raw, at: i)
            let any = low | high
            if any[0] | any[1] != 0 {
                // Visit only the candidate lanes, in order.
                if let j = firstMatch(base, low[0], at: i, third: third) ?? firstMatch(base, low[1], at: i &+ 8, third: third)
                    ?? firstMatch(base, high[0], at: i &+ 16, third: third) ?? firstMatch(base, high[1], at: i &+ 24, third: third) {
                    return (j, i &+ 32)
                }
            }
            i &+= 32
        }
        let copiedEnd = i
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

    /// The `00 00` pairs of the 32 positions `i..<i + 32` (bytes `i..<i + 33` are read): byte
    /// lane k of word w of `low` is 0xFF when the pair at `i + 8w + k` is `00 00`; `high` the
    /// same for `i + 16...`. Two overlapping unaligned loads per 16 positions (at i and i + 1),
    /// OR, compare with zero; the caller tests the words as 64-bit integers.
    @inlinable @inline(__always)
    static func pairMasks(_ raw: UnsafeRawPointer, at i: Int) -> (low: SIMD2<UInt64>, high: SIMD2<UInt64>) {
        let zero = SIMD16<UInt8>(repeating: 0)
        let a = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
        let b = raw.loadUnaligned(fromByteOffset: i &+ 1, as: SIMD16<UInt8>.self)
        let c = raw.loadUnaligned(fromByteOffset: i &+ 16, as: SIMD16<UInt8>.self)
        let d = raw.loadUnaligned(fromByteOffset: i &+ 17, as: SIMD16<UInt8>.self)
        return (unsafeBitCast((a | b) .== zero, to: SIMD2<UInt64>.self),
                unsafeBitCast((c | d) .== zero, to: SIMD2<UInt64>.self))
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

    /// The first lane of an 8-lane `00 00` mask word whose pair is followed by `third`.
    /// `offset` is the index of lane 0; the caller guarantees `offset + 9 < count`.
    @inlinable @inline(__always)
    static func firstMatch(_ base: UnsafePointer<UInt8>, _ mask: UInt64, at offset: Int, third: UInt8) -> Int? {
        var m = mask
        while m != 0 {
            let j = offset &+ takeLowestLane(&m)
            if base[j &+ 2] == third { return j }
        }
        return nil
    }
}
