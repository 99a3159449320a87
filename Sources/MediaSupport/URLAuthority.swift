/// The authority of a URL, `[user[:password]@]host[:port]` (RFC 3986 3.2), as the RTSP and
/// RTMP URLs write it: an IPv6 host in brackets (`[::1]:8554`), the user information up to the
/// last `@`, split at its first `:`, and percent-decoded (`%40` for an `@` in a password).
package struct URLAuthority: Sendable, Hashable {
    /// The user name of the user information, percent-decoded; nil when there is none.
    package var user: String?
    /// The password of the user information, percent-decoded; nil when there is none.
    package var password: String?
    /// The host name or address, without brackets (not empty).
    package var host: String
    /// The port, 1 to 65535; nil when the authority gives none.
    package var port: UInt16?
    /// The authority without its user information (`host[:port]` as written), to quote in a
    /// message without the credentials.
    package var hostAndPort: Substring

    /// Why an authority does not parse: ``reason`` says what is wrong ("no host", "bad port
    /// '99999'"); ``hostAndPort`` is the authority without its user information.
    package struct Failure: Error, Sendable {
        package var reason: String
        package var hostAndPort: Substring
    }

    /// Parses `authority` (the part of a URL between `scheme://` and the path).
    /// - Throws: ``Failure`` for an unclosed `[`, text after `]` other than a port, no host, a
    ///   port that is not a number from 1 to 65535, or bad percent-encoding in the user
    ///   information.
    package init(_ authority: Substring) throws(Failure) {
        var hostPort = authority
        var info: Substring?
        if let at = authority.lastIndex(of: "@") {
            info = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
        }
        hostAndPort = hostPort
        func bad(_ why: String) -> Failure { Failure(reason: why, hostAndPort: hostPort) }
        if let info {
            let colon = info.firstIndex(of: ":")
            guard let name = Self.percentDecoded(info[..<(colon ?? info.endIndex)], strict: true) else {
                throw bad("bad percent-encoding in the user information")
            }
            if let colon {
                guard let secret = Self.percentDecoded(info[info.index(after: colon)...], strict: true) else {
                    throw bad("bad percent-encoding in the user information")
                }
                password = secret
            }
            user = name
        }
        var hostPart = hostPort
        var portPart: Substring?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw bad("unclosed '['") }
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty { throw bad("junk after ']'") }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            portPart = hostPart[hostPart.index(after: colon)...]
            hostPart = hostPart[..<colon]
        }
        guard !hostPart.isEmpty else { throw bad("no host") }
        host = String(hostPart)
        if let portPart {
            guard let p = UInt16(portPart), p > 0 else { throw bad("bad port '\(portPart)'") }
            port = p
        }
    }

    /// `text` with its `%XX` escapes decoded as UTF-8. A malformed escape (not two hex digits)
    /// makes it nil when `strict`, else it is kept as it is.
    package static func percentDecoded(_ text: Substring, strict: Bool) -> String? {
        guard text.contains("%") else { return String(text) }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                if i &+ 2 < bytes.count, let hi = hexValue(bytes[i &+ 1]), let lo = hexValue(bytes[i &+ 2]) {
                    out.append(hi << 4 | lo)
                    i &+= 3  // i + 2 < count
                    continue
                }
                if strict { return nil }
            }
            out.append(bytes[i])
            i &+= 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}
