import Testing
import MediaSupport

/// MD5 against the test suite of RFC 1321 (A.5), the lengths around the padding's boundaries,
/// and every split of a message into two pieces.
@Suite struct MD5Tests {
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func rfc1321Suite(message: String, digest: String) {
        #expect(SHA256Tests.hex(MD5.hash(Array(message.utf8))) == digest)
        #expect(SHA256Tests.hex(MD5.hash(message.utf8)) == digest)  // the byte-at-a-time path
    }

    @Test(arguments: [
        (55, "ef1772b6dff9a122358552954ad0df65"),
        (56, "3b0c8ac703f828b04c6c197006d17218"),
        (63, "b06521f39153d618550606be297466d5"),
        (64, "014842d480b571495a4a0363793f7367"),
        (65, "c743a45e0d2e6a95cb859adae0248435"),
        (120, "5f61c0ccad4cac44c75ff505e1f1e537"),
    ])
    func paddingBoundaries(length: Int, digest: String) {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: length)
        #expect(SHA256Tests.hex(MD5.hash(message)) == digest)
        for split in 0...length {
            var hasher = MD5()
            hasher.update(message[..<split])
            hasher.update(message[split...])
            #expect(SHA256Tests.hex(hasher.finalize()) == digest, "split at \(split)")
        }
    }
}
