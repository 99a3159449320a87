/// Conversion between the encapsulated byte sequence of a NAL unit (EBSP) and its raw byte
/// sequence payload (RBSP), ITU-T H.264 7.3.1 and 7.4.1.
///
/// Inside a NAL unit the three-byte sequences `00 00 00`, `00 00 01`, `00 00 02` and `00 00 03`
/// cannot occur: an encoder inserts an `emulation_prevention_three_byte` (`0x03`) after every
/// two zero bytes that would otherwise be followed by a byte of value 3 or less.
public enum EmulationPrevention {
    /// Removes every emulation-prevention byte: the `03` of each `00 00 03`.
    ///
    /// When the input holds no `00 00 03`, the input slice itself is returned: nothing is copied.
    /// - Complexity: O(n), one scan; one copy only when something must be removed.
    @inlinable
    public static func rbsp(from ebsp: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = firstEmulationPreventionByte(in: ebsp) else { return ebsp }
        let out = [UInt8](unsafeUninitializedCapacity: ebsp.count) { buffer, written in
            // buffer holds ebsp.count >= 3 bytes (an emulation-prevention byte was found).
            written = ebsp.withUnsafeBufferPointer { src in
                writeRBSP(of: src, firstEmulationPrevention: first &- ebsp.startIndex, to: UnsafeMutableRawPointer(buffer.baseAddress!))
            }
        }
        return out[...]
    }

    /// Writes the RBSP of `ebsp` to `out` (room for `ebsp.count` bytes): the runs between
    /// emulation-prevention bytes, each next one found by the same SIMD scan as start codes,
    /// looking for `00 00 03` after the previous `03`.
    /// - Parameter first: the index in `ebsp` of its first emulation-prevention byte, when the
    ///   caller has found it (else found here).
    /// - Returns: the number of bytes written.
    /// - Complexity: O(n).
    @inlinable
    static func writeRBSP(of ebsp: UnsafeBufferPointer<UInt8>, firstEmulationPrevention first: Int? = nil,
                          to out: UnsafeMutableRawPointer) -> Int {
        let count = ebsp.count
        guard let base = ebsp.baseAddress else { return 0 }
        var written = 0
        var runStart = 0
        var ep = first ?? StartCodeScanner.find(base, from: 0, count: count, third: 3).map { $0 &+ 2 }
        while let e = ep {
            (out + written).copyMemory(from: base + runStart, byteCount: e &- runStart)
            written &+= e &- runStart
            runStart = e &+ 1  // <= count: e is an index in the buffer
            ep = StartCodeScanner.find(base, from: runStart, count: count, third: 3).map { $0 &+ 2 }  // the scanner saw base[next + 2]
        }
        (out + written).copyMemory(from: base + runStart, byteCount: count &- runStart)
        return written &+ count &- runStart
    }

    /// The index of the first emulation-prevention byte (`03` after `00 00`), if any.
    /// - Complexity: O(n), a SIMD scan.
    @inlinable
    public static func firstEmulationPreventionByte(in ebsp: ArraySlice<UInt8>) -> Int? {
        let start = ebsp.startIndex
        let count = ebsp.count
        if count < 3 { return nil }
        return ebsp.withUnsafeBufferPointer { buf -> Int? in
            guard let base = buf.baseAddress else { return nil }
            return StartCodeScanner.find(base, from: 0, count: count, third: 3).map { start &+ $0 &+ 2 }
        }
    }

    /// The RBSP bytes of an EBSP one at a time, each emulation-prevention byte (`03` after
    /// `00 00`) skipped as ``rbsp(from:)`` removes it: for a walk that reads a few bytes of a
    /// NAL unit that may be large (the SEI message headers of the recovery-point lookup),
    /// without copying it. Bits are read with the library's bit reader from an RBSP.
    struct RBSPCursor {
        /// The escaped bytes.
        let ebsp: ArraySlice<UInt8>
        /// The index in `ebsp` of the next byte to look at.
        var index: Int
        /// Zero bytes just read (an emulation-prevention byte follows two).
        var zeros = 0
        /// RBSP bytes read so far.
        var count = 0

        init(_ ebsp: ArraySlice<UInt8>) {
            self.ebsp = ebsp
            index = ebsp.startIndex
        }

        /// The next RBSP byte, or nil at the end.
        mutating func next() -> UInt8? {
            while index < ebsp.endIndex {
                let b = ebsp[index]
                index &+= 1
                if zeros >= 2 && b == 3 {
                    zeros = 0
                    continue
                }
                zeros = b == 0 ? zeros &+ 1 : 0
                count &+= 1  // at most the NAL unit's size
                return b
            }
            return nil
        }

        /// The next RBSP byte if it is one of the first `length`, else nil.
        mutating func next(within length: Int) -> UInt8? { count < length ? next() : nil }
    }

    /// Inserts emulation-prevention bytes so that `rbsp` can be carried in a NAL unit: `03`
    /// before any byte of value 3 or less that follows two zero bytes, and after two final zero
    /// bytes (7.4.1: an RBSP ends in `00` only with `cabac_zero_word`s, `00 00` each, and the
    /// `03` keeps the NAL unit from ending in `00`). A single final zero byte after the last
    /// emulation-prevention byte (never in a conforming RBSP) stays as it is: a `03` after it
    /// would be read back as data, not as an emulation-prevention byte.
    /// - Complexity: O(n).
    public static func ebsp<C: Collection>(from rbsp: C) -> [UInt8] where C.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(rbsp.count &+ rbsp.count / 64 &+ 2)
        appendEBSP(of: rbsp, to: &out)
        return out
    }

    /// Appends the EBSP form of `rbsp` to `out` (see ``ebsp(from:)``).
    @inlinable
    public static func appendEBSP<C: Collection>(of rbsp: C, to out: inout [UInt8]) where C.Element == UInt8 {
        var zeros = 0
        for b in rbsp {
            if zeros >= 2 && b <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(b)
            zeros = b == 0 ? zeros &+ 1 : 0
        }
        if zeros >= 2 { out.append(3) }  // only after 00 00 is a 03 removed again
    }
}
