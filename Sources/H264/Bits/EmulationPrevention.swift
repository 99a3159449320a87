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
        var out = [UInt8]()
        out.reserveCapacity(ebsp.count)
        out.append(contentsOf: ebsp[ebsp.startIndex..<first])
        var zeros = 0
        var i = first &+ 1  // skip the first 03
        let end = ebsp.endIndex
        while i < end {
            let b = ebsp[i]
            if zeros >= 2 && b == 3 {
                zeros = 0
            } else {
                out.append(b)
                zeros = b == 0 ? zeros &+ 1 : 0
            }
            i &+= 1
        }
        return out[...]
    }

    /// The index of the first emulation-prevention byte (`03` after `00 00`), if any.
    /// - Complexity: O(n).
    @inlinable
    public static func firstEmulationPreventionByte(in ebsp: ArraySlice<UInt8>) -> Int? {
        let start = ebsp.startIndex
        let count = ebsp.count
        if count < 3 { return nil }
        return ebsp.withUnsafeBufferPointer { buf -> Int? in
            guard let base = buf.baseAddress else { return nil }
            var zeros = 0
            var i = 0
            while i < count {
                // A fast skip over eight bytes at a time while none of them is zero: no
                // `00 00 03` can start or continue there.
                if zeros == 0 && i <= count &- 8 {
                    let v = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    if (v &- 0x0101_0101_0101_0101) & ~v & 0x8080_8080_8080_8080 == 0 {
                        i &+= 8  // i + 8 <= count
                        continue
                    }
                }
                let b = base[i]
                if b == 3 && zeros >= 2 { return start &+ i }
                zeros = b == 0 ? zeros &+ 1 : 0
                i &+= 1
            }
            return nil
        }
    }

    /// Inserts emulation-prevention bytes so that `rbsp` can be carried in a NAL unit: `03`
    /// before any byte of value 3 or less that follows two zero bytes, and after a final zero
    /// byte (7.4.1: a NAL unit never ends in `00`).
    /// - Complexity: O(n).
    public static func ebsp<C: Collection>(from rbsp: C) -> [UInt8] where C.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(rbsp.count &+ rbsp.count / 64 &+ 2)
        appendEBSP(of: rbsp, to: &out)
        return out
    }

    /// Appends the EBSP form of `rbsp` to `out` (see ``ebsp(from:)``).
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
        if zeros > 0 { out.append(3) }
    }
}
