import Foundation
import H264
import H264Fixtures
import MediaSupport
import RTP
@testable import RTSP

/// A one-connection RTSP server on a loopback port whose answers a test scripts: it reads the
/// client's requests (and its interleaved RTCP frames, kept in ``framesFromClient``) and
/// passes each request to `handle`, which writes what it likes on the connection. Connections
/// are served one after another; the thread ends when the test finishes it, or after its
/// lifetime (20 s unless told).
final class ScriptedRTSPServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var uri: String
        var cseq: String
        var headers: [String: String]  // lower-cased names
    }

    /// What a handler uses to answer.
    final class Connection: @unchecked Sendable {
        let socket: TCPSocket
        /// Sends from several threads (a handler's replies, a media thread) go whole.
        private let sending = ThreadLock(0)
        init(socket: TCPSocket) { self.socket = socket }
        func send(_ bytes: [UInt8]) { sending.withLock { _ in _ = try? socket.send(bytes, deadline: .after(.seconds(5))) } }
        func send(_ text: String) { send(Array(text.utf8)) }
        /// A response with CSeq and the given headers and body.
        func reply(_ request: Request, _ status: String = "200 OK", _ headers: [String] = [], body: String = "") {
            var text = "RTSP/1.0 \(status)\r\nCSeq: \(request.cseq)\r\n"
            for h in headers { text += h + "\r\n" }
            if !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
            send(text + "\r\n" + body)
        }
        /// An interleaved frame.
        func frame(_ channel: UInt8, _ payload: ArraySlice<UInt8>) {
            send([UInt8(ascii: "$"), channel, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload)
        }
    }

    let listener: TCPListener
    var port: Int { listener.localAddress.port }
    private let state = ThreadLock((requests: [Request](), frames: [[UInt8]](), done: false))

    var requests: [Request] { state.withLock { $0.requests } }
    var framesFromClient: [[UInt8]] { state.withLock { $0.frames } }
    var url: String { "rtsp://127.0.0.1:\(port)/cam" }

    init(lifetime: Duration = .seconds(20), _ handle: @escaping @Sendable (Request, Connection) -> Void) throws {
        listener = try TCPListener()
        let listener = self.listener, state = self.state
        Thread.detachNewThread {
          let end = Deadline.after(lifetime)
          // Connections one after another (a client that falls back or reconnects).
          while !end.hasPassed, !state.withLock({ $0.done }) {
            guard let socket = try? listener.accept(deadline: .after(.milliseconds(200))) else { continue }
            let connection = Connection(socket: socket)
            var buffer: [UInt8] = []
            while !end.hasPassed, !state.withLock({ $0.done }) {
                guard let chunk = try? socket.receive(maximum: 65_536, deadline: .after(.milliseconds(100)).capped(at: end.remaining)) else {
                    if socket.isReadable || !socket.isOpen { break }
                    continue
                }
                buffer += chunk
                while true {
                    if buffer.first == UInt8(ascii: "$") {
                        guard buffer.count >= 4 else { break }
                        let n = Int(buffer[2]) << 8 | Int(buffer[3])
                        guard buffer.count >= 4 + n else { break }
                        let payload = Array(buffer[4..<(4 + n)])
                        buffer.removeFirst(4 + n)
                        state.withLock { $0.frames.append(payload) }
                        continue
                    }
                    let text = String(decoding: buffer, as: UTF8.self)
                    guard let range = text.range(of: "\r\n\r\n") else { break }
                    let head = String(text[..<range.lowerBound])
                    buffer.removeFirst(head.utf8.count + 4)
                    var lines = head.components(separatedBy: "\r\n")
                    let first = lines.removeFirst().split(separator: " ")
                    var headers: [String: String] = [:]
                    for line in lines {
                        guard let colon = line.firstIndex(of: ":") else { continue }
                        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    }
                    let request = Request(method: first.first.map(String.init) ?? "", uri: first.count > 1 ? String(first[1]) : "",
                                          cseq: headers["cseq"] ?? "0", headers: headers)
                    state.withLock { $0.requests.append(request) }
                    handle(request, connection)
                }
            }
            socket.close()
          }
        }
    }

    func finish() {
        state.withLock { $0.done = true }
        listener.close()
    }

    deinit { finish() }

    // MARK: Media for the scripts

    /// The baseline fixture as RTP packets (SSRC 0x1234, random-free: timestamps from 0), and
    /// its access units.
    static func fixturePackets(payloadType: UInt8 = 96, mtu: Int = 1200) throws -> (packets: [ArraySlice<UInt8>], accessUnits: Int) {
        let sent = RTPAccessUnit.accessUnits(annexB: Fixture.baselineCAVLC.bytes()[...],
                                             timing: .init(frameRate: (25, 1), overridesStreamTiming: true))
        var packetizer = try RTPPacketizer(.init(mtu: mtu, payloadType: payloadType, ssrc: 0x1234, initialSequenceNumber: 100,
                                                 initialTimestamp: 0))
        var buffer = RTPPacketBuffer()
        for au in sent { try packetizer.packetize(au, into: &buffer) }
        return ((0..<buffer.count).map { buffer[$0] }, sent.count)
    }

    /// An SDP with one H.264 track whose control is `control`, and the given fmtp.
    static func sdp(control: String = "trackID=0", fmtp: String = "packetization-mode=1", extra: String = "") -> String {
        "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=scripted\r\nt=0 0\r\na=control:*\r\nm=video 0 RTP/AVP 96\r\n"
            + "a=rtpmap:96 H264/90000\r\na=fmtp:96 \(fmtp)\r\na=control:\(control)\r\n" + extra
    }
}
