import Testing
import MediaSupport

/// The one authority parser under the RTSP and RTMP URLs: user information split and
/// percent-decoded, IPv6 hosts in brackets, ports from 1 to 65535, and each malformed form
/// refused with a reason that never quotes the credentials.
@Suite struct URLAuthorityTests {
    @Test func hostsPortsAndUserInformation() throws {
        let plain = try URLAuthority("camera.local")
        #expect(plain.host == "camera.local" && plain.port == nil && plain.user == nil && plain.password == nil)
        let v6 = try URLAuthority("[fe80::1]:8554")
        #expect(v6.host == "fe80::1" && v6.port == 8554 && v6.hostAndPort == "[fe80::1]:8554")
        let bare6 = try URLAuthority("[::1]")
        #expect(bare6.host == "::1" && bare6.port == nil)
        let info = try URLAuthority("ad%40min:p%3Ass@w:rd@10.0.0.2:554")
        #expect(info.user == "ad@min" && info.password == "p:ss@w:rd")
        #expect(info.host == "10.0.0.2" && info.port == 554 && info.hostAndPort == "10.0.0.2:554")
        let nameOnly = try URLAuthority("viewer@h")
        #expect(nameOnly.user == "viewer" && nameOnly.password == nil && nameOnly.host == "h")
        let emptyPassword = try URLAuthority("viewer:@h")
        #expect(emptyPassword.user == "viewer" && emptyPassword.password == "")
    }

    @Test(arguments: [
        ("", "no host"), (":554", "no host"), ("h:0", "bad port '0'"), ("h:65536", "bad port '65536'"),
        ("h:x", "bad port 'x'"), ("h:-1", "bad port '-1'"), ("[::1", "unclosed '['"), ("[::1]x", "junk after ']'"),
        ("u%4:secret@h", "bad percent-encoding in the user information"),
        ("u:secret%zz@h", "bad percent-encoding in the user information"),
    ])
    func malformed(authority: String, reason: String) {
        do {
            _ = try URLAuthority(Substring(authority))
            Issue.record("'\(authority)' parsed")
        } catch {
            #expect(error.reason == reason)
            #expect(!error.hostAndPort.contains("secret"))
        }
    }

    @Test func percentDecodingStrictAndLenient() {
        #expect(URLAuthority.percentDecoded("a%20b%E2%82%AC", strict: true) == "a b€")
        #expect(URLAuthority.percentDecoded("plain", strict: true) == "plain")
        #expect(URLAuthority.percentDecoded("100%", strict: true) == nil)
        #expect(URLAuthority.percentDecoded("%g1", strict: true) == nil)
        #expect(URLAuthority.percentDecoded("100%", strict: false) == "100%")
        #expect(URLAuthority.percentDecoded("%g1%41", strict: false) == "%g1A")
    }
}
