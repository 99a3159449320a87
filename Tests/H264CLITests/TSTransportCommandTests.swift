import CommandLineSupport
import Foundation
import H264
import H264Fixtures
import MPEGTS
import TestSupport
import Testing
@testable import H264CLI

/// `h264 ts-send` and `h264 ts-receive`: endpoints, SRT and UDP through the executable, and
/// multicast inside a network namespace of its own.
@Suite struct TSTransportCommandTests {
    @Test func endpoints() throws {
        func name(_ e: TSEndpoint) -> String {
            switch e {
            case .srtCaller(let h, let p): "caller \(h) \(p)"
            case .srtListener(let a, let p): "listener \(a) \(p)"
            case .udp(let h, let p, let g): "udp \(h) \(p) \(g)"
            }
        }
        #expect(name(try TSEndpoint("srt://127.0.0.1:9000")) == "caller 127.0.0.1 9000")
        #expect(name(try TSEndpoint("srt://:9001")) == "listener 0.0.0.0 9001")
        #expect(name(try TSEndpoint("udp://@239.1.1.1:5000")) == "udp 239.1.1.1 5000 true")
        #expect(name(try TSEndpoint("udp://[::1]:5002")) == "udp ::1 5002 false")
        for bad in ["rtmp://x:1", "srt://127.0.0.1", "udp://:port", "srt://:70000"] {
            #expect(throws: CLIError.self) { _ = try TSEndpoint(bad) }
        }
    }

    static func fixtureFile() throws -> (path: String, units: Int) {
        let bytes = Fixture.mainCABACBFrames.bytes()
        return (try Support.temporaryFile(bytes, name: "source.264"), 10)
    }

    /// SRT with a passphrase through the two commands: the receiver's Annex-B output has the
    /// source's access units; its report says the peer closed.
    @Test(.enabled(if: Support.h264 != nil, "the h264 executable is not built"))
    func srtThroughTheCommands() throws {
        let h264 = try #require(Support.h264)
        let (source, count) = try Self.fixtureFile()
        let out = try Support.temporaryDirectory() + "/out.264"
        let port = Ports.freeEvenPort()
        let report = try Support.temporaryDirectory() + "/report.txt"
        _ = FileManager.default.createFile(atPath: report, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: report))
        let receiver = try Support.start(h264, ["ts-receive", "srt://:\(port)", "-o", out, "--passphrase", "ts-receive-secret",
                                                "--idle-timeout", "5", "--wait", "10"], stdout: handle)
        var sent: Support.ProcessResult?
        for _ in 0..<20 {  // until the receiver listens
            sent = try Support.run(h264, ["ts-send", source, "srt://127.0.0.1:\(port)", "--passphrase", "ts-receive-secret",
                                          "--speed", "10", "--latency", "40"], timeout: 20)
            if sent?.succeeded == true { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(sent?.succeeded == true, "\(sent?.stderr ?? "")")
        #expect(!Support.wait(receiver, timeout: 15))
        try handle.close()
        let text = String(decoding: Support.readFile(report), as: UTF8.self)
        #expect(text.contains("\(count) access units") && text.contains("stopped: closed"), "\(text)")
        let got = TSTestSupportCLI.payloads(Support.readFile(out))
        #expect(got == TSTestSupportCLI.payloads(Fixture.mainCABACBFrames.bytes()))
    }

    /// Multicast inside a network namespace the test creates (`unshare -n`: its own loopback
    /// with a route for 224.0.0.0/4), never on a real interface: `ts-receive` joins
    /// 239.255.31.1 on lo, `ts-send` sends to it, every access unit arrives.
    @Test(.enabled(if: Support.h264 != nil && TSTestSupportCLI.namespaceWorks,
                   "needs the h264 executable and unshare -n (root) with ip"))
    func multicastInANetworkNamespace() throws {
        let h264 = try #require(Support.h264)
        let (source, count) = try Self.fixtureFile()
        let out = try Support.temporaryDirectory() + "/out.264"
        let script = """
        ip link set lo up && ip route add 224.0.0.0/4 dev lo && \
        ('\(h264)' ts-receive udp://@239.255.31.1:5600 --interface lo -o '\(out)' --idle-timeout 1 --wait 10 & \
         sleep 0.5; '\(h264)' ts-send '\(source)' udp://239.255.31.1:5600 --interface lo --speed 10; wait)
        """
        let r = try Support.run("unshare", ["-n", "sh", "-c", script], timeout: 30)
        #expect(r.succeeded, "\(r.stderr)")
        #expect(r.output.contains("\(count) access units"), "\(r.output)")
        #expect(TSTestSupportCLI.payloads(Support.readFile(out)) == TSTestSupportCLI.payloads(Fixture.mainCABACBFrames.bytes()))
    }

    /// `ts-receive -o DIR/` over UDP on 127.0.0.1: HLS with TS segments, whose playlist is
    /// ended and whose segments hold every access unit sent; `-o NAME.m3u8` names the playlist.
    @Test(.enabled(if: Support.h264 != nil, "the h264 executable is not built"), arguments: ["hls/", "live/stream.m3u8"])
    func receivesIntoHLS(_ target: String) throws {
        let h264 = try #require(Support.h264)
        let (source, count) = try Self.fixtureFile()
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let playlist = target.hasSuffix("/") ? dir + "/" + target + "index.m3u8" : dir + "/" + target
        if !target.hasSuffix("/") { try FileManager.default.createDirectory(atPath: dir + "/live", withIntermediateDirectories: true) }
        let port = Ports.freeEvenPort()
        let report = dir + "/report.txt"
        _ = FileManager.default.createFile(atPath: report, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: report))
        let receiver = try Support.start(h264, ["ts-receive", "udp://127.0.0.1:\(port)", "-o", dir + "/" + target,
                                                "--idle-timeout", "1", "--wait", "10"], stdout: handle)
        Thread.sleep(forTimeInterval: 0.5)
        try Support.run(h264, ["ts-send", source, "udp://127.0.0.1:\(port)", "--speed", "10"], timeout: 20).checked("h264 ts-send")
        #expect(!Support.wait(receiver, timeout: 15))
        try handle.close()
        let text = String(decoding: Support.readFile(report), as: UTF8.self)
        #expect(text.contains("\(count) access units") && text.contains("segments and"), "\(text)")
        let lines = String(decoding: Support.readFile(playlist), as: UTF8.self).split(separator: "\n")
        #expect(lines.last == "#EXT-X-ENDLIST" && lines.contains("#EXT-X-VERSION:3"))
        let folder = (playlist as NSString).deletingLastPathComponent
        var parser = TSParser()
        for name in lines where name.hasSuffix(".ts") { parser.append(Support.readFile(folder + "/" + name)) }
        parser.finish()
        var units: [[[UInt8]]] = []
        while let event = parser.next() {
            if case .accessUnit(let au) = event { units.append(au.nalUnits.filter { $0.type != .accessUnitDelimiter }.map { Array($0.bytes) }) }
        }
        #expect(units == TSTestSupportCLI.payloads(Fixture.mainCABACBFrames.bytes()))
    }
}

enum TSTestSupportCLI {
    /// The picture access units' NAL units (delimiters left out) of an Annex-B stream.
    static func payloads(_ annexB: [UInt8]) -> [[[UInt8]]] {
        AccessUnits.assemble(annexB: annexB[...], timing: TimestampOptions(frameRate: (25, 1)), leadingData: .skip).accessUnits
            .filter { !$0.flags.hasNoPicture }
            .map { $0.nalUnits.filter { $0.type != .accessUnitDelimiter }.map { Array($0.bytes) } }
    }

    /// Whether this process may make a network namespace with a multicast route on its loopback.
    static let namespaceWorks: Bool = {
        guard Support.which("unshare") != nil, Support.which("ip") != nil else { return false }
        let r = try? Support.run("unshare", ["-n", "sh", "-c", "ip link set lo up && ip route add 224.0.0.0/4 dev lo"], timeout: 10)
        return r?.succeeded == true
    }()
}
