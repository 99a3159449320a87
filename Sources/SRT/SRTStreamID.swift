/// A caller's stream id read as the SRT access control convention describes it
/// (Haivision SRT, "SRT Access Control": `#!::` then comma-separated `key=value` pairs, with the
/// standard keys `r` resource name, `u` user name, `m` mode, `s` session id, `h` host name,
/// `t` type), or, for any other text, as a plain resource name with an optional `?key=value&...`
/// query (as RTMP stream names carry one): what a listener's hook or its owner reads to name
/// and admit a stream.
///
/// ```swift
/// let id = SRTStreamID("#!::r=live/cam1,m=publish,key=secret")
/// id.resource        // "live/cam1"
/// id.mode            // "publish"
/// id.values["key"]   // "secret"
/// SRTStreamID("live/cam1?key=secret").values["key"]   // "secret"
/// ```
///
/// Memory: the text's pairs (a stream id is at most ``SRTOptions/maximumStreamIDLength`` bytes).
public struct SRTStreamID: Sendable, Hashable {
    /// The text as the caller sent it.
    public var text: String
    /// The resource name: the `r` key of the convention, or the plain text before any `?`;
    /// empty when there is none.
    public var resource: String
    /// Every key and its value: the convention's pairs (`r`, `u`, `m`... and others as they
    /// are), or a plain id's query; for a key given twice, the first.
    public var values: [String: String]

    /// The user name (`u`), if any.
    public var user: String? { values["u"] }
    /// The mode (`m`: `request`, `publish`, `bidirectional`), if any.
    public var mode: String? { values["m"] }
    /// True when the text uses the `#!::` convention.
    public var isStructured: Bool { text.hasPrefix("#!::") }

    /// Reads a stream id; any text is accepted (a malformed pair without `=` is kept as a key
    /// with an empty value).
    public init(_ text: String) {
        self.text = text
        var values: [String: String] = [:]
        func add(_ pairs: [Substring]) {
            for pair in pairs where !pair.isEmpty {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = String(parts[0])
                if values[key] == nil { values[key] = parts.count > 1 ? String(parts[1]) : "" }
            }
        }
        if text.hasPrefix("#!::") {
            add(text.dropFirst(4).split(separator: ",", omittingEmptySubsequences: true))
            resource = values["r"] ?? ""
        } else if let question = text.firstIndex(of: "?") {
            resource = String(text[..<question])
            add(text[text.index(after: question)...].split(separator: "&", omittingEmptySubsequences: true))
        } else {
            resource = text
        }
        self.values = values
    }
}
