import CommandLineSupport
import Foundation
import Testing
@testable import H264CLI

@Suite struct RTPSendCommandTests {
    @Test func destinations() throws {
        #expect(try RTPSendCommand.hostAndPort("127.0.0.1:5004") == ("127.0.0.1", 5004))
        #expect(try RTPSendCommand.hostAndPort("[::1]:6000") == ("::1", 6000))
        #expect(try RTPSendCommand.hostAndPort("localhost:1") == ("localhost", 1))
        for bad in ["127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", ":5004", "[::1]5004", "host:port"] {
            #expect(throws: CLIError.self) { try RTPSendCommand.hostAndPort(bad) }
        }
    }

    @Test func frameRates() throws {
        #expect(try RTPSendCommand.frameRate("25") == (25, 1))
        #expect(try RTPSendCommand.frameRate("30000/1001") == (30000, 1001))
        for bad in ["0", "25/0", "a/b", "1/2/3", "-5"] {
            #expect(throws: CLIError.self) { try RTPSendCommand.frameRate(bad) }
        }
    }
}


@Suite struct RTPSendDryRunTests {
    static let stream: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        for _ in 0..<3 {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("shared/corpus/cros-codecs/test-25fps.h264").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return ""
    }()

    @Test(.enabled(if: !stream.isEmpty, "needs ../shared/corpus"))
    func dryRunWritesTheSDP() throws {
        let sdp = FileManager.default.temporaryDirectory.appendingPathComponent("rtp-dry-\(UUID().uuidString).sdp").path
        defer { try? FileManager.default.removeItem(atPath: sdp) }
        var args = Arguments([Self.stream, "--to", "127.0.0.1:5004", "--sdp", sdp, "--dry-run"])
        try RTPSendCommand.run(&args)
        let text = try String(contentsOfFile: sdp, encoding: .utf8)
        #expect(text.contains("c=IN IP4 127.0.0.1\r\n"))
        #expect(text.contains("m=video 5004 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n"))
        #expect(text.contains("a=fmtp:96 packetization-mode=1;profile-level-id=4d400d;sprop-parameter-sets=J01ADakYKD5gDUGAQa2wrXvfAQ==,KN4JiA==\r\n"))
    }
}
