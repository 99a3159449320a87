import H264
import RTP

/// One media section (`m=`) of a `DESCRIBE`'s SDP: a track the client can set up.
public struct RTSPTrack: Hashable, Sendable {
    /// The track's place among the SDP's media sections (0-based).
    public var index: Int
    /// The media type of the `m=` line: `video`, `audio`, `application`, ...
    public var mediaType: String
    /// The first payload type of the `m=` line.
    public var payloadType: UInt8
    /// The encoding name of its `a=rtpmap` (`H264`, `MPEG4-GENERIC`, `PCMA`, ...), as written;
    /// nil without one (a static payload type).
    public var encodingName: String?
    /// The RTP clock rate of its `a=rtpmap` (90,000 for video); 0 when unknown.
    public var clockRate: Int
    /// The `a=fmtp` parameters of the payload type, as written (after the payload type).
    public var formatParameters: String?
    /// The `a=control` attribute as written (nil: none).
    public var control: String?
    /// The control URL, resolved (``RTSPURL/resolving(_:)``) against the session's base:
    /// where `SETUP` goes.
    public var url: RTSPURL
    /// The H.264 parameters (`packetization-mode`, `profile-level-id`,
    /// `sprop-parameter-sets`) when the encoding is H264; nil for other tracks, and for an
    /// H.264 track whose `a=fmtp` does not parse (then the stream's own parameter sets serve).
    public var h264: H264FormatParameters?

    /// True when the encoding is H.264 (RFC 6184).
    public var isH264: Bool { encodingName?.uppercased() == "H264" }
}

/// What a `DESCRIBE` returned: the SDP text (RFC 8866), its tracks, and the URLs their
/// controls resolve to (RFC 2326 C.1.1, RFC 7826 appendix C.1.1: against `Content-Base`, else
/// `Content-Location`, else the request URL).
public struct RTSPSessionDescription: Hashable, Sendable {
    /// The SDP document as received.
    public var text: String
    /// The base the controls were resolved against.
    public var base: RTSPURL
    /// The aggregate control URL (the session-level `a=control`, resolved; the base when it
    /// is `*` or absent): where `PLAY` and `TEARDOWN` go.
    public var aggregateURL: RTSPURL
    /// The media sections, in order.
    public var tracks: [RTSPTrack]

    /// The first H.264 video track.
    public var videoTrack: RTSPTrack? { tracks.first { $0.isH264 } }

    /// Reads an SDP document.
    /// - Parameters:
    ///   - text: the SDP.
    ///   - base: the URL controls are resolved against.
    ///   - maximumMediaCount: media sections read at most; more is an error.
    /// - Throws: ``RTSPError/Code/invalidResponse`` for a malformed `m=` line or a control URL
    ///   that does not resolve; ``RTSPError/Code/limitExceeded`` past `maximumMediaCount`.
    public init(parsing text: String, base: RTSPURL, maximumMediaCount: Int = 32) throws(RTSPError) {
        self.text = text
        self.base = base
        var sessionControl: String?
        var tracks: [RTSPTrack] = []
        var rtpmaps: [String] = [], fmtps: [String] = []
        func finish() throws(RTSPError) {
            guard var t = tracks.popLast() else { return }
            let pt = "\(t.payloadType) "
            if let map = rtpmaps.first(where: { $0.hasPrefix(pt) }) {
                let encoding = map.dropFirst(pt.count).split(separator: "/")
                t.encodingName = encoding.first.map { $0.trimmingSpaces }
                t.clockRate = encoding.count > 1 ? Int(encoding[1].trimmingSpaces) ?? 0 : 0
            }
            t.formatParameters = fmtps.first { $0.hasPrefix(pt) }.map { String($0.dropFirst(pt.count)).trimmingSpaces }
            if let control = t.control {
                guard let url = base.resolving(control) else {
                    throw RTSPError.invalid(.invalidResponse, "the control URL of track \(t.index) does not parse")
                }
                t.url = url
            }
            if t.isH264 {
                t.h264 = try? H264FormatParameters(parsing: t.formatParameters ?? "")  // none: mode 0, no parameter sets
            }
            tracks.append(t)
            rtpmaps = []
            fmtps = []
        }
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = raw.trimmingSpaces
            if line.hasPrefix("m=") {
                try finish()
                guard tracks.count < maximumMediaCount else {
                    throw RTSPError.invalid(.limitExceeded, "more than \(maximumMediaCount) media sections in the SDP")
                }
                let f = line.dropFirst(2).split(separator: " ")
                guard f.count >= 4, let pt = UInt8(f[3]), pt < 128 else {
                    throw RTSPError.invalid(.invalidResponse, "a malformed media line '\(line.prefix(80))'")
                }
                tracks.append(RTSPTrack(index: tracks.count, mediaType: String(f[0]), payloadType: pt, encodingName: nil,
                                        clockRate: 0, formatParameters: nil, control: nil, url: base, h264: nil))
            } else if line.hasPrefix("a=control:") {
                let value = String(line.dropFirst("a=control:".count)).trimmingSpaces
                if tracks.isEmpty { sessionControl = value } else { tracks[tracks.count - 1].control = value }
            } else if line.hasPrefix("a=rtpmap:"), !tracks.isEmpty {
                rtpmaps.append(String(line.dropFirst("a=rtpmap:".count)))
            } else if line.hasPrefix("a=fmtp:"), !tracks.isEmpty {
                fmtps.append(String(line.dropFirst("a=fmtp:".count)))
            }
        }
        try finish()
        guard let aggregate = base.resolving(sessionControl ?? "*") else {
            throw RTSPError.invalid(.invalidResponse, "the session's control URL does not parse")
        }
        aggregateURL = aggregate
        self.tracks = tracks
    }
}
