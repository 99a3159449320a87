import Foundation
import H264
import MPEGTS
import SRT
import TestSupport
import Testing

/// `srt-live-transmit` (libsrt's own tool, Debian srt-tools) as the other end, both
/// directions, with and without a passphrase.
@Suite(.enabled(if: SRTTestSupport.srtLiveTransmitIsPresent && FFmpeg.isPresent,
                "needs srt-live-transmit (srt-tools) and ffmpeg (to make the source)"))
struct SRTLiveTransmitTests {
    static let passphrase = "live-transmit-secret"

    static func query(_ passphrase: String?) -> String {
        "latency=40" + (passphrase.map { "&passphrase=\($0)" } ?? "")
    }

    /// Our caller into `srt-live-transmit srt://:PORT file://con`: its output has every access
    /// unit we sent (our caller waits for the acknowledgements and the latency before closing).
    @Test(arguments: [nil, SRTLiveTransmitTests.passphrase] as [String?])
    func ourCallerIntoLiveTransmit(passphrase: String?) throws {
        let source = Support.readFile(try SRTTestSupport.ffmpegSource.get())
        let port = SRTTestSupport.freePort()
        let dir = try Support.temporaryDirectory()
        _ = FileManager.default.createFile(atPath: dir + "/out.ts", contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/out.ts"))
        let tool = try Support.start("srt-live-transmit", ["-a:no", "-q", "srt://:\(port)?\(Self.query(passphrase))", "file://con"],
                                     stdout: output)
        let caller = try SRTTestSupport.connect(port: port, options: SRTOptions(latency: .milliseconds(40), passphrase: passphrase))
        try SRTTestSupport.send(source, over: caller)
        try caller.finish(timeout: .seconds(5))
        #expect(!Support.wait(tool, timeout: 10), "srt-live-transmit did not end when the caller closed")
        try output.close()
        let got = SRTTestSupport.units(Support.readFile(dir + "/out.ts"))
        let expected = SRTTestSupport.units(source).units
        #expect(got.units.count == expected.count)
        #expect(got.units == expected)
        #expect(got.statistics.continuityErrors == 0)
    }

    /// `srt-live-transmit file://con srt://127.0.0.1:PORT` into our listener: every access unit
    /// arrives. The tool reads its standard input in 1,316-byte chunks and drops a last partial
    /// one, and it drops what it reads before it is connected, so the source is padded with
    /// null packets to whole chunks and fed through a pipe a moment after it starts (and kept
    /// open for the latency after the end); it keeps the connection open after that, so silence
    /// ends the reception.
    @Test(arguments: [nil, SRTLiveTransmitTests.passphrase] as [String?])
    func liveTransmitIntoOurListener(passphrase: String?) throws {
        let source = Support.readFile(try SRTTestSupport.ffmpegSource.get())
        var padded = source
        while padded.count % 1316 != 0 { padded += [0x47, 0x1F, 0xFF, 0x10] + [UInt8](repeating: 0xFF, count: 184) }
        let sourcePath = try Support.temporaryFile(padded, name: "padded.ts")
        let listener = try SRTListener(address: "127.0.0.1", port: 0,
                                       options: .init(connection: SRTOptions(latency: .milliseconds(40), passphrase: passphrase,
                                                                             timestampBasedDelivery: false)))
        let tool = try Support.start("sh", ["-c", "(sleep 0.3; cat '\(sourcePath)'; sleep 0.5) | srt-live-transmit -a:no -q -chunk:1316 "
                                                  + "file://con 'srt://127.0.0.1:\(listener.localPort)?\(Self.query(passphrase))'"])
        defer { Support.wait(tool, timeout: 10) }
        let caller = try listener.accept(timeout: .seconds(10))
        // The tool keeps the connection after its input ends: a second of silence ends it.
        let (received, _) = try SRTTestSupport.receiveAll(caller, idle: .seconds(1))
        tool.terminate()
        let got = SRTTestSupport.units(received)
        let expected = SRTTestSupport.units(source).units
        #expect(got.units.count == expected.count)
        #expect(got.units == expected)
    }
}
