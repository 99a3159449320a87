import Testing
import MediaSupport

/// SHA-256 against the FIPS 180-4 examples (NIST's "abc", the 448- and 896-bit messages, a
/// million 'a'), the lengths around the padding's boundaries, incremental hashing in pieces of
/// every size, and HMAC-SHA256 against the test cases of RFC 4231.
@Suite struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func fipsExamples(message: String, digest: String) {
        #expect(Self.hex(SHA256.hash(Array(message.utf8))) == digest)
        // The same through a collection that is not contiguous (the byte-at-a-time path).
        #expect(Self.hex(SHA256.hash(message.utf8)) == digest)
    }

    /// Lengths either side of the padding's limits: 55 bytes leave room for the 0x80 byte and
    /// the length in one block, 56 do not; 64 is a whole block.
    @Test(arguments: [
        (1, "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"),
        (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (57, "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6"),
        (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
        (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
        (128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"),
    ])
    func paddingBoundaries(length: Int, digest: String) {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: length)
        #expect(Self.hex(SHA256.hash(message)) == digest)
        // Every split into two pieces gives the same digest as one piece.
        for split in 0...length {
            var hasher = SHA256()
            hasher.update(message[..<split])
            hasher.update(message[split...])
            #expect(Self.hex(hasher.finalize()) == digest, "split at \(split)")
        }
    }

    @Test func aMillionAInPiecesOfEverySize() {
        let digest = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Self.hex(SHA256.hash(message)) == digest)
        for piece in [1, 3, 63, 64, 65, 1000, 4096] {
            var hasher = SHA256()
            var start = 0
            while start < message.count {
                let end = min(start + piece, message.count)
                hasher.update(message[start..<end])
                start = end
            }
            #expect(Self.hex(hasher.finalize()) == digest, "pieces of \(piece)")
        }
    }

    /// RFC 4231 section 4: test cases 1 to 7 (5 compares the first 128 bits, as the RFC does).
    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (Array(1...25), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        ([UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8),
         "a3b6167473100ee06e0c796c2955552b"),
        ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ([UInt8](repeating: 0xaa, count: 131),
         Array(("This is a test using a larger than block-size key and a larger than block-size data. The key needs to "
             + "be hashed before being used by the HMAC algorithm.").utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ] as [([UInt8], [UInt8], String)])
    func hmacRFC4231(key: [UInt8], message: [UInt8], mac: String) {
        let result = HMAC.sha256(key: key, message: message)
        #expect(result.count == 32)
        #expect(Self.hex(result).hasPrefix(mac))
        #expect(Self.bytes(mac) == Array(result.prefix(mac.count / 2)))
    }

    /// A key of exactly one block is used as it is (not hashed): its MAC differs from that of
    /// its hash used as the key, which a key hashed by mistake would equal.
    @Test func aKeyOfOneBlockIsNotHashed() {
        let key = [UInt8](repeating: 0x42, count: 64)
        let message = Array("message".utf8)
        #expect(HMAC.sha256(key: key, message: message) != HMAC.sha256(key: SHA256.hash(key), message: message))
        // 65 bytes are hashed first: the MAC equals the one under the hash.
        let longKey = [UInt8](repeating: 0x42, count: 65)
        #expect(HMAC.sha256(key: longKey, message: message) == HMAC.sha256(key: SHA256.hash(longKey), message: message))
    }
}
