import MediaSupport

/// A response from an RTSP server (RFC 2326 7, RFC 7826 8): the status line, the headers in
/// the order they came, and the body (`Content-Length` bytes).
public struct RTSPResponse: Hashable, Sendable {
    /// The status code (200, 401, 454, ...).
    public var statusCode: Int
    /// The reason phrase.
    public var reasonPhrase: String
    /// The headers, in order, names as sent.
    public var headers: [(name: String, value: String)] {
        get { fields.map { ($0.name, $0.value) } }
        set { fields = newValue.map { Field(name: $0.name, value: $0.value) } }
    }
    /// The body (the SDP of a `DESCRIBE`).
    public var body: [UInt8]

    struct Field: Hashable, Sendable {
        var name: String
        var value: String
    }
    var fields: [Field]

    /// Creates a response.
    public init(statusCode: Int, reasonPhrase: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.fields = headers.map { Field(name: $0.name, value: $0.value) }
        self.body = body
    }

    /// The first value of a header, its name compared without case; nil when absent.
    public subscript(header name: String) -> String? {
        let key = name.lowercased()
        return fields.first { $0.name.lowercased() == key }?.value
    }

    /// Every value of a header (a server may send `WWW-Authenticate` several times).
    public func values(of name: String) -> [String] {
        let key = name.lowercased()
        return fields.filter { $0.name.lowercased() == key }.map(\.value)
    }

    /// True for a 2xx status.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }
}

/// The bounds on what an RTSP server can make the client hold (``RTSPClient/Options/limits``).
/// Every one is checked before the bytes are kept, so a server that sends an endless header,
/// a huge `Content-Length` or a stream of interleaved frames on unknown channels ends with
/// ``RTSPError/Code/limitExceeded`` (or the request's deadline), never with memory growing.
public struct RTSPLimits: Hashable, Sendable {
    /// The longest status line or header line, in bytes (default 8 KiB: a `WWW-Authenticate`
    /// with several parameters fits many times over).
    public var maximumLineLength: Int
    /// The most header lines in one response (default 64).
    public var maximumHeaderCount: Int
    /// The largest body (`Content-Length`), in bytes (default 256 KiB: SDP documents are a few
    /// kilobytes).
    public var maximumBodySize: Int
    /// The largest interleaved frame payload accepted, in bytes (at most 65,535, the most its
    /// 16-bit length can say, which is the default).
    public var maximumInterleavedFrameSize: Int
    /// Interleaved frames kept while a response is awaited (RTP sent before the `PLAY` reply),
    /// delivered after it; past it they are dropped and counted (default 256).
    public var maximumFramesBeforeResponse: Int
    /// The most media sections read from an SDP (default 32).
    public var maximumMediaCount: Int

    /// Creates limits.
    public init(maximumLineLength: Int = 8 << 10, maximumHeaderCount: Int = 64, maximumBodySize: Int = 256 << 10,
                maximumInterleavedFrameSize: Int = 65_535, maximumFramesBeforeResponse: Int = 256, maximumMediaCount: Int = 32) {
        self.maximumLineLength = maximumLineLength
        self.maximumHeaderCount = maximumHeaderCount
        self.maximumBodySize = maximumBodySize
        self.maximumInterleavedFrameSize = min(maximumInterleavedFrameSize, 65_535)
        self.maximumFramesBeforeResponse = maximumFramesBeforeResponse
        self.maximumMediaCount = maximumMediaCount
    }

    /// The most bytes of one message held while it is read: the header section (lines and
    /// their line ends) and the body.
    var maximumMessageSize: Int {
        (maximumLineLength &+ 2) &* (maximumHeaderCount &+ 2) &+ maximumBodySize  // small, caller-set values
    }
}

/// What the server sent next on the connection.
package enum RTSPIncoming {
    /// A response to a request.
    case response(RTSPResponse)
    /// An interleaved frame (RFC 2326 10.12): `$`, the channel, a 16-bit length, the payload.
    case interleaved(channel: UInt8, payload: [UInt8])
    /// A request from the server (`OPTIONS`, `ANNOUNCE`, `SET_PARAMETER`, ...): its method and
    /// `CSeq`, answered with 501 by the client.
    case request(method: String, cseq: String?)
}

/// Reads RTSP messages and interleaved frames from a connection, within a deadline and the
/// limits. Resumable: bytes of a message not yet whole stay buffered across calls, so a call
/// that times out in the middle of one loses nothing.
///
/// Memory: at most the line, header and body limits of ``RTSPLimits`` plus one 64 KiB receive.
package struct RTSPMessageReader {
    package let limits: RTSPLimits
    private var buffer: [UInt8] = []
    private var start = 0

    package init(limits: RTSPLimits) { self.limits = limits }

    /// Bytes buffered and not yet taken.
    package var bufferedCount: Int { buffer.count &- start }

    /// The next message, receiving from `socket` until `deadline` while the buffer holds none.
    /// - Throws: ``RTSPError/Code/timedOut`` (the buffer kept), ``RTSPError/Code/limitExceeded``,
    ///   ``RTSPError/Code/invalidResponse``, the socket's errors mapped.
    mutating func next(from socket: TCPSocket, deadline: Deadline) throws(RTSPError) -> RTSPIncoming {
        while true {
            if let message = try parse() { return message }
            let chunk = try RTSPError.mapping { () throws(SocketError) in try socket.receive(maximum: 64 << 10, deadline: deadline) }
            append(chunk[...])
        }
    }

    /// Adds received bytes (what ``next(from:deadline:)`` does with each receive).
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer += bytes
    }

    /// A whole message from the buffer, or nil when more bytes are needed.
    package mutating func parse() throws(RTSPError) -> RTSPIncoming? {
        // Line ends between messages (some servers send an extra CRLF).
        while start < buffer.count, buffer[start] == 0x0D || buffer[start] == 0x0A { start &+= 1 }
        guard start < buffer.count else { return nil }
        if buffer[start] == UInt8(ascii: "$") {
            guard buffer.count &- start >= 4 else { return nil }
            let channel = buffer[start &+ 1]
            let length = Int(buffer[start &+ 2]) << 8 | Int(buffer[start &+ 3])
            guard length <= limits.maximumInterleavedFrameSize else {
                throw RTSPError.invalid(.limitExceeded, "an interleaved frame of \(length) bytes on channel \(channel), more than \(limits.maximumInterleavedFrameSize)")
            }
            guard buffer.count &- start >= 4 &+ length else { return nil }
            let payload = Array(buffer[(start &+ 4)..<(start &+ 4 &+ length)])
            start &+= 4 &+ length  // within the buffer, checked above
            return .interleaved(channel: channel, payload: payload)
        }
        // The header section: lines up to an empty one, each bounded as it is found.
        var lines: [Substring] = []
        var i = start
        var headerEnd: Int?
        while headerEnd == nil {
            let lineStart = i
            var end = i
            while end < buffer.count, buffer[end] != 0x0A { end &+= 1 }
            let length = end &- lineStart
            guard length <= limits.maximumLineLength &+ 1 else {
                throw RTSPError.invalid(.limitExceeded, "a response line longer than \(limits.maximumLineLength) bytes")
            }
            guard end < buffer.count else { return nil }  // the line is not whole yet
            var lineEnd = end
            if lineEnd > lineStart, buffer[lineEnd &- 1] == 0x0D { lineEnd &-= 1 }
            guard lineEnd &- lineStart <= limits.maximumLineLength else {  // a bare LF: the CR allowed for above is not there
                throw RTSPError.invalid(.limitExceeded, "a response line longer than \(limits.maximumLineLength) bytes")
            }
            i = end &+ 1
            if lineEnd == lineStart {
                headerEnd = i
            } else {
                guard lines.count <= limits.maximumHeaderCount else {
                    throw RTSPError.invalid(.limitExceeded, "more than \(limits.maximumHeaderCount) header lines in a response")
                }
                lines.append(Substring(decoding: buffer[lineStart..<lineEnd], as: UTF8.self))
            }
        }
        guard let bodyStart = headerEnd, let first = lines.first else {
            throw RTSPError.invalid(.invalidResponse, "an empty response")
        }
        var fields: [RTSPResponse.Field] = []
        for line in lines.dropFirst() {
            if line.first == " " || line.first == "\t", !fields.isEmpty {  // a folded line continues the header
                fields[fields.count &- 1].value += " " + line.trimmingSpaces
                continue
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw RTSPError.invalid(.invalidResponse, "a header line without ':' (\(line.prefix(40)))")
            }
            fields.append(.init(name: line[..<colon].trimmingSpaces, value: line[line.index(after: colon)...].trimmingSpaces))
        }
        var length = 0
        if let text = fields.first(where: { $0.name.lowercased() == "content-length" })?.value {
            guard let n = Int(text), n >= 0 else { throw RTSPError.invalid(.invalidResponse, "Content-Length '\(text.prefix(20))'") }
            guard n <= limits.maximumBodySize else {
                throw RTSPError.invalid(.limitExceeded, "a body of \(n) bytes (Content-Length), more than \(limits.maximumBodySize)")
            }
            length = n
        }
        guard buffer.count &- bodyStart >= length else { return nil }
        let body = Array(buffer[bodyStart..<(bodyStart &+ length)])
        start = bodyStart &+ length
        let parts = first.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        if first.hasPrefix("RTSP/") {
            guard parts.count >= 2, let code = Int(parts[1]), (100...999).contains(code) else {
                throw RTSPError.invalid(.invalidResponse, "a malformed status line '\(first.prefix(80))'")
            }
            var response = RTSPResponse(statusCode: code, reasonPhrase: parts.count > 2 ? String(parts[2]) : "")
            response.fields = fields
            response.body = body
            return .response(response)
        }
        guard parts.count == 3, parts[2].hasPrefix("RTSP/") else {
            throw RTSPError.invalid(.invalidResponse, "neither a status line nor a request line: '\(first.prefix(80))'")
        }
        return .request(method: String(parts[0]), cseq: fields.first { $0.name.lowercased() == "cseq" }?.value)
    }
}

/// An RTSP request's bytes: the request line, `CSeq`, the headers, and the body if any.
func rtspRequestBytes(method: String, uri: String, cseq: Int, headers: [(String, String)], body: [UInt8] = []) -> [UInt8] {
    var text = "\(method) \(uri) RTSP/1.0\r\nCSeq: \(cseq)\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if !body.isEmpty { text += "Content-Length: \(body.count)\r\n" }
    text += "\r\n"
    return Array(text.utf8) + body
}
