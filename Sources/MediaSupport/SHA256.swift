/// SHA-256 (FIPS 180-4, section 6.2): the one hash of the package, for the protocols that sign
/// or check with it (the RTMP digest handshake, RTSP's Digest authentication with
/// `algorithm=SHA-256`). Not a general cryptography library: nothing here is constant-time
/// against a local attacker, which these protocols do not need.
///
/// One-shot with ``hash(_:)``, or incremental: ``update(_:)`` with the message in pieces of any
/// size, then ``finalize()``.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(header)
/// hasher.update(body)
/// let digest = hasher.finalize()   // 32 bytes
/// ```
///
/// Memory: the eight state words, the byte count and one 64-byte block buffer (allocated once,
/// at creation); a block is compressed in place from the caller's bytes or the buffer, its
/// message schedule on the stack, so hashing allocates nothing per block.
package struct SHA256: Sendable {
    /// The size of a digest in bytes.
    package static let digestSize = 32
    /// The size of a message block in bytes.
    package static let blockSize = 64

    private var hasher = BlockHasher(State())

    /// A hasher with the initial hash value of FIPS 180-4 5.3.3.
    package init() {}

    /// The SHA-256 digest of `bytes` (32 bytes).
    /// - Complexity: O(n).
    package static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Adds `bytes` to the message.
    /// - Complexity: O(n); contiguous collections (arrays, slices) are read in place, others a
    ///   byte at a time.
    package mutating func update(_ bytes: some Collection<UInt8>) { hasher.update(bytes) }

    /// The digest of the message given so far (32 bytes): the message is padded (FIPS 180-4
    /// 5.1.1) and its last blocks compressed. The hasher is consumed.
    /// - Complexity: O(1).
    package consuming func finalize() -> [UInt8] {
        hasher.finish()
        let state = hasher.state
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [state.h0, state.h1, state.h2, state.h3, state.h4, state.h5, state.h6, state.h7] {
            digest.writeInteger(word)
        }
        return digest
    }

    /// The hash value H (FIPS 180-4 5.3.3 initially) and the compression that updates it.
    fileprivate struct State: BlockCompression {
        static var lengthIsBigEndian: Bool { true }

        var h0: UInt32 = 0x6a09_e667
        var h1: UInt32 = 0xbb67_ae85
        var h2: UInt32 = 0x3c6e_f372
        var h3: UInt32 = 0xa54f_f53a
        var h4: UInt32 = 0x510e_527f
        var h5: UInt32 = 0x9b05_688c
        var h6: UInt32 = 0x1f83_d9ab
        var h7: UInt32 = 0x5be0_cd19

        /// The round constants K (FIPS 180-4 4.2.2): the first 32 bits of the fractional parts of
        /// the cube roots of the first 64 primes.
        private static let k: [UInt32] = [
            0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
            0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
            0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
            0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
            0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
            0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
            0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
            0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
        ]

        /// The SHA-256 compression of one 64-byte block at `block` (FIPS 180-4 6.2.2): the message
        /// schedule W in a stack buffer, the 64 rounds, the new hash value. Additions are modulo
        /// 2^32 (`&+`), as the standard defines them.
        mutating func compress(_ block: UnsafeRawPointer) {
            Self.k.withUnsafeBufferPointer { k in
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                    for t in 0..<16 {
                        w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
                    }
                    for t in 16..<64 {
                        let x = w[t &- 15], y = w[t &- 2]
                        let s0 = x.rotatedRight(7) ^ x.rotatedRight(18) ^ (x &>> 3)
                        let s1 = y.rotatedRight(17) ^ y.rotatedRight(19) ^ (y &>> 10)
                        w[t] = s1 &+ w[t &- 7] &+ s0 &+ w[t &- 16]
                    }
                    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
                    for t in 0..<64 {
                        let sigma1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                        let choose = (e & f) ^ (~e & g)
                        let t1 = h &+ sigma1 &+ choose &+ k[t] &+ w[t]
                        let sigma0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = sigma0 &+ majority
                        h = g; g = f; f = e; e = d &+ t1
                        d = c; c = b; b = a; a = t1 &+ t2
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d
                    h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
                }
            }
        }
    }
}

extension UInt32 {
    /// The bits rotated right by `n` (0 < n < 32): ROTR of FIPS 180-4 3.2.
    @inline(__always)
    fileprivate func rotatedRight(_ n: UInt32) -> UInt32 { (self &>> n) | (self &<< (32 &- n)) }
}

/// HMAC (RFC 2104, FIPS 198-1) over the package's hashes.
package enum HMAC {
    /// HMAC-SHA256 of `message` under `key` (32 bytes): a key longer than the 64-byte block is
    /// hashed first, a shorter one padded with zeros (RFC 2104 section 2).
    /// - Complexity: O(key + message).
    package static func sha256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        var block = key.count > SHA256.blockSize ? SHA256.hash(key) : Array(key)
        block.append(contentsOf: repeatElement(0, count: SHA256.blockSize &- block.count))  // block.count <= 64
        var inner = SHA256()
        inner.update(block.lazy.map { $0 ^ 0x36 })
        inner.update(message)
        let innerDigest = inner.finalize()
        var outer = SHA256()
        outer.update(block.lazy.map { $0 ^ 0x5c })
        outer.update(innerDigest)
        return outer.finalize()
    }
}
