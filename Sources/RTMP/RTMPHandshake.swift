import H264

/// The RTMP handshake (version 3, the plain form without digests): the client sends C0 and
/// C1, reads S0 and S1, echoes S1 as C2, and reads S2; the server reads C0 and C1, sends S0,
/// S1 and S2, and reads C2 (``RTMPDigestHandshake``, which answers a digest C1 in kind).
enum RTMPHandshake {
    /// Size of C1, C2, S1 and S2.
    static let packetSize = 1536

    /// C0 and C1: version 3, time 0, four zero bytes, 1528 pseudo-random bytes.
    static func c0c1(seed: UInt64) -> [UInt8] {
        var out: [UInt8] = [3, 0, 0, 0, 0, 0, 0, 0, 0]
        var x = seed | 1
        while out.count < packetSize + 1 {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17  // xorshift64
            out.append(UInt8(truncatingIfNeeded: x))
        }
        return out
    }

    /// Checks S0 and returns C2 (S1 echoed) when `bytes` holds at least S0 and S1.
    /// - Throws: ``RTMPError/Code/protocolViolation`` when S0 is not version 3.
    static func c2(fromS0S1 bytes: ArraySlice<UInt8>) throws(RTMPError) -> [UInt8] {
        guard let version = bytes.first, version == 3 else {
            throw RTMPError.invalid(.protocolViolation, "RTMP server answered handshake version \(bytes.first ?? 0), not 3")
        }
        let s1 = bytes.dropFirst().prefix(packetSize)
        return Array(s1)
    }
}
