/// The start-code search shared by the batch and streaming Annex-B parsers.
///
/// Looks 32 bytes at a time for two consecutive zero bytes with SIMD compares; only a block that
/// holds such a pair is examined byte by byte. In coded data `00 00` is rare (emulation
/// prevention guarantees it is followed by `03` inside a NAL unit), so the byte loop runs almost
/// only at real start codes.
@usableFromInline
enum StartCodeScanner {
    /// The index of the first `00` of the first `00 00 01` at or after `from`, considering only
    /// `base[0..<count]`.
    @inlinable
    static func find(_ base: UnsafePointer<UInt8>, from: Int, count: Int) -> Int? {
        var i = from
        let raw = UnsafeRawPointer(base)
        // Loads at i and i + 1 of 32 bytes each, plus the byte at i + 33 for the `01` check of
        // the last lane, stay inside the buffer while i + 34 <= count.
        while i &+ 34 <= count {
            let a = raw.loadUnaligned(fromByteOffset: i, as: SIMD32<UInt8>.self)
            let b = raw.loadUnaligned(fromByteOffset: i &+ 1, as: SIMD32<UInt8>.self)
            let pairs = (a | b) .== SIMD32<UInt8>(repeating: 0)
            if any(pairs) {
                var j = i
                let end = i &+ 32
                while j < end {
                    if base[j] == 0 && base[j &+ 1] == 0 && base[j &+ 2] == 1 { return j }
                    j &+= 1
                }
            }
            i &+= 32
        }
        while i &+ 3 <= count {
            if base[i &+ 2] > 1 {
                i &+= 3
            } else if base[i] == 0 && base[i &+ 1] == 0 && base[i &+ 2] == 1 {
                return i
            } else {
                i &+= 1
            }
        }
        return nil
    }
}
