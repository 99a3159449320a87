import Foundation
import H264
import H264Fixtures
import MPEGTS
import TestSupport
import Testing

/// MPEG-TS over UDP on the loopback: our socket both ways, FFmpeg's `udp://` as the other end.
@Suite struct TSUDPSocketTests {
    /// Our sender to our receiver: seven packets per datagram, every access unit back.
    @Test func ourSenderToOurReceiver() throws {
        let units = TSTestSupport.accessUnits(Fixture.mainCABACBFrames.bytes())
        let receiver = try TSUDPSocket(receivingOn: 0, address: "127.0.0.1")
        let sender = try TSUDPSocket(sendingTo: "127.0.0.1", port: receiver.localPort)
        var writer = try TSWriter()
        var datagrams = 0
        for au in units {
            try writer.write(au)
            datagrams += try sender.send(packetsOf: &writer)
        }
        #expect(writer.bytes.isEmpty)
        var parser = TSParser()
        var sizes: [Int] = []
        while let n = try receiver.receive(into: &parser, timeout: .milliseconds(300)) { sizes.append(n) }
        #expect(sizes.count == datagrams)
        #expect(sizes.dropLast().allSatisfy { $0 <= 1316 && $0 % 188 == 0 })
        #expect(sizes.filter { $0 == 1316 }.count >= datagrams - units.count)
        parser.finish()
        var received: [TSAccessUnit] = []
        while let e = parser.next() { if case .accessUnit(let au) = e { received.append(au) } }
        #expect(received.map { TSTestSupport.payload($0.nalUnits) } == units.map { TSTestSupport.payload($0.nalUnits) })
        #expect(parser.statistics.continuityErrors == 0)
    }

    /// FFmpeg sends TS to our receiver (`udp://127.0.0.1:PORT?pkt_size=1316`), and receives
    /// what our sender sends: the access units equal the source's both ways.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe"))
    func ffmpegBothWays() throws {
        let units = TSTestSupport.accessUnits(Fixture.mainCABACBFrames.bytes())
        let (ts, _) = try TSTestSupport.mux(units)
        let source = try TSTestSupport.temporaryFile(ts, name: "source.ts")
        let expected = units.map { TSTestSupport.payload($0.nalUnits) }

        // FFmpeg -> us.
        let receiver = try TSUDPSocket(receivingOn: 0, address: "127.0.0.1")
        try FFmpeg.ffmpeg(["-v", "error", "-re", "-i", source, "-c", "copy", "-f", "mpegts",
                           "udp://127.0.0.1:\(receiver.localPort)?pkt_size=1316"], timeout: 20).checked("ffmpeg udp out")
        var parser = TSParser()
        var sizes: Set<Int> = []
        while let n = try receiver.receive(into: &parser, timeout: .milliseconds(300)) { sizes.insert(n) }
        parser.finish()
        var received: [[[UInt8]]] = []
        while let e = parser.next() { if case .accessUnit(let au) = e { received.append(TSTestSupport.payload(au.nalUnits)) } }
        #expect(sizes.contains(1316))
        #expect(received.map { $0.filter { $0.first.map { $0 & 0x1F != 6 } ?? true } }
                == expected.map { $0.filter { $0.first.map { $0 & 0x1F != 6 } ?? true } })

        // Us -> FFmpeg.
        let port = Ports.freeEvenPort()
        let out = try Support.temporaryDirectory() + "/out.ts"
        let ffmpeg = try Support.start("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error",
                                                  "-i", "udp://127.0.0.1:\(port)?pkt_size=1316&timeout=1000000",
                                                  "-c", "copy", "-f", "mpegts", out])
        Thread.sleep(forTimeInterval: 0.5)  // FFmpeg binds its port
        let sender = try TSUDPSocket(sendingTo: "127.0.0.1", port: port)
        var writer = try TSWriter()
        for au in units {
            try writer.write(au)
            try sender.send(packetsOf: &writer)
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(!Support.wait(ffmpeg, timeout: 10), "ffmpeg did not stop after its 1 s timeout")
        let probe = try FFmpeg.packets(out)
        #expect(probe.packets.count == units.count)
        #expect(probe.packets.filter(\.key).count == units.filter(\.flags.isSync).count)
    }

    /// Refused arguments and cancellation, by code.
    @Test func argumentsAndCancellation() throws {
        let zero = #expect(throws: TSError.self) { _ = try TSUDPSocket(sendingTo: "127.0.0.1", port: 0) }
        #expect(zero?.code == .invalidArgument)
        let group = #expect(throws: TSError.self) { _ = try TSUDPSocket(receivingOn: 0, multicastGroup: "not-a-group") }
        #expect(group?.code == .invalidArgument)
        let receiver = try TSUDPSocket(receivingOn: 0, address: "127.0.0.1")
        let canceller = Thread {
            Thread.sleep(forTimeInterval: 0.1)
            receiver.cancel()
        }
        canceller.start()
        var parser = TSParser()
        let cancelled = #expect(throws: TSError.self) { _ = try receiver.receive(into: &parser, timeout: .seconds(30)) }
        #expect(cancelled?.code == .cancelled)
        let sender = try TSUDPSocket(sendingTo: "127.0.0.1", port: 9)
        var writer = try TSWriter()
        let perDatagram = #expect(throws: TSError.self) { try sender.send(packetsOf: &writer, packetsPerDatagram: 0) }
        #expect(perDatagram?.code == .invalidArgument)
    }
}
