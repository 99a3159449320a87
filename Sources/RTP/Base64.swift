import H264

/// Base64 (RFC 4648 section 4, standard alphabet, `=` padding), for `sprop-parameter-sets`:
/// `package`, since no public API takes or returns Base64 text (``H264FormatParameters``
/// encodes and decodes the parameter sets).
package enum Base64 {
    @usableFromInline static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes bytes as padded Base64.
    /// - Complexity: O(n).
    package static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var it = bytes.makeIterator()
        while let a = it.next() {
            let b = it.next(), c = it.next()
            let word = UInt32(a) << 16 | UInt32(b ?? 0) << 8 | UInt32(c ?? 0)
            out.append(alphabet[Int(word >> 18 & 63)])
            out.append(alphabet[Int(word >> 12 & 63)])
            out.append(b == nil ? UInt8(ascii: "=") : alphabet[Int(word >> 6 & 63)])
            out.append(c == nil ? UInt8(ascii: "=") : alphabet[Int(word & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes Base64, padded or not.
    /// - Throws: ``RTPError/Code/invalidArgument`` for a character outside the alphabet,
    ///   misplaced padding, a dangling single character, or nonzero bits in the unused tail.
    /// - Complexity: O(n).
    package static func decode<S: StringProtocol>(_ text: S) throws(RTPError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 4 * 3 + 2)
        var word: UInt32 = 0, have = 0, padding = 0
        for ch in text.utf8 {
            if ch == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0 else { throw bad("data after '=' padding") }
            let v: UInt32
            switch ch {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(ch - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(ch - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(ch - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            default: throw bad("character \(ch) is not Base64")
            }
            word = word << 6 | v
            have += 1
            if have == 4 {
                out.append(UInt8(truncatingIfNeeded: word >> 16))
                out.append(UInt8(truncatingIfNeeded: word >> 8))
                out.append(UInt8(truncatingIfNeeded: word))
                word = 0
                have = 0
            }
        }
        switch have {
        case 0:
            guard padding == 0 else { throw bad("padding without data") }
        case 2:
            guard padding == 0 || padding == 2, word & 0xF == 0 else { throw bad("bad final group") }
            out.append(UInt8(truncatingIfNeeded: word >> 4))
        case 3:
            guard padding == 0 || padding == 1, word & 0x3 == 0 else { throw bad("bad final group") }
            out.append(UInt8(truncatingIfNeeded: word >> 10))
            out.append(UInt8(truncatingIfNeeded: word >> 2))
        default:
            throw bad("a single character in the final group")
        }
        return out
    }

    @inline(never)
    private static func bad(_ reason: String) -> RTPError { .invalid(.invalidArgument, "Base64: \(reason)") }
}
