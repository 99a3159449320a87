import Foundation
import H264
import MPEGTS
import SRT
import TestSupport
import Testing

/// Peers that misbehave, limits, the hook, deadlines and cancellation: on the loopback, our
/// caller against our listener.
@Suite struct SRTHostileTests {
    /// A caller and the connection the listener accepted from it.
    static func pair(_ options: SRTOptions = SRTOptions(latency: .milliseconds(20)),
                     listener: SRTListener.Options? = nil) throws -> (listener: SRTListener, caller: SRTSocket, accepted: SRTSocket) {
        let l = try SRTListener(address: "127.0.0.1", port: 0, options: listener ?? .init(connection: options))
        let caller = try SRTSocket.connect(to: "127.0.0.1", port: l.localPort, options: options)
        let accepted = try l.accept(timeout: .seconds(5))
        return (l, caller, accepted)
    }

    /// A peer that connects and sends nothing holds no receive past its deadline.
    @Test func silentPeerEndsAtTheDeadline() throws {
        let (_, caller, accepted) = try Self.pair()
        #expect(try accepted.receive(timeout: .milliseconds(200)) == nil)
        var parser = TSParser()
        #expect(try accepted.receive(into: &parser, timeout: .milliseconds(100)) == nil)
        #expect(parser.next() == nil)
        caller.close()
    }

    /// A listener nobody calls: accept ends at its deadline; a caller whose listener does not
    /// exist ends at its.
    @Test func acceptAndConnectEndAtTheirDeadlines() throws {
        let listener = try SRTListener(address: "127.0.0.1", port: 0)
        let accept = #expect(throws: SRTError.self) { _ = try listener.accept(timeout: .milliseconds(100)) }
        #expect(accept?.code == .timedOut)
        let port = SRTTestSupport.freePort()
        let connect = #expect(throws: SRTError.self) {
            _ = try SRTSocket.connect(to: "127.0.0.1", port: port, timeout: .milliseconds(300))
        }
        #expect(connect?.code == .timedOut)
    }

    /// `cancel()` from another thread ends a receive and an accept that would wait 30 s.
    @Test func cancelFromAnotherThread() throws {
        let (listener, caller, accepted) = try Self.pair()
        let canceller = Thread {
            Thread.sleep(forTimeInterval: 0.1)
            accepted.cancel()
            listener.cancel()
        }
        canceller.start()
        let receive = #expect(throws: SRTError.self) { _ = try accepted.receive(timeout: .seconds(30)) }
        #expect(receive?.code == .cancelled)
        let accept = #expect(throws: SRTError.self) { _ = try listener.accept(timeout: .seconds(30)) }
        #expect(accept?.code == .cancelled)
        // The caller's side is not cancelled: its connection still sends.
        try caller.send([0x47] + [UInt8](repeating: 0, count: 187))
    }

    /// Garbage instead of TS: the parser reports lost sync and finds no access unit; nothing
    /// traps.
    @Test func garbageInsteadOfTransportStream() throws {
        let (_, caller, accepted) = try Self.pair()
        var generator = SplitMix64(seed: 31)
        for _ in 0..<50 {
            try caller.send((0..<1316).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        }
        try caller.finish()
        var parser = TSParser()
        var events: [TSEvent] = []
        var total = 0
        while let n = try? accepted.receive(into: &parser, timeout: .seconds(2)) {
            total += n
            while let e = parser.next() { events.append(e) }
        }
        parser.finish()
        while let e = parser.next() { events.append(e) }
        #expect(total == 50 * 1316)
        #expect(!events.contains { if case .accessUnit = $0 { true } else { false } })
        #expect(parser.statistics.skippedBytes > 0)
    }

    /// The listener's limit: two connections open, the third caller is refused with 1402
    /// (overload); once one closes, a new caller is let in.
    @Test func callerLimit() throws {
        let listener = try SRTListener(address: "127.0.0.1", port: 0,
                                       options: .init(connection: SRTOptions(latency: .milliseconds(20)), maximumConnections: 2))
        let first = try SRTSocket.connect(to: "127.0.0.1", port: listener.localPort)
        let second = try SRTSocket.connect(to: "127.0.0.1", port: listener.localPort)
        let a = try listener.accept(timeout: .seconds(5))
        let b = try listener.accept(timeout: .seconds(5))
        #expect(listener.openConnections == 2)
        let third = #expect(throws: SRTError.self) { _ = try SRTSocket.connect(to: "127.0.0.1", port: listener.localPort) }
        #expect(third?.code == .connectionRejected)
        #expect(third?.reason.contains("1402") == true, "\(String(describing: third))")
        #expect(listener.statistics.refusedAtLimit == 1)
        a.close()
        #expect(listener.openConnections == 1)
        let fourth = try SRTSocket.connect(to: "127.0.0.1", port: listener.localPort)
        let c = try listener.accept(timeout: .seconds(5))
        #expect(listener.statistics.accepted == 3)
        _ = (first, second, b, c, fourth)
    }

    /// The hook decides by stream id: a caller it refuses is told 1403 (forbidden) and never
    /// reaches accept; the one it allows arrives with its stream id.
    @Test func hookDecidesByStreamID() throws {
        let listener = try SRTListener(address: "127.0.0.1", port: 0, options: .init(accept: { request in
            request.streamID == "#!::r=live/cam1,m=publish" && request.remoteHost == "127.0.0.1" ? .accept : .reject
        }))
        let refused = #expect(throws: SRTError.self) {
            _ = try SRTSocket.connect(to: "127.0.0.1", port: listener.localPort, options: SRTOptions(streamID: "live/other"))
        }
        #expect(refused?.code == .connectionRejected)
        #expect(refused?.reason.contains("1403") == true, "\(String(describing: refused))")
        #expect(listener.statistics.refused == 1)
        let allowed = try SRTSocket.connect(to: "127.0.0.1", port: listener.localPort,
                                            options: SRTOptions(streamID: "#!::r=live/cam1,m=publish"))
        let accepted = try listener.accept(timeout: .seconds(5))
        #expect(accepted.streamID == "#!::r=live/cam1,m=publish")
        #expect(listener.statistics.accepted == 1)
        allowed.close()
    }

    /// Values libsrt would refuse are refused first, by code.
    @Test func invalidArguments() throws {
        let short = #expect(throws: SRTError.self) {
            _ = try SRTListener(address: "127.0.0.1", port: 0, options: .init(connection: SRTOptions(passphrase: "short")))
        }
        #expect(short?.code == .invalidArgument)
        let key = #expect(throws: SRTError.self) {
            _ = try SRTListener(address: "127.0.0.1", port: 0, options: .init(connection: SRTOptions(keyLength: 20)))
        }
        #expect(key?.code == .invalidArgument)
        let (_, caller, _) = try Self.pair()
        let long = #expect(throws: SRTError.self) { try caller.send([UInt8](repeating: 0x47, count: 1317)) }
        #expect(long?.code == .invalidArgument)
        let name = #expect(throws: SRTError.self) { _ = try SRTListener(address: "localhost", port: 0) }
        #expect(name?.code == .invalidArgument)
    }
}
