import FLV
import MediaSupport

/// What a client asks of an ``RTMPServer`` when it sends `publish` (or `play`): the
/// application and stream name (the stream key), the query parameters that came with them,
/// who asks, and what its `connect` said. The server's authorization hooks
/// (``RTMPServer/Options/authorize`` and ``RTMPServer/Options/authorizePlay``) decide on it
/// before the stream starts; an accepted publish carries it (``RTMPIngestStream/request``).
///
/// `rtmp://host/live?pass=1/key?token=abc` (FFmpeg's form) gives application `live`, stream
/// name `key` and the query `pass=1`, `token=abc`.
public struct RTMPPublishRequest: Sendable, Hashable {
    /// Whether the client publishes or plays.
    public enum Action: Sendable, Hashable {
        /// `publish`: the client sends a stream.
        case publish
        /// `play`: the client receives one.
        case play
    }

    /// Publish or play.
    public var action: Action
    /// The application: `connect`'s `app`, without its query.
    public var application: String
    /// The stream name (the stream key): `publish`'s (or `play`'s) name, without its query.
    public var streamName: String
    /// The query parameters of the application and of the stream name, percent-decoded (the
    /// stream name's win over the application's where both give one name).
    public var query: [String: String]
    /// `publish`'s publishing type: `live`, `record` or `append` (empty for play).
    public var publishingType: String
    /// The peer's numeric address (`127.0.0.1`, `::1`).
    public var peerHost: String
    /// The peer's port.
    public var peerPort: Int
    /// `connect`'s command object, as sent: `app`, `tcUrl`, `flashVer`, `type`, and what else
    /// the client put there.
    public var connectParameters: [AMF0Property]

    /// Creates a request.
    public init(action: Action, application: String, streamName: String, query: [String: String] = [:],
                publishingType: String = "live", peerHost: String = "", peerPort: Int = 0,
                connectParameters: [AMF0Property] = []) {
        self.action = action
        self.application = application
        self.streamName = streamName
        self.query = query
        self.publishingType = publishingType
        self.peerHost = peerHost
        self.peerPort = peerPort
        self.connectParameters = connectParameters
    }

    /// `connect`'s `tcUrl`, when it sent one.
    public var tcURL: String? { parameter("tcUrl")?.string }
    /// `connect`'s `flashVer` (the client's name: `FMLE/3.0 (compatible; FMSc/1.0)` for
    /// FFmpeg and OBS), when it sent one.
    public var flashVersion: String? { parameter("flashVer")?.string }

    /// The value of `connect`'s property `name`, if present.
    public func parameter(_ name: String) -> AMF0Value? {
        connectParameters.first { $0.name == name }?.value
    }

    /// The name before a `?` and the parameters after it (`a=1&b=2`, percent-decoded; `+` is
    /// kept as it is).
    static func splitQuery(_ text: String) -> (name: String, query: [String: String]) {
        guard let mark = text.firstIndex(of: "?") else { return (text, [:]) }
        var query: [String: String] = [:]
        for pair in text[text.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query[percentDecoded(parts[0])] = parts.count > 1 ? percentDecoded(parts[1]) : ""
        }
        return (String(text[..<mark]), query)
    }

    /// `%XX` sequences decoded; a malformed one is kept as it is.
    static func percentDecoded(_ text: Substring) -> String {
        URLAuthority.percentDecoded(text, strict: false) ?? String(text)  // never nil when not strict
    }
}
