import MediaSupport

/// The server's side of the RTMP handshake in both forms: the plain one of the RTMP 1.0
/// specification (section 5.2), and the digest ("complex") form Flash Player 9 introduced and
/// that FFmpeg, librtmp, OBS and Flash-era encoders send.
///
/// **The digest form.** C1 and S1 are 1536 bytes: a 4-byte time, a 4-byte version (nonzero in
/// this form), then 1528 bytes in which a 32-byte HMAC-SHA256 digest sits at an offset the
/// packet itself gives, by one of two schemes:
/// - scheme 0: offset = (sum of bytes 8...11) mod 728 + 12;
/// - scheme 1: offset = (sum of bytes 772...775) mod 728 + 776.
///
/// The digest is HMAC-SHA256 over the 1504 other bytes of the packet, keyed with the first 30
/// bytes of the client key ("Genuine Adobe Flash Player 001") in C1, with the first 36 of the
/// server key ("Genuine Adobe Flash Media Server 001") in S1; each full key is that text
/// followed by the same 32 constant bytes. S2 (and C2) is 1536 bytes whose last 32 are
/// HMAC-SHA256 of its first 1504, keyed with HMAC-SHA256(the peer's full key, the digest of the
/// packet it answers): the server signs S2 with its 68-byte key over C1's digest.
///
/// A client that checks the server (FFmpeg does when it plays: "Server response validating
/// failed") looks for S1's digest in both schemes, then checks S2's signature. Clients that send
/// the plain form (version 0, random bytes) get the plain answer: S1 random with a zero version,
/// S2 the echo of C1. Encrypted handshakes (RTMPE, C0 version 6) are not supported.
enum RTMPDigestHandshake {
    /// Size of C1, C2, S1 and S2.
    static let packetSize = 1536
    /// Size of a digest.
    static let digestSize = 32
    /// The version this server writes in S1 bytes 4...7 when it answers a digest: nonzero marks
    /// the digest form, and FFmpeg checks S1's digest only when the first byte is at least 3.
    static let serverVersion: [UInt8] = [5, 0, 3, 1]

    /// The 32 bytes that end both full keys.
    private static let keyTail: [UInt8] = [
        0xF0, 0xEE, 0xC2, 0x4A, 0x80, 0x68, 0xBE, 0xE8, 0x2E, 0x00, 0xD0, 0xD1, 0x02, 0x9E, 0x7E, 0x57,
        0x6E, 0xEC, 0x5D, 0x2D, 0x29, 0x80, 0x6F, 0xAB, 0x93, 0xB8, 0xE6, 0x36, 0xCF, 0xEB, 0x31, 0xAE,
    ]
    /// The key of C1's digest (30 bytes).
    static let clientKey = Array("Genuine Adobe Flash Player 001".utf8)
    /// The key of S1's digest (36 bytes).
    static let serverKey = Array("Genuine Adobe Flash Media Server 001".utf8)
    /// The client's full key (62 bytes): the key of S1's digest for the key of C2's signature.
    static let fullClientKey = clientKey + keyTail
    /// The server's full key (68 bytes): with C1's digest, the key of S2's signature.
    static let fullServerKey = serverKey + keyTail

    /// Where a packet's digest may be.
    enum Scheme: Int, CaseIterable, Sendable {
        /// The offset is given by bytes 8...11.
        case scheme0 = 0
        /// The offset is given by bytes 772...775.
        case scheme1 = 1

        /// The index of the four bytes that give the offset.
        var offsetField: Int { self == .scheme0 ? 8 : 772 }
    }

    /// The offset of the digest in `packet` (1536 bytes, indexed from its `startIndex`) under
    /// `scheme`: the sum of the four offset bytes modulo 728, past the offset field (so the
    /// digest lies within bytes 12...771 or 776...1535).
    static func digestOffset(in packet: ArraySlice<UInt8>, scheme: Scheme) -> Int {
        let field = packet.startIndex &+ scheme.offsetField
        var sum = 0
        for i in field..<(field &+ 4) { sum &+= Int(packet[i]) }  // at most 4 * 255
        return sum % 728 &+ scheme.offsetField &+ 4
    }

    /// HMAC-SHA256 of `packet` (1536 bytes) without the 32 bytes at `offset`, under `key`.
    static func digest(of packet: ArraySlice<UInt8>, skipping offset: Int, key: [UInt8]) -> [UInt8] {
        let start = packet.startIndex
        var message: [UInt8] = []
        message.reserveCapacity(packetSize &- digestSize)
        message.append(contentsOf: packet[start..<(start &+ offset)])
        message.append(contentsOf: packet[(start &+ offset &+ digestSize)...])
        return HMAC.sha256(key: key, message: message)
    }

    /// The offset (from C1's first byte) of a valid client digest in `c1`, or nil when neither
    /// scheme's digest checks (a plain C1, or one shorter than 1536 bytes).
    static func clientDigestOffset(c1: ArraySlice<UInt8>) -> Int? {
        validDigestOffset(in: c1, key: clientKey)
    }

    /// The offset (from S1's first byte) of a valid server digest in `s1`, or nil: what a
    /// client checks (the tests use it).
    static func serverDigestOffset(s1: ArraySlice<UInt8>) -> Int? {
        validDigestOffset(in: s1, key: serverKey)
    }

    private static func validDigestOffset(in packet: ArraySlice<UInt8>, key: [UInt8]) -> Int? {
        guard packet.count >= packetSize else { return nil }
        let packet = packet.prefix(packetSize)
        for scheme in Scheme.allCases {
            let offset = digestOffset(in: packet, scheme: scheme)
            let start = packet.startIndex &+ offset
            if digest(of: packet, skipping: offset, key: key).elementsEqual(packet[start..<(start &+ digestSize)]) {
                return offset
            }
        }
        return nil
    }

    /// The scheme whose offset is `offset` in `packet`, when one is.
    private static func scheme(of packet: ArraySlice<UInt8>, offset: Int) -> Scheme {
        digestOffset(in: packet, scheme: .scheme0) == offset ? .scheme0 : .scheme1
    }

    /// The signature that ends S2 or C2: HMAC-SHA256 of the packet's first 1504 bytes under
    /// HMAC-SHA256(`fullKey`, `peerDigest`).
    static func signature(of packet: ArraySlice<UInt8>, fullKey: [UInt8], peerDigest: some Collection<UInt8>) -> [UInt8] {
        let key = HMAC.sha256(key: fullKey, message: peerDigest)
        return HMAC.sha256(key: key, message: packet.prefix(packetSize &- digestSize))
    }

    /// S0, S1 and S2 (1 + 1536 + 1536 bytes) answering C0 and C1.
    ///
    /// When C1 carries a valid client digest (either scheme), S1 carries the server's digest in
    /// the same scheme and the version ``serverVersion``, and S2 is random bytes signed over
    /// C1's digest. Otherwise the plain answer: S1 is a zero time, a zero version and random
    /// bytes; S2 echoes C1.
    /// - Parameters:
    ///   - c0c1: C0 and C1 as read (1537 bytes; fewer are taken as a plain C1 padded with zeros).
    ///   - seed: the seed of the pseudo-random bytes (the handshake needs no secrecy: the
    ///     digests are keyed with published constants).
    /// - Complexity: O(1): a few HMACs over 1.5 KB.
    static func serverResponse(c0c1: ArraySlice<UInt8>, seed: UInt64) -> [UInt8] {
        var c1 = Array(c0c1.dropFirst().prefix(packetSize))
        c1.append(contentsOf: repeatElement(0, count: packetSize &- c1.count))  // c1.count <= packetSize
        guard let clientOffset = clientDigestOffset(c1: c1[...]) else {
            // S0 and S1 have the form of the plain C0 and C1 (time 0, version 0, random bytes).
            return RTMPHandshake.c0c1(seed: seed) + c1
        }
        // S0 and S1 have the form of the plain C0 and C1 (time 0, version, random bytes).
        var out = RTMPHandshake.c0c1(seed: seed)
        out.reserveCapacity(1 &+ 2 &* packetSize)
        out.replaceSubrange(5..<9, with: serverVersion)
        let s1Range = 1..<(1 &+ packetSize)
        let scheme = scheme(of: c1[...], offset: clientOffset)
        let serverOffset = digestOffset(in: out[s1Range], scheme: scheme)
        let serverDigest = digest(of: out[s1Range], skipping: serverOffset, key: serverKey)
        out.replaceSubrange((1 &+ serverOffset)..<(1 &+ serverOffset &+ digestSize), with: serverDigest)
        // S2: random bytes (another run of the generator), signed over C1's digest.
        let s2Start = out.count
        out.append(contentsOf: RTMPHandshake.c0c1(seed: ~seed).suffix(packetSize &- digestSize))
        let clientDigest = c1[clientOffset..<(clientOffset &+ digestSize)]
        out.append(contentsOf: signature(of: out[s2Start...], fullKey: fullServerKey, peerDigest: clientDigest))
        return out
    }
}
