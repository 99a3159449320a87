import MediaSupport

/// An `rtsp://[user[:password]@]host[:port][/path][?query]` address (RFC 2326 3.2, RFC 7826
/// 18), with the user information taken out: ``description`` and ``requestURI`` never contain
/// it, so a URL can be logged.
///
/// IPv6 hosts are written in brackets (`rtsp://[::1]:8554/cam`). The user name and password
/// are percent-decoded (`%40` for an `@` in a password).
public struct RTSPURL: Hashable, Sendable, CustomStringConvertible {
    /// The default RTSP port (RFC 2326 3.2).
    public static let defaultPort = 554

    /// The host name or address (without brackets).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The path and query, beginning with `/` (`/` alone for none).
    public var path: String
    /// The user name of the URL's user information, if any (percent-decoded).
    public var user: String?
    /// The password of the URL's user information, if any (percent-decoded).
    public var password: String?

    /// Parses a URL.
    /// - Throws: ``RTSPError/Code/invalidArgument`` for another scheme, a missing host, a bad
    ///   port or bad percent-encoding (the reason quotes the URL without its user information).
    public init(_ string: String) throws(RTSPError) {
        let prefix = "rtsp://"
        guard string.lowercased().hasPrefix(prefix) else {
            throw RTSPError.invalid(.invalidArgument, "RTSP URL: the scheme must be rtsp://")
        }
        let rest = string.dropFirst(prefix.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let tail = rest.dropFirst(authority.count)
        do throws(URLAuthority.Failure) {
            let parsed = try URLAuthority(authority)
            user = parsed.user
            password = parsed.password
            host = parsed.host
            port = parsed.port.map(Int.init) ?? Self.defaultPort
        } catch {
            throw RTSPError.invalid(.invalidArgument, "RTSP URL rtsp://\(error.hostAndPort)\(tail): \(error.reason)")
        }
        path = tail.isEmpty ? "/" : (tail.hasPrefix("?") ? "/" + tail : String(tail))
    }

    /// The URL without user information: what goes on a request line and in logs.
    public var requestURI: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port == Self.defaultPort ? "rtsp://\(h)\(path)" : "rtsp://\(h):\(port)\(path)"
    }

    public var description: String { requestURI }

    /// Resolves a control URL (an SDP `a=control`, RFC 2326 C.1.1, RFC 7826 C.1.1) or a
    /// `Content-Base` against this URL as the base:
    ///
    /// - an absolute `rtsp://` URL is taken as it is (its own user information dropped);
    /// - `*` (the aggregate control, or none) is the base itself;
    /// - a path that begins with `/` replaces the base's path;
    /// - any other relative URL is appended to the base with one `/` between (`trackID=1`
    ///   against `rtsp://h/cam` is `rtsp://h/cam/trackID=1`), the base's query dropped. RFC
    ///   3986 would drop the base's last segment when it does not end in `/`; servers that
    ///   send a bare `Content-Base` mean it as a directory, and FFmpeg, GStreamer and gortsplib
    ///   all append, as done here.
    /// - Returns: the resolved URL, or nil when `reference` is an absolute URL that does not
    ///   parse.
    public func resolving(_ reference: String) -> RTSPURL? {
        let r = reference.trimmingSpaces
        if r.isEmpty || r == "*" { return self }
        if r.lowercased().hasPrefix("rtsp://") {
            guard var u = try? RTSPURL(r) else { return nil }
            u.user = user
            u.password = password
            return u
        }
        var out = self
        if r.hasPrefix("/") {
            out.path = r
        } else {
            var base = Substring(path)
            if let q = base.firstIndex(of: "?") { base = base[..<q] }
            out.path = base.hasSuffix("/") ? base + r : base + "/" + r
        }
        return out
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (no Foundation).
    var trimmingSpaces: String {
        let isSpace = { (c: Character) in c == " " || c == "\t" || c == "\r" || c == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
