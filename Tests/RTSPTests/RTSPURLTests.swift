import Testing
@testable import RTSP

/// URLs: user information out of every printed form, controls resolved as RFC 2326 C.1.1 and
/// the servers do.
@Suite struct RTSPURLTests {
    @Test func userInformationIsTakenOut() throws {
        let url = try RTSPURL("rtsp://admin:p%40ss:word@192.168.1.2:8554/Streaming/Channels/101?transportmode=unicast")
        #expect(url.user == "admin")
        #expect(url.password == "p@ss:word")
        #expect(url.host == "192.168.1.2")
        #expect(url.port == 8554)
        #expect(url.requestURI == "rtsp://192.168.1.2:8554/Streaming/Channels/101?transportmode=unicast")
        #expect(!"\(url)".contains("p@ss"))
        #expect(try RTSPURL("rtsp://[::1]/x").requestURI == "rtsp://[::1]/x")
        #expect(try RTSPURL("rtsp://h").path == "/")
    }

    @Test func badURLs() {
        for text in ["http://h/x", "rtsp:///x", "rtsp://h:0/x", "rtsp://h:99999/", "rtsp://u:%zz@h/"] {
            #expect(throws: RTSPError.invalid(.invalidArgument, "")) { try RTSPURL(text) }
        }
        // The reason of a bad URL never quotes the password.
        do {
            _ = try RTSPURL("rtsp://u:secret@h:0/x")
            Issue.record("no error")
        } catch {
            #expect(!error.reason.contains("secret"))
        }
    }

    @Test(arguments: [
        ("rtsp://h/cam", "trackID=1", "rtsp://h/cam/trackID=1"),
        ("rtsp://h/cam/", "trackID=1", "rtsp://h/cam/trackID=1"),
        ("rtsp://h/cam?x=1", "trackID=1", "rtsp://h/cam/trackID=1"),
        ("rtsp://h/cam/", "*", "rtsp://h/cam/"),
        ("rtsp://h/cam", "/other/stream=0", "rtsp://h/other/stream=0"),
        ("rtsp://h:8554/cam", "rtsp://other:9000/a/b", "rtsp://other:9000/a/b"),
    ])
    func controlResolution(base: String, control: String, expected: String) throws {
        #expect(try RTSPURL(base).resolving(control)?.requestURI == expected)
    }
}
