import H264

/// A minimal SDP document (RFC 8866) for one H.264 RTP stream, as FFmpeg and GStreamer receive:
///
/// ```
/// v=0
/// o=- 0 0 IN IP4 127.0.0.1
/// s=swift-h264
/// c=IN IP4 127.0.0.1
/// t=0 0
/// m=video 5004 RTP/AVP 96
/// a=rtpmap:96 H264/90000
/// a=fmtp:96 packetization-mode=1;profile-level-id=4d401e;sprop-parameter-sets=Z00AHp...,aO48gA==
/// ```
public struct RTPSessionDescription: Hashable, Sendable {
    /// The `s=` line.
    public var sessionName: String
    /// The numeric address receivers listen on or join (`c=`); IPv6 when it contains a colon.
    public var connectionAddress: String
    /// The destination UDP port for RTP (RTCP is the next one up unless ``rtcpPort`` says
    /// otherwise).
    public var port: Int
    /// The RTCP port of an `a=rtcp:` line (RFC 3605), when it differs from ``port`` + 1; nil:
    /// ``port`` + 1 (RFC 3550 11).
    public var rtcpPort: Int?
    /// True for an `a=rtcp-mux` line (RFC 5761): RTCP shares the RTP port.
    public var rtcpMux: Bool
    /// The dynamic payload type (96...127).
    public var payloadType: UInt8
    /// The `a=fmtp` parameters.
    public var format: H264FormatParameters
    /// The frame rate for an `a=framerate` line, when known.
    public var frameRate: Double?

    /// Creates a session description.
    public init(sessionName: String = "swift-h264", connectionAddress: String, port: Int, payloadType: UInt8 = 96,
                format: H264FormatParameters, frameRate: Double? = nil, rtcpPort: Int? = nil, rtcpMux: Bool = false) {
        self.sessionName = sessionName
        self.connectionAddress = connectionAddress
        self.port = port
        self.payloadType = payloadType
        self.format = format
        self.frameRate = frameRate
        self.rtcpPort = rtcpPort
        self.rtcpMux = rtcpMux
    }

    /// The port RTCP arrives on: ``port`` with ``rtcpMux``, else ``rtcpPort``, else ``port`` + 1.
    public var effectiveRTCPPort: Int { rtcpMux ? port : rtcpPort ?? port + 1 }

    /// The SDP text, lines ended by CRLF.
    public var text: String {
        let family = connectionAddress.contains(":") ? "IP6" : "IP4"
        var lines = [
            "v=0",
            "o=- 0 0 IN \(family) \(connectionAddress)",
            "s=\(sessionName)",
            "c=IN \(family) \(connectionAddress)",
            "t=0 0",
            "m=video \(port) RTP/AVP \(payloadType)",
            "a=rtpmap:\(payloadType) H264/90000",
            "a=fmtp:\(payloadType) \(format)",
        ]
        if let frameRate { lines.append("a=framerate:\(frameRate)") }
        if let rtcpPort { lines.append("a=rtcp:\(rtcpPort)") }
        if rtcpMux { lines.append("a=rtcp-mux") }
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// Reads back the first H.264 video stream of an SDP document: the `c=` address, the
    /// `m=video` port and payload type, the `a=fmtp` of that payload type, and the media's
    /// `a=rtcp` (RFC 3605, its port; the address, if any, is not kept) and `a=rtcp-mux`
    /// (RFC 5761).
    /// - Throws: ``RTPError/Code/invalidArgument`` when there is no `m=video` line or no
    ///   `rtpmap` naming H264 for its payload type, or a line is malformed (an `a=rtcp` port
    ///   outside 1...65535 included); errors of ``H264FormatParameters/init(parsing:)``.
    public init(parsing text: String) throws(RTPError) {
        var address: String?, port: Int?, payloadType: UInt8?, name = "", fmtp: Substring?, isH264 = false
        var frameRate: Double?, rtcpPort: Int?, rtcpMux = false
        var inVideo = false  // inside the first m=video section
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = H264FormatParameters.trimmed(raw)
            if line.hasPrefix("s=") { name = String(line.dropFirst(2)) }
            if line.hasPrefix("c=") { address = line.split(separator: " ").last.map(String.init) }
            if line.hasPrefix("m=") { inVideo = false }
            if line.hasPrefix("m=video"), port == nil {
                inVideo = true
                let f = line.split(separator: " ")
                guard f.count >= 4, let p = Int(f[1]), (0...65535).contains(p), let pt = UInt8(f[3]), pt < 128 else {
                    throw RTPError.invalid(.invalidArgument, "malformed media line '\(line)'")
                }
                port = p
                payloadType = pt
            }
            if inVideo && line.hasPrefix("a=rtcp:") {
                guard let field = line.dropFirst("a=rtcp:".count).split(separator: " ").first, let p = Int(field), (1...65535).contains(p) else {
                    throw RTPError.invalid(.invalidArgument, "malformed RTCP attribute '\(line)'")
                }
                rtcpPort = p
            }
            if inVideo && line == "a=rtcp-mux" { rtcpMux = true }
            guard let pt = payloadType else { continue }
            if line.hasPrefix("a=rtpmap:\(pt) ") { isH264 = line.dropFirst("a=rtpmap:\(pt) ".count).uppercased().hasPrefix("H264/") }
            if line.hasPrefix("a=fmtp:\(pt) ") { fmtp = line }
            if line.hasPrefix("a=framerate:") { frameRate = Double(line.dropFirst("a=framerate:".count)) }
        }
        guard let port, let payloadType else { throw RTPError.invalid(.invalidArgument, "no m=video line") }
        guard isH264 else { throw RTPError.invalid(.invalidArgument, "payload type \(payloadType) is not mapped to H264") }
        self.init(sessionName: name, connectionAddress: address ?? "", port: port, payloadType: payloadType,
                  format: try fmtp.map { (f: Substring) throws(RTPError) in try H264FormatParameters(parsing: f) } ?? H264FormatParameters(packetizationMode: 0),
                  frameRate: frameRate, rtcpPort: rtcpPort == port + 1 ? nil : rtcpPort, rtcpMux: rtcpMux)
    }
}
