/// The start-code search shared by the batch and streaming Annex-B parsers.
///
/// Looks 16 bytes at a time for two consecutive zero bytes: two overlapping unaligned 16-byte
/// loads (at i and i + 1), OR, compare with zero, and one test of the whole mask (which compiles
/// to `por`/`pcmpeqb`/`pmovmskb` on x86-64, the same on NEON). Only a block that holds such a
/// pair is examined byte by byte. In coded data `00 00` is rare (emulation prevention guarantees
/// it is followed by `03` inside a NAL unit), so the byte loop runs almost only at real start
/// codes.
///
/// The operations are chosen for the code they compile to: a mask compared with an all-false
/// mask is one instruction sequence, while `any(_:)` and mask `.|` are, today, scalarised.
@usableFromInline
enum StartCodeScanner {
    /// The index of the first `00` of the first `00 00 01` (or `00 00 third`) at or after
    /// `from`, considering only `base[0..<count]`. `third` must not be 0; the emulation-prevention
    /// search uses 3.
    @inlinable
    static func find(_ base: UnsafePointer<UInt8>, from: Int, count: Int, third: UInt8 = 1) -> Int? {
        var i = from
        let raw = UnsafeRawPointer(base)
        let zero = SIMD16<UInt8>(repeating: 0)
        let none = SIMDMask<SIMD16<Int8>>(repeating: false)
        // Loads at i and i + 1 of 16 bytes each, plus the byte at i + 17 for the `01` check of
        // the last lane, stay inside the buffer while i + 18 <= count.
        while i &+ 18 <= count {
            let a = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            let b = raw.loadUnaligned(fromByteOffset: i &+ 1, as: SIMD16<UInt8>.self)
            if ((a | b) .== zero) != none {
                var j = i
                let end = i &+ 16
                while j < end {
                    if base[j] == 0 && base[j &+ 1] == 0 && base[j &+ 2] == third { return j }
                    j &+= 1
                }
            }
            i &+= 16
        }
        while i &+ 3 <= count {
            let c = base[i &+ 2]
            if c != 0 && c != third {
                i &+= 3  // no match can start at i, i + 1 or i + 2
            } else if base[i] == 0 && base[i &+ 1] == 0 && c == third {
                return i
            } else {
                i &+= 1
            }
        }
        return nil
    }
}
