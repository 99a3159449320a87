/// An HLS media playlist (RFC 8216) for fragmented MP4 or MPEG-TS segments: `EXT-X-VERSION`,
/// `EXT-X-TARGETDURATION`, `EXT-X-MEDIA-SEQUENCE`, `EXT-X-INDEPENDENT-SEGMENTS` when every
/// segment starts with a sync sample, `EXT-X-MAP` for the init segment (again, after
/// `EXT-X-DISCONTINUITY`, when it changes), one `EXTINF` per segment, and `EXT-X-ENDLIST`
/// once the stream has ended.
public struct HLSMediaPlaylist: Hashable, Sendable {
    /// One line group of the playlist.
    public enum Entry: Hashable, Sendable {
        /// `EXT-X-MAP:URI=...`: the init segment for the segments that follow.
        case map(uri: String)
        /// `EXT-X-DISCONTINUITY`: the encoding changes at the next segment.
        case discontinuity
        /// `EXTINF` and the segment's URI; the duration in the track's timescale.
        case segment(uri: String, duration: Int64)
    }

    /// `EXT-X-PLAYLIST-TYPE`.
    public enum PlaylistType: String, Hashable, Sendable {
        /// The playlist only grows (a live event that is kept).
        case event = "EVENT"
        /// The playlist is complete.
        case vod = "VOD"
    }

    /// The timescale of the segment durations.
    public var timescale: Int64
    /// `EXT-X-MEDIA-SEQUENCE`.
    public var mediaSequence: Int
    /// `EXT-X-DISCONTINUITY-SEQUENCE` (written when not 0): the discontinuities a live
    /// playlist has removed.
    public var discontinuitySequence: Int
    /// `EXT-X-PLAYLIST-TYPE`, if any.
    public var playlistType: PlaylistType?
    /// Write `EXT-X-INDEPENDENT-SEGMENTS` (every segment starts with a sync sample).
    public var independentSegments: Bool
    /// The entries in order.
    public var entries: [Entry]
    /// The stream has ended: `EXT-X-ENDLIST`.
    public var hasEnded: Bool
    /// `EXT-X-VERSION`: 7 for fragmented MP4 segments (`EXT-X-MAP` needs 6 or more), 3 for
    /// MPEG-TS segments (decimal `EXTINF` durations), which the oldest players accept.
    public var version: Int

    /// Creates an empty playlist.
    public init(timescale: Int64, mediaSequence: Int = 0, playlistType: PlaylistType? = nil, independentSegments: Bool = true,
                version: Int = 7) {
        self.version = version
        self.timescale = max(1, timescale)
        self.mediaSequence = mediaSequence
        discontinuitySequence = 0
        self.playlistType = playlistType
        self.independentSegments = independentSegments
        entries = []
        hasEnded = false
    }

    /// `EXT-X-TARGETDURATION`: the longest segment in whole seconds, rounded to the nearest
    /// (RFC 8216 4.3.3.1: each `EXTINF` rounded to an integer must not exceed it), at least 1.
    public var targetDuration: Int {
        var longest: Int64 = 0
        for case .segment(_, let d) in entries { longest = max(longest, d) }
        return Self.targetDuration(longest: longest, timescale: timescale)
    }

    /// The playlist's text.
    /// - Complexity: O(entries).
    public var text: String {
        var s = header(targetDuration: targetDuration)
        for entry in entries { s += Self.text(of: entry, timescale: timescale) }
        if hasEnded { s += Self.endList }
        return s
    }

    /// The target duration for a longest segment of `longest` timescale units.
    static func targetDuration(longest: Int64, timescale: Int64) -> Int {
        max(1, Int((longest &+ timescale / 2) / max(1, timescale)))  // durations are far below 2^62
    }

    /// The lines before the entries.
    func header(targetDuration: Int) -> String {
        var s = "#EXTM3U\n#EXT-X-VERSION:\(version)\n#EXT-X-TARGETDURATION:\(targetDuration)\n#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)\n"
        if discontinuitySequence != 0 { s += "#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)\n" }
        if let playlistType { s += "#EXT-X-PLAYLIST-TYPE:\(playlistType.rawValue)\n" }
        if independentSegments { s += "#EXT-X-INDEPENDENT-SEGMENTS\n" }
        return s
    }

    /// The lines of one entry.
    static func text(of entry: Entry, timescale: Int64) -> String {
        switch entry {
        case .map(let uri): return "#EXT-X-MAP:URI=\"\(uri)\"\n"
        case .discontinuity: return "#EXT-X-DISCONTINUITY\n"
        case .segment(let uri, let duration): return "#EXTINF:\(decimal(duration, timescale)),\n\(uri)\n"
        }
    }

    static let endList = "#EXT-X-ENDLIST\n"

    /// `value / timescale` with six decimals, rounded (no floating point: exact for any
    /// duration a segment has).
    static func decimal(_ value: Int64, _ timescale: Int64) -> String {
        let v = max(0, value)
        let scale = max(1, timescale)
        let (scaled, overflow) = v.multipliedReportingOverflow(by: 1_000_000)
        let (rounded, overflow2) = scaled.addingReportingOverflow(scale / 2)
        let micro = overflow || overflow2 ? Int64.max / scale : rounded / scale
        let whole = micro / 1_000_000, fraction = micro % 1_000_000
        var digits = String(fraction)
        while digits.count < 6 { digits = "0" + digits }
        return "\(whole).\(digits)"
    }
}
