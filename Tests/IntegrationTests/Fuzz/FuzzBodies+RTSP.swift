// The rtsp_response fuzz target: what an RTSP server sends a client.
import RTP
import RTSP

extension FuzzBodies {
    // MARK: - rtsp_response

    /// The limits the body reads with, from the input's first two bytes: small, so the fuzzer
    /// meets every bound (a line, the header count, a body, an interleaved frame, the media
    /// sections).
    static func rtspLimits(_ a: UInt8, _ b: UInt8) -> RTSPLimits {
        RTSPLimits(maximumLineLength: 16 + Int(a & 0x3F) * 8, maximumHeaderCount: 2 + Int(a >> 6) * 6,
                   maximumBodySize: 64 + Int(b & 0x0F) * 128, maximumInterleavedFrameSize: 16 + Int(b >> 4) * 64,
                   maximumFramesBeforeResponse: 4, maximumMediaCount: 1 + Int(b >> 6))
    }

    /// The bytes of an RTSP connection as the client reads them: byte 0 and 1 the limits
    /// (``rtspLimits(_:_:)``), byte 2 the size of the chunks the bytes arrive in (1...256), then
    /// responses, server requests and interleaved (`$`) frames. Each message the reader returns
    /// goes where the client would take it: a response's body through the SDP reader (with
    /// `Content-Base` resolved), its `Transport`, `Session`-free `RTP-Info`, `Range` and
    /// `WWW-Authenticate` headers through their readers (and an `Authorization` made from the
    /// challenge), a frame's payload through the RTCP reader and the depacketiser.
    ///
    /// Properties: a reading stops at the first error, never traps; everything returned keeps
    /// within the limits (a line, the header count, the body, the frame; a header folded over
    /// several lines within the header section); no more messages than
    /// input bytes; an SDP has at most the media sections allowed; a `Range` that parses writes
    /// back to one that parses; the password never appears in an `Authorization`.
    static func rtspResponse(_ data: [UInt8]) {
        // Bytes 0-2 choose the limits and the chunk size (0 where the input is shorter).
        let header = Array(data.prefix(3)) + Array(repeating: 0, count: max(0, 3 - data.count))
        let limits = rtspLimits(header[0], header[1])
        let chunk = Int(header[2]) &+ 1
        let input = data.dropFirst(3)
        var reader = RTSPMessageReader(limits: limits)
        var depacketizer = try? RTPDepacketizer(.init(reorderWindow: 8, maximumAccessUnitSize: 4096, lenient: true))
        var messages = 0
        // Text is decoded as UTF-8, an invalid byte becoming a 3-byte replacement character: a
        // line's text is at most 3 times its bytes. The header section's bound: every line and
        // its line end, the status line and the empty line.
        let lineText = 3 * limits.maximumLineLength
        let headerSection = 3 * (limits.maximumLineLength + 2) * (limits.maximumHeaderCount + 2)
        var offset = input.startIndex
        let base = try? RTSPURL("rtsp://camera.local/cam/")
        let credentials = RTSPCredentials(user: "admin", password: "fuzz-secret-9")
        reading: while offset < input.endIndex {
            let end = min(offset &+ chunk, input.endIndex)
            reader.append(input[offset..<end])
            offset = end
            while true {
                let message: RTSPIncoming?
                do throws(RTSPError) { message = try reader.parse() } catch { break reading }
                guard let message else { break }
                messages &+= 1
                check(messages <= input.count, "\(messages) messages from \(input.count) bytes")
                switch message {
                case .interleaved(_, let payload):
                    check(payload.count <= limits.maximumInterleavedFrameSize, "a frame of \(payload.count) bytes past the limit")
                    _ = try? RTCP.packets(in: payload[...])
                    try? depacketizer?.push(payload[...]) { _ in }
                case .request(let method, let cseq):
                    // A folded header (continuation lines) spans lines: its value is bounded by the header section.
                    check(method.utf8.count <= lineText && (cseq?.utf8.count ?? 0) <= headerSection,
                          "a request line past the line limit, or a CSeq past the header section")
                case .response(let response):
                    check((100...999).contains(response.statusCode), "status \(response.statusCode)")
                    check(response.headers.count <= limits.maximumHeaderCount, "\(response.headers.count) headers past the limit")
                    check(response.body.count <= limits.maximumBodySize, "a body of \(response.body.count) bytes past the limit")
                    check(response.headers.allSatisfy { $0.name.utf8.count + $0.value.utf8.count <= headerSection },
                          "a header past the header section's bound")
                    checkRTSPHeaders(response, base: base, credentials: credentials)
                    if let base, !response.body.isEmpty {
                        let contentBase = response[header: "Content-Base"].flatMap { base.resolving($0) } ?? base
                        if let sdp = try? RTSPSessionDescription(parsing: String(decoding: response.body, as: UTF8.self), base: contentBase,
                                                                 maximumMediaCount: limits.maximumMediaCount) {
                            check(sdp.tracks.count <= limits.maximumMediaCount, "\(sdp.tracks.count) media sections past the limit")
                            check(sdp.tracks.enumerated().allSatisfy { $0.offset == $0.element.index }, "track indices out of order")
                            _ = sdp.videoTrack?.h264.map { try? $0.parameterSetNALUnits() }
                        }
                    }
                }
            }
        }
        check(reader.bufferedCount <= input.count, "more bytes buffered than received")
        depacketizer?.flush { _ in }
    }

    /// A response's headers through the readers the client uses.
    private static func checkRTSPHeaders(_ response: RTSPResponse, base: RTSPURL?, credentials: RTSPCredentials) {
        for (name, value) in response.headers {
            switch name.lowercased() {
            case "transport":
                _ = RTSPTransportHeader(value)
            case "rtp-info":
                let entries = RTSPTrack.RTPInfo.parse(value)
                check(entries.count <= value.utf8.count / 4 + 1, "\(entries.count) RTP-Info entries from \(value.utf8.count) bytes")
            case "range":
                if let range = RTSPRange(parsing: value) {
                    check(RTSPRange(parsing: range.description) != nil, "a Range does not survive description + parse: \(range)")
                }
            case "content-base", "content-location", "location":
                if let url = base?.resolving(value) {
                    check(!url.description.contains("fuzz-secret"), "a URL prints a password")
                }
            default:
                break
            }
        }
        let challenges = response.values(of: "WWW-Authenticate")
        if !challenges.isEmpty, var authenticator = try? RTSPAuthenticator.choose(from: challenges) {
            let header = authenticator.authorization(credentials, method: "DESCRIBE", uri: "rtsp://camera.local/cam")
            check(!header.contains(credentials.password), "the password in an Authorization header")
        }
    }
}
