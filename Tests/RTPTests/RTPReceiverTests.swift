import Glibc
import H264
import RTP
import Testing

func pause(_ d: Duration) {
    let (s, atto) = d.components
    usleep(UInt32(s * 1_000_000 + atto / 1_000_000_000_000))
}

/// Datagrams handed out with a delay each, then silence: a source without a socket.
struct ScriptedSource: RTPDatagramSource {
    var datagrams: [[UInt8]]
    var gap: Duration = .zero
    var waited: Duration = .zero

    mutating func receive(into buffer: inout [UInt8], timeout: Duration) throws(RTPError) -> Int? {
        guard !datagrams.isEmpty, gap <= timeout else {
            // Nothing (more) to give: the whole timeout passes.
            let t = max(timeout, .zero)
            waited += t
            pause(t)
            return nil
        }
        if gap > .zero { pause(gap) }
        let d = datagrams.removeFirst()
        buffer = d
        return d.count
    }
}

@Suite struct RTPReceiverTests {
    static let sps: [UInt8] = RTPPacketizerTests.sps, pps: [UInt8] = RTPPacketizerTests.pps

    static func packets(_ aus: [[[UInt8]]], mtu: Int = 1200) throws -> [[UInt8]] {
        try RTPPacketizationModeTests.packetize(aus, .init(mtu: mtu, ssrc: 3))
    }

    /// The SDP's parameter sets go before an IDR access unit that lacks them; not before one
    /// that carries them, nor before other pictures.
    @Test func spropParameterSetsBeforeTheFirstIDR() throws {
        let idr = RTPPacketizerTests.idr(80), p: [UInt8] = [0x41, 0x9A, 0x02]
        var receiver = try RTPReceiver(.init(parameterSets: [try NALUnit(Self.sps), try NALUnit(Self.pps)]))
        var aus: [[[UInt8]]] = []
        for packet in try Self.packets([[idr], [p], [Self.sps, Self.pps, idr]]) {
            receiver.receive(packet[...]) { aus.append($0.nalUnits.map { Array($0.bytes) }) }
        }
        receiver.finish { aus.append($0.nalUnits.map { Array($0.bytes) }) }
        #expect(aus == [[Self.sps, Self.pps, idr], [p], [Self.sps, Self.pps, idr]])
        #expect(receiver.report.accessUnitsDelivered == 3)
    }

    /// Bad datagrams are counted and kept, never thrown; the stream goes on.
    @Test func malformedDatagramsAreCounted() throws {
        var receiver = try RTPReceiver(.init())
        var count = 0
        for packet in [[0x80, 0x60]] + (try Self.packets([[[0x41, 1]], [[0x41, 2]]])) {
            receiver.receive(packet[...]) { _ in count += 1 }
        }
        receiver.finish { _ in count += 1 }
        #expect(count == 2 && receiver.errorCount == 1 && receiver.errors.first?.code == .truncated)
        #expect(receiver.report.packetsRejected == 1)
    }

    /// The loop stops when the source falls silent for the idle timeout, delivering everything.
    @Test(.timeLimit(.minutes(5)))
    func runStopsWhenIdle() throws {
        var source = ScriptedSource(datagrams: try Self.packets((0..<5).map { [[0x41, UInt8($0)]] }))
        var receiver = try RTPReceiver(.init(idleTimeout: .milliseconds(300)))
        var delivered = 0
        let stop = try receiver.run(from: &source) { _ in delivered += 1 }
        #expect(stop == .idle && delivered == 5)
        #expect(source.waited >= .milliseconds(250) && source.waited < .seconds(5))  // 300 ms less the time spent elsewhere
    }

    /// A duration ends the loop even while datagrams keep coming.
    @Test(.timeLimit(.minutes(5)))
    func runStopsAtTheDuration() throws {
        let many = try Self.packets((0..<200).map { [[0x41, UInt8(truncatingIfNeeded: $0)]] })
        var source = ScriptedSource(datagrams: many, gap: .milliseconds(10))
        var receiver = try RTPReceiver(.init(duration: .milliseconds(300), idleTimeout: .seconds(10)))
        var delivered = 0
        let clock = ContinuousClock()
        let began = clock.now
        let stop = try receiver.run(from: &source) { _ in delivered += 1 }
        #expect(stop == .duration)
        #expect(clock.now - began < .seconds(3))
        #expect(delivered > 0 && delivered < 200 && source.datagrams.count > 0)
    }

    /// No datagram at all: the first-packet timeout holds; `until` stops the loop at once.
    @Test(.timeLimit(.minutes(5)))
    func runWithoutDatagrams() throws {
        var silent = ScriptedSource(datagrams: [])
        var receiver = try RTPReceiver(.init(idleTimeout: .seconds(60), firstPacketTimeout: .milliseconds(200)))
        #expect(try receiver.run(from: &silent) { _ in } == .idle)
        #expect(silent.waited >= .milliseconds(150) && silent.waited < .seconds(2))
        var other = ScriptedSource(datagrams: [])
        var stopped = try RTPReceiver(.init(idleTimeout: .seconds(60)))
        #expect(try stopped.run(from: &other, until: { true }) { _ in } == .requested)
    }

    struct WriteFailed: Error {}

    /// An error of `deliver` ends the loop and comes out.
    @Test func deliverErrorEndsTheLoop() throws {
        var source = ScriptedSource(datagrams: try Self.packets([[[0x41, 1]], [[0x41, 2]]]))
        var receiver = try RTPReceiver(.init(idleTimeout: .seconds(10)))
        #expect(throws: WriteFailed.self) { try receiver.run(from: &source) { _ in throw WriteFailed() } }
    }

    /// UDPSocket over loopback: what is sent arrives; a receive with nothing to read returns
    /// nil at its timeout.
    @Test(.timeLimit(.minutes(5)))
    func udpSocketLoopback() throws {
        let rx = try UDPSocket(receivingOn: 0, address: "127.0.0.1")
        #expect(rx.localPort > 0)
        let tx = try UDPSocket(sendingTo: "127.0.0.1", port: rx.localPort)
        #expect(tx.remoteHost == "127.0.0.1")
        let payload: [UInt8] = [1, 2, 3, 4, 5]
        try payload.withUnsafeBytes { try tx.send($0) }
        var buffer: [UInt8] = []
        let n = try rx.receive(into: &buffer, timeout: .seconds(5))
        #expect(n == 5 && Array(buffer[..<5]) == payload)
        let clock = ContinuousClock()
        let began = clock.now
        #expect(try rx.receive(into: &buffer, timeout: .milliseconds(100)) == nil)
        #expect(clock.now - began >= .milliseconds(100))
        #expect(throws: RTPError(.invalidArgument, "")) { try UDPSocket(receivingOn: 70_000) }
        #expect(throws: RTPError(.invalidArgument, "")) { try UDPSocket(receivingOn: 0, address: "not-an-address") }
        #expect(throws: RTPError(.io, "")) { try UDPSocket(receivingOn: rx.localPort, address: "127.0.0.1") }
        #expect(throws: RTPError(.invalidArgument, "")) { try payload.withUnsafeBytes { try rx.send($0) } }
    }
}
