import Foundation
import Testing
import MediaSupport
import TestSupport
@testable import RTMP

/// The server's handshake: the digest form answered to a C1 a real client sent (FFmpeg's,
/// captured) and to one in the other scheme, checked the way a client checks it (S1's digest
/// found, S2's signature over C1's digest); the plain form echoed; and FFmpeg itself, playing,
/// accepts the answer (it fails with "Server response validating failed" when S1's digest is
/// wrong and "Signature mismatch" when S2's is).
@Suite struct DigestHandshakeTests {
    /// C0 and C1 as `ffmpeg -i rtmp://127.0.0.1:PORT/live/key` (FFmpeg 5.1) sent them to a
    /// listener that read 1537 bytes and closed: the digest in scheme 0, at offset 494 (found
    /// with Python's hmac module, independently of the code under test).
    static let ffmpegC0C1: [UInt8] = Array(Data(base64Encoded: """
        AwAAAAAJAHwC93hVHs6rjh42LwfFhopwsmbUAiDlCGEYoi42l9X8K2Mpwi7nx8mwtbNF36g5j+o7yHkgihBoQlqhF0y1cljP
        6+JNpC7E/52hnHtAbxjJW/3QTuSLb4MyFKR7i/aOsFJU4lrpqai0lsVJb26c18aMtrzIQWnmfz43L/4YbahROGLFr961oSGK
        hguszdhpslPbq4oO+1mkjEQgmYdeVbdP0Hobaa8wPgmYc8t34tnixHQesfUGp/Cylir5H1BRyJCjIJlPTIs2oB+pwPFfS3z3
        tsOBfaYJGGEdOwL/fMlAOJN1N9M4LkFr1XV3g035yvdINSFQzpLQ27QOhx/DZOGLfjVp45h2wa4Mt5/216sy+fARhpyNpBke
        9G08G8a3LYOBLyJD0XUqQSYy1mogdfXTAvRc3yuYuAK3mAXcSDfYTt7RzELLp+7DE3v4bdCy1/Yk1SGj/2Vbzw30EBNB0jDp
        RlFijkWnq/gYMQHOmB5ehqb67Fx5qn7HGB6kWe2WbgyTKm+eS/VUq3sckFzeBU7UDS+4m7/GV1LljP3k8qBNw60eXvT8ZNV7
        BxwUFGpFH2oEMVbSiA9ZV9eN/T/yuID2JKxw8nCU83c06vGST2asPWSK4jKTBUSkQgtl7tRpb39Q/gX8lIUWZQv7m2X5U9hI
        40VpZdDXa2J6hONendq9i0Pw+truRYzfWevXc5IuCuUH1eZAkukOxn7YQ56PIhx1Op+SFvHLhbUQe8fMfE+yw+7Rr8cJsZL1
        DeacH/ylZQ77Ujtfq1mXysS371ryv1lz5ik7rh/B2kmb5VFQd95N2z9/vNdBcRxit9gDuNBUz1eBgnFNHERb1pK6G4OaCecm
        b8hdqo+tQz2rvSBs3h6lcXcMa/p5VsJm7oQ16wHKpvWDwNg8M+788/l9uRe9spn4qJ+4hgqxzWRMHoLM4TI6nredJfXcVwtw
        tAuyAGF0M1PQU27Nq9gvInd1YijLVP5pMsTJvRMNK/xwC/XYXaaUbpb4Lgr9jpwgz+q/mmoYm7F7vvU50dnnPulm/LXWvb+Y
        RE3oZb4WBeNAh7NM3wTjr/Vb1BN8Ui0uPHvyY02zJrIqR023+KCVKrNRDeVVOWwYo3ioOQtzv/d3L7J2D6V4ajsEWcRaHRsN
        /0y7tl2g7TTzIRbDwswrlYJREbz7skbBUFqgDJcNBtdsyVDONosiDbIEh8ugK7H8VLNlZ7QpE9a4hQYs13lWAdMaSo5tVkZ/
        pcUhYmdv1SYSJRPD5H8ubZ1qGcT4eVQxqUztA5Ih0nrGinp3DpMFJSJxRZtx0FUFxJd7cOloUSCLrNzffmgrOEiECIDx/sKj
        L7FAaGK8g8rYmt9ynzum/9P+gI6EA+fGoPbc2jIRiY9vFlBbB4zHi4DbYA3tLyAPJf9dyzHTLL4gVri9wxCRYxq70qwo1h/j
        JIDsUDW7818XM5Pw1Zoh0jALLbS1nqpj/+D5PWXcAoUWkF8iqcff84fE63jGMA5+u7KmZjz75amXfK9XZLo/CrpX205gUeCu
        xuBbG9qmSal4de28QLzEIUu3/vcnMNQ2isvT4Qq0x2QqHFP5PKJtucdmVVvib9/w4qchQluVdisLd2/T4+sXMT1TEpyfNAA8
        maUZaoxqrLbWS1HdmLJ8W1mnC9lBoboDAPt0TPxJnZl+bZM5LSinZ9EW37wsuetAVA0R6zBK2TIjhv3Fl9VdPRxnvFTfNUea
        +xnqLNIE3TMe+0nB4XL2u4n79YIH3K5sEvinWYvvHocsDDXyK0wp3xD5uxrdOuuIerX7OMA2uING92HELyld/gtDfftPMKcS
        dqt9QJzkJJY/nrtPH0flKxh4byebWocib2aYHdbQrRH0mvMQVf9pcQ/aNFfEt4UtsuOTbQd4v4efFzStOiT/sa6VhHYLnLBF
        KlO6CWL/4vYFr1KDC9IRpUiIlMwLBSJVBIcRzRmFEKnpQ7+Lg5GYRV+9QQcwBdMDmQuI2bY2VtQ8/sjtg3SPSw8PxRICFnlL
        IqBU5bxYq9jEEJYHCIQ5NFPOUJaUr76r4A==
        """, options: .ignoreUnknownCharacters)!)

    typealias Handshake = RTMPDigestHandshake

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

    /// The 32 bytes that end both full keys, as published.
    static let keyTail: [UInt8] = bytes("f0eec24a8068bee82e00d0d1029e7e576eec5d2d29806fab93b8e636cfeb31ae")

    /// What a client checks in S0, S1 and S2 answering `c1`, whose digest is at `clientOffset`:
    /// S0 is 3, S1 has a nonzero version and a valid server digest, S2 ends with HMAC-SHA256
    /// of its first 1504 bytes under HMAC-SHA256(the server's 68-byte key, C1's digest).
    /// Returns S1's digest offset.
    static func checkDigestAnswer(_ answer: [UInt8], c1: ArraySlice<UInt8>, clientOffset: Int) -> Int? {
        #expect(answer.count == 1 + 2 * 1536)
        #expect(answer.first == 3)
        let s1 = answer[1..<1537], s2 = answer[1537...]
        #expect(s1[s1.startIndex + 4] >= 3, "FFmpeg checks S1's digest only from version 3")
        #expect(Array(s1[(s1.startIndex + 4)..<(s1.startIndex + 8)]) != [0, 0, 0, 0])
        let serverOffset = Handshake.serverDigestOffset(s1: s1)
        #expect(serverOffset != nil, "S1 carries no valid server digest")
        let c1Digest = Array(c1[(c1.startIndex + clientOffset)..<(c1.startIndex + clientOffset + 32)])
        let key = HMAC.sha256(key: Array("Genuine Adobe Flash Media Server 001".utf8) + keyTail, message: c1Digest)
        let expected = HMAC.sha256(key: key, message: Array(s2.prefix(1504)))
        #expect(Array(s2.suffix(32)) == expected, "S2's signature")
        #expect(Array(s2) != Array(c1), "S2 is not the echo in the digest form")
        return serverOffset
    }

    @Test func ffmpegC1IsFoundValidInScheme0() {
        #expect(Self.ffmpegC0C1.count == 1537)
        #expect(Handshake.fullServerKey == Array("Genuine Adobe Flash Media Server 001".utf8) + Self.keyTail)
        #expect(Handshake.fullClientKey == Array("Genuine Adobe Flash Player 001".utf8) + Self.keyTail)
        #expect(Handshake.clientDigestOffset(c1: Self.ffmpegC0C1.dropFirst()) == 494)
    }

    @Test func ffmpegC1GetsADigestAnswerInTheSameScheme() {
        let c1 = Self.ffmpegC0C1.dropFirst()
        let answer = Handshake.serverResponse(c0c1: Self.ffmpegC0C1[...], seed: 42)
        let offset = Self.checkDigestAnswer(answer, c1: c1, clientOffset: 494)
        // Scheme 0: the offset comes from S1's bytes 8...11 and lies in 12...739.
        let s1 = Array(answer[1..<1537])
        #expect(offset == s1[8..<12].reduce(0) { $0 + Int($1) } % 728 + 12)
        // Another seed, other random bytes, still valid.
        let other = Handshake.serverResponse(c0c1: Self.ffmpegC0C1[...], seed: 7)
        #expect(other != answer)
        _ = Self.checkDigestAnswer(other, c1: c1, clientOffset: 494)
    }

    /// A C1 with its digest in scheme 1 (offset from bytes 772...775), built here from the
    /// documented layout: the answer's S1 digest is in scheme 1 too.
    @Test func scheme1C1GetsAScheme1Answer() {
        var c1 = (0..<1536).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        c1[4..<8] = [9, 0, 124, 2]
        let offset = c1[772..<776].reduce(0) { $0 + Int($1) } % 728 + 776
        let key = Array("Genuine Adobe Flash Player 001".utf8)
        c1[offset..<(offset + 32)] = HMAC.sha256(key: key, message: Array(c1[..<offset] + c1[(offset + 32)...]))[...]
        #expect(Handshake.clientDigestOffset(c1: c1[...]) == offset)
        let answer = Handshake.serverResponse(c0c1: ([3] + c1)[...], seed: 1)
        let serverOffset = Self.checkDigestAnswer(answer, c1: c1[...], clientOffset: offset)
        let s1 = Array(answer[1..<1537])
        #expect(serverOffset == s1[772..<776].reduce(0) { $0 + Int($1) } % 728 + 776)
    }

    /// A plain C1 (our client's: version 0, random bytes) and FFmpeg's with one byte changed
    /// outside the digest (its digest no longer checks) get the plain answer: S1 with a zero
    /// version, S2 the echo of C1.
    @Test(arguments: [
        RTMPHandshake.c0c1(seed: 99),
        { var c = ffmpegC0C1; c[1 + 1000] ^= 1; return c }(),
    ])
    func plainC1GetsTheEcho(c0c1: [UInt8]) {
        #expect(Handshake.clientDigestOffset(c1: c0c1.dropFirst()) == nil)
        let answer = Handshake.serverResponse(c0c1: c0c1[...], seed: 5)
        #expect(answer.count == 1 + 2 * 1536)
        #expect(answer.first == 3)
        #expect(Array(answer[5..<9]) == [0, 0, 0, 0])
        #expect(Array(answer[1537...]) == Array(c0c1.dropFirst()))
    }

    /// A short C0+C1 (what a caller might pass after a cut read) is answered, never trapped on.
    @Test func shortInputIsAnsweredPlain() {
        let answer = Handshake.serverResponse(c0c1: [3, 1, 2, 3][...], seed: 5)
        #expect(answer.count == 1 + 2 * 1536)
        #expect(Array(answer[1537..<1540]) == [1, 2, 3] && answer[1540...].allSatisfy { $0 == 0 })
    }

    /// FFmpeg playing from a listener that answers its handshake with `serverResponse`: FFmpeg
    /// checks S1's digest and S2's signature before it sends C2 and `connect`, so receiving
    /// them proves it accepted the answer.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"))
    func ffmpegAcceptsTheAnswer() throws {
        let received = ThreadLock<[UInt8]>([])
        let server = try HostileServerTests.Server { fd, _ in
            let c0c1 = HostileServerTests.Server.read(fd, 1537)
            HostileServerTests.Server.send(fd, RTMPDigestHandshake.serverResponse(c0c1: c0c1[...], seed: 3))
            let rest = HostileServerTests.Server.read(fd, 1536 + 64)  // C2, then the start of connect
            received.withLock { $0 = rest }
        }
        defer { server.finish() }
        let result = try FFmpeg.ffmpeg(["-v", "error", "-rw_timeout", "3000000",
                                        "-i", "rtmp://127.0.0.1:\(server.port)/live/key", "-f", "null", "-"],
                                       timeout: 15)
        #expect(!result.stderr.contains("validating failed"), "\(result.stderr)")
        #expect(!result.stderr.contains("Signature mismatch"), "\(result.stderr)")
        let bytes = received.withLock { $0 }
        #expect(bytes.count == 1536 + 64, "FFmpeg did not go on past the handshake: \(result.stderr)")
        #expect(String(decoding: bytes.dropFirst(1536), as: UTF8.self).contains("connect"))
    }
}
