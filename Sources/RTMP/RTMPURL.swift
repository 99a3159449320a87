import H264
import MediaSupport

/// An `rtmp://host[:port]/app/stream` address.
///
/// The stream name is the last path segment (with any query string); the application is
/// everything between the host and it, so `rtmp://h/app/instance/name` has application
/// `app/instance`. IPv6 hosts are written in brackets: `rtmp://[::1]:1935/live/x`.
public struct RTMPURL: Hashable, Sendable, CustomStringConvertible {
    /// The default RTMP port.
    public static let defaultPort: UInt16 = 1935

    /// The host name or address (without brackets).
    public var host: String
    /// The TCP port.
    public var port: UInt16
    /// The application (`app` of `connect`).
    public var application: String
    /// The stream name (`publish` argument).
    public var streamName: String

    /// Parses a URL.
    /// - Throws: ``RTMPError/Code/invalidArgument`` for another scheme, a missing host,
    ///   application or stream name, or a bad port.
    public init(_ string: String) throws(RTMPError) {
        func bad(_ why: String) -> RTMPError { RTMPError.invalid(.invalidArgument, "RTMP URL '\(string)': \(why)") }
        let prefix = "rtmp://"
        guard string.lowercased().hasPrefix(prefix) else { throw bad("the scheme must be rtmp://") }
        let rest = string.dropFirst(prefix.count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count).drop { $0 == "/" }
        let parsed: URLAuthority
        do throws(URLAuthority.Failure) {
            parsed = try URLAuthority(authority)
        } catch {
            throw bad(error.reason)
        }
        guard parsed.user == nil else { throw bad("user information is not supported") }
        host = parsed.host
        port = parsed.port ?? Self.defaultPort
        var segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 2, let last = segments.popLast() else { throw bad("needs /application/stream") }
        application = segments.joined(separator: "/")
        streamName = String(last)
    }

    /// The `tcUrl` of `connect`: the URL without the stream name.
    public var tcURL: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "rtmp://\(h):\(port)/\(application)"
    }

    public var description: String { tcURL + "/" + streamName }
}
