import Foundation
import H264
import MPEGTS
import SRT
import TestSupport
import Testing

/// FFmpeg's SRT protocol (libsrt inside FFmpeg) as the other end, both directions, with and
/// without a passphrase; a wrong passphrase refused on both sides.
@Suite(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe"))
struct SRTFFmpegTests {
    static let passphrase = "swift-h264-over-srt"

    /// The query of FFmpeg's srt:// URL (FFmpeg's latency is in microseconds).
    static func query(_ mode: String, passphrase: String?) -> String {
        "mode=\(mode)&pkt_size=1316&latency=40000" + (passphrase.map { "&passphrase=\($0)" } ?? "")
    }

    /// `ffmpeg -re ... -f mpegts srt://...?mode=caller` into our listener: every access unit of
    /// the source arrives, with its key flag and times (`-copyts`).
    @Test(arguments: [nil, SRTFFmpegTests.passphrase] as [String?])
    func ffmpegCallerIntoOurListener(passphrase: String?) throws {
        let source = try SRTTestSupport.ffmpegSource.get()
        let listener = try SRTListener(address: "127.0.0.1", port: 0,
                                       options: .init(connection: SRTOptions(latency: .milliseconds(40), passphrase: passphrase,
                                                                             timestampBasedDelivery: false)))
        let ffmpeg = try Support.start("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-readrate", "4", "-i", source,
                                                  "-c", "copy", "-copyts", "-f", "mpegts",
                                                  "srt://127.0.0.1:\(listener.localPort)?\(Self.query("caller", passphrase: passphrase))"])
        defer { Support.wait(ffmpeg, timeout: 10) }
        let caller = try listener.accept(timeout: .seconds(10))
        let (received, closed) = try SRTTestSupport.receiveAll(caller)
        #expect(closed)
        let expected = SRTTestSupport.units(Support.readFile(source))
        let got = SRTTestSupport.units(received)
        #expect(expected.units.count == 50)
        #expect(got.units.count == expected.units.count)
        #expect(got.units == expected.units)
        #expect(got.statistics.continuityErrors == 0)
        #expect(got.units.filter(\.isSync).count == 2)
    }

    /// Our caller into `ffmpeg -i srt://...?mode=listener -c copy out.ts`: FFmpeg's file has
    /// every access unit we sent, with its key flag and times.
    @Test(arguments: [nil, SRTFFmpegTests.passphrase] as [String?])
    func ourCallerIntoFFmpegListener(passphrase: String?) throws {
        let source = Support.readFile(try SRTTestSupport.ffmpegSource.get())
        let port = SRTTestSupport.freePort()
        let out = try Support.temporaryDirectory() + "/out.ts"
        let ffmpeg = try Support.start("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error",
                                                  "-i", "srt://127.0.0.1:\(port)?\(Self.query("listener", passphrase: passphrase))",
                                                  "-c", "copy", "-copyts", "-f", "mpegts", out])
        let caller = try SRTTestSupport.connect(port: port, options: SRTOptions(latency: .milliseconds(40), passphrase: passphrase))
        try SRTTestSupport.send(source, over: caller)
        try caller.finish(timeout: .seconds(5))
        #expect(!Support.wait(ffmpeg, timeout: 10), "ffmpeg did not end when the caller closed")
        #expect(ffmpeg.terminationStatus == 0)
        let expected = SRTTestSupport.units(source).units
        let got = SRTTestSupport.units(Support.readFile(out)).units
        #expect(got.count == expected.count)
        #expect(got == expected)
    }

    /// A caller whose passphrase differs from the listener's is refused, whichever side is
    /// FFmpeg: our caller is told `passphraseMismatch`; our listener hands out no connection.
    @Test func wrongPassphraseIsRefusedBothWays() throws {
        // Our caller, FFmpeg's listener.
        let port = SRTTestSupport.freePort()
        let ffmpeg = try Support.start("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error",
                                                  "-i", "srt://127.0.0.1:\(port)?\(Self.query("listener", passphrase: Self.passphrase))",
                                                  "-c", "copy", "-f", "mpegts", "-y", "/dev/null"])
        defer {
            ffmpeg.terminate()
            Support.wait(ffmpeg, timeout: 5)
        }
        let refused = #expect(throws: SRTError.self) {
            _ = try SRTTestSupport.connect(port: port, options: SRTOptions(passphrase: "not the passphrase"))
        }
        #expect(refused?.code == .passphraseMismatch, "\(String(describing: refused))")
        let none = #expect(throws: SRTError.self) {
            _ = try SRTTestSupport.connect(port: port, options: SRTOptions())
        }
        #expect(none?.code == .passphraseMismatch, "\(String(describing: none))")

        // FFmpeg's caller, our listener.
        let listener = try SRTListener(address: "127.0.0.1", port: 0,
                                       options: .init(connection: SRTOptions(passphrase: Self.passphrase)))
        let source = try SRTTestSupport.ffmpegSource.get()
        let caller = try FFmpeg.ffmpeg(["-v", "error", "-i", source, "-c", "copy", "-f", "mpegts",
                                        "srt://127.0.0.1:\(listener.localPort)?\(Self.query("caller", passphrase: "not the passphrase"))"],
                                       timeout: 20)
        #expect(!caller.succeeded)
        let accept = #expect(throws: SRTError.self) { _ = try listener.accept(timeout: .milliseconds(300)) }
        #expect(accept?.code == .timedOut)
        #expect(listener.statistics.accepted == 0)
    }
}
