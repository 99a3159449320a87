/// MD5 (RFC 1321): the hash of HTTP and RTSP Digest authentication with `algorithm=MD5`
/// (RFC 2617, RFC 7616), which cameras still answer with. Not for anything that needs a
/// secure hash: MD5 is broken for collisions; Digest uses it because the peer asks for it.
///
/// One-shot with ``hash(_:)``, or incremental: ``update(_:)`` with the message in pieces of any
/// size, then ``finalize()`` (the shape of ``SHA256``).
///
/// Memory: the four state words, the byte count and one 64-byte block buffer; a block is
/// compressed from the caller's bytes or the buffer, so hashing allocates nothing per block.
package struct MD5: Sendable {
    /// The size of a digest in bytes.
    package static let digestSize = 16
    /// The size of a message block in bytes.
    package static let blockSize = 64

    private var hasher = BlockHasher(State())

    /// A hasher with the initial words of RFC 1321 3.3.
    package init() {}

    /// The MD5 digest of `bytes` (16 bytes).
    /// - Complexity: O(n).
    package static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var hasher = MD5()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Adds `bytes` to the message.
    /// - Complexity: O(n); contiguous collections are read in place, others a byte at a time.
    package mutating func update(_ bytes: some Collection<UInt8>) { hasher.update(bytes) }

    /// The digest of the message given so far (16 bytes): padded as RFC 1321 3.1 and 3.2 say
    /// (the length little-endian), its last blocks compressed. The hasher is consumed.
    package consuming func finalize() -> [UInt8] {
        hasher.finish()
        let state = hasher.state
        var digest: [UInt8] = []
        digest.reserveCapacity(16)
        for word in [state.a0, state.b0, state.c0, state.d0] {
            for shift in stride(from: 0, to: 32, by: 8) { digest.append(UInt8(truncatingIfNeeded: word &>> UInt32(shift))) }
        }
        return digest
    }

    /// The MD5 buffer (RFC 1321 3.3) and the compression that updates it.
    fileprivate struct State: BlockCompression {
        static var lengthIsBigEndian: Bool { false }

        var a0: UInt32 = 0x6745_2301
        var b0: UInt32 = 0xefcd_ab89
        var c0: UInt32 = 0x98ba_dcfe
        var d0: UInt32 = 0x1032_5476

        /// The per-round shift amounts (RFC 1321 3.4).
        private static let shifts: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                               5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                               4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                               6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]

        /// T[i] = floor(2^32 * |sin(i + 1)|) (RFC 1321 3.4).
        private static let table: [UInt32] = [
            0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
            0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
            0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
            0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
            0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
            0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
            0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
            0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
        ]

        /// The four rounds of RFC 1321 3.4 over one 64-byte block (its sixteen words little-endian);
        /// additions modulo 2^32, as the standard defines them.
        mutating func compress(_ block: UnsafeRawPointer) {
            var a = a0, b = b0, c = c0, d = d0
            Self.table.withUnsafeBufferPointer { t in
                Self.shifts.withUnsafeBufferPointer { s in
                    for i in 0..<64 {
                        var f: UInt32
                        let g: Int
                        switch i >> 4 {
                        case 0: f = (b & c) | (~b & d); g = i
                        case 1: f = (d & b) | (~d & c); g = (5 &* i &+ 1) & 15
                        case 2: f = b ^ c ^ d; g = (3 &* i &+ 5) & 15
                        default: f = c ^ (b | ~d); g = (7 &* i) & 15
                        }
                        let m = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: g &* 4, as: UInt32.self))
                        f = f &+ a &+ t[i] &+ m
                        a = d; d = c; c = b
                        b = b &+ ((f &<< s[i]) | (f &>> (32 &- s[i])))
                    }
                }
            }
            a0 &+= a; b0 &+= b; c0 &+= c; d0 &+= d
        }
    }
}
