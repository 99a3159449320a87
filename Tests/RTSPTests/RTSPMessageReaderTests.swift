@testable import RTSP
import Testing

/// The response reader: whole messages from any split of the bytes, every prefix incomplete
/// (never an error), interleaved frames between responses, folded headers, and the bounds.
@Suite struct RTSPMessageReaderTests {
    static let response = Array(("RTSP/1.0 200 OK\r\nCSeq: 3\r\nContent-Base: rtsp://h/cam/\r\nX-Folded: a\r\n b\r\n"
                                 + "Content-Length: 5\r\n\r\nv=0\r\n").utf8)
    static let frame: [UInt8] = [0x24, 1, 0, 3, 9, 8, 7]

    @Test func everyPrefixIsIncomplete() throws {
        let bytes = Self.frame + Self.response + Self.frame
        for cut in 0..<(Self.frame.count) {
            var reader = RTSPMessageReader(limits: RTSPLimits())
            reader.append(bytes[..<cut])
            #expect(try reader.parse() == nil, "prefix \(cut)")
        }
        for cut in Self.frame.count..<(Self.frame.count + Self.response.count) {
            var reader = RTSPMessageReader(limits: RTSPLimits())
            reader.append(bytes[..<cut])
            guard case .interleaved(1, [9, 8, 7]) = try reader.parse() else { Issue.record("no frame at \(cut)"); continue }
            #expect(try reader.parse() == nil, "prefix \(cut)")
        }
        var reader = RTSPMessageReader(limits: RTSPLimits())
        reader.append(bytes[...])
        guard case .interleaved = try reader.parse(), case .response(let r) = try reader.parse(),
              case .interleaved(1, [9, 8, 7]) = try reader.parse() else { Issue.record("not frame, response, frame"); return }
        #expect(r.statusCode == 200)
        #expect(r[header: "content-base"] == "rtsp://h/cam/")
        #expect(r[header: "X-Folded"] == "a b")
        #expect(r.body == Array("v=0\r\n".utf8))
        #expect(try reader.parse() == nil)
    }

    /// A line of exactly `maximumLineLength` bytes passes with either line end; one byte more
    /// fails with either (a bare LF does not get the CR's byte).
    @Test(arguments: ["\r\n", "\n"]) func lineLimitIsExact(lineEnd: String) throws {
        var limits = RTSPLimits()
        limits.maximumLineLength = 20
        let header = "X-Pad: " + String(repeating: "a", count: 13)  // 20 bytes
        var exact = RTSPMessageReader(limits: limits)
        exact.append(Array("RTSP/1.0 200 OK\(lineEnd)\(header)\(lineEnd)\(lineEnd)".utf8)[...])
        guard case .response(let r) = try exact.parse() else { Issue.record("no response"); return }
        #expect(r[header: "X-Pad"]?.count == 13)
        var over = RTSPMessageReader(limits: limits)
        over.append(Array("RTSP/1.0 200 OK\(lineEnd)\(header)a\(lineEnd)\(lineEnd)".utf8)[...])
        #expect(throws: RTSPError.invalid(.limitExceeded, "")) { try over.parse() }
    }

    @Test func bounds() {
        var limits = RTSPLimits()
        limits.maximumBodySize = 4
        var reader = RTSPMessageReader(limits: limits)
        reader.append(Self.response[...])
        #expect(throws: RTSPError.invalid(.limitExceeded, "")) { try reader.parse() }
        var bad = RTSPMessageReader(limits: RTSPLimits())
        bad.append(Array("HTTP/1.1 200 OK\r\n\r\n".utf8)[...])
        #expect(throws: RTSPError.invalid(.invalidResponse, "")) { try bad.parse() }
    }
}
