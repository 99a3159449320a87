import Testing
import MediaSupport

/// UDP on 127.0.0.1: round trips, the deadline of a silent port, two ports read together (an
/// RTP session's RTP and RTCP ports), cancellation, and multicast on the loopback interface.
@Suite struct DatagramSocketTests {
    static func receive(_ socket: DatagramSocket, deadline: Deadline = .after(.seconds(5))) throws(SocketError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: DatagramSocket.maximumDatagramSize)
        let n = try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try socket.receive(into: raw, deadline: deadline) }
        }.get()
        return Array(buffer[..<n])
    }

    static func send(_ bytes: [UInt8], on socket: DatagramSocket, to address: SocketAddress? = nil) throws(SocketError) {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(SocketError) in try socket.send(raw, to: address, deadline: .after(.seconds(5))) }
        }.get()
    }

    @Test func datagramsRoundTripOnAPortTheKernelChose() throws {
        let receiver = try DatagramSocket(bindingTo: "127.0.0.1", port: 0, receiveBufferSize: 1 << 20)
        #expect(receiver.localPort > 0)
        let sender = try DatagramSocket(sendingTo: "127.0.0.1", port: receiver.localPort)
        #expect(sender.destination?.host == "127.0.0.1")
        try Self.send([1, 2, 3], on: sender)
        try Self.send([], on: sender)  // an empty datagram is a datagram
        try Self.send([UInt8](repeating: 7, count: 60_000), on: sender)
        #expect(try Self.receive(receiver) == [1, 2, 3])
        #expect(try Self.receive(receiver) == [])
        #expect(try Self.receive(receiver).count == 60_000)
        // Sending needs a destination.
        #expect(throws: SocketError(.invalidArgument, "")) { try Self.send([1], on: receiver) }
        // ... or an explicit one.
        try Self.send([9], on: receiver, to: sender.localAddress)
        #expect(try Self.receive(sender) == [9])
    }

    @Test func receiveTimesOutOnASilentPort() throws {
        let receiver = try DatagramSocket(bindingTo: "127.0.0.1", port: 0)
        #expect(throws: SocketError(.timedOut, "")) { _ = try Self.receive(receiver, deadline: .after(.milliseconds(100))) }
        #expect(throws: SocketError(.timedOut, "")) { _ = try Self.receive(receiver, deadline: .now) }
    }

    @Test func bindingRefusesBadArgumentsAndATakenPort() throws {
        #expect(throws: SocketError(.invalidArgument, "")) { _ = try DatagramSocket(bindingTo: "127.0.0.1", port: -1) }
        #expect(throws: SocketError(.invalidArgument, "")) { _ = try DatagramSocket(bindingTo: "not-an-address", port: 0) }
        let taken = try DatagramSocket(bindingTo: "127.0.0.1", port: 0)
        #expect(throws: SocketError(.system, "")) { _ = try DatagramSocket(bindingTo: "127.0.0.1", port: taken.localPort) }
    }

    /// The RTP/RTCP pair of a session: whichever port has a datagram is read, the first
    /// preferred when both have one, and the caller learns which it was.
    @Test func twoPortsAreReadTogether() throws {
        let rtp = try DatagramSocket(bindingTo: "127.0.0.1", port: 0)
        let rtcp = try DatagramSocket(bindingTo: "127.0.0.1", port: 0)
        let toRTP = try DatagramSocket(sendingTo: "127.0.0.1", port: rtp.localPort)
        let toRTCP = try DatagramSocket(sendingTo: "127.0.0.1", port: rtcp.localPort)
        var buffer = [UInt8](repeating: 0, count: 2048)
        func take(_ first: DatagramSocket, _ second: DatagramSocket) throws -> (UInt8, Bool) {
            let (n, fromSecond) = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in
                    try DatagramSocket.receive(from: first, or: second, into: raw, deadline: .after(.seconds(5)))
                }
            }.get()
            #expect(n == 1)
            return (buffer[0], fromSecond)
        }
        try Self.send([200], on: toRTCP)
        #expect(try take(rtp, rtcp) == (200, true))
        try Self.send([1], on: toRTP)
        try Self.send([201], on: toRTCP)
        pause(.milliseconds(20))  // both datagrams are in by now on loopback; the order below holds either way
        let first = try take(rtcp, rtp)
        let second = try take(rtp, rtcp)
        #expect(Set([first.0, second.0]) == [1, 201])
        #expect(throws: SocketError(.timedOut, "")) {
            _ = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try DatagramSocket.receive(from: rtp, or: rtcp, into: raw, deadline: .now) }
            }.get()
        }
    }

    @Test func interruptEndsABlockedReceive() throws {
        let interrupt = Interrupt()
        let receiver = try DatagramSocket(bindingTo: "127.0.0.1", port: 0, interrupt: interrupt)
        let receiving = try Spawned { () -> SocketError? in
            do throws(SocketError) { _ = try Self.receive(receiver, deadline: .after(.seconds(600))) } catch { return error }
            return nil
        }
        pause(.milliseconds(50))
        #expect(!receiving.hasReturned)
        interrupt.fire()
        #expect(receiving.value()??.kind == .cancelled)
        #expect(interrupt.isFired)
    }

    // MARK: Multicast on the loopback interface

    /// An IPv4 group joined on 127.0.0.1, and a sender whose multicast goes out there and loops
    /// back; nil when the system has no multicast route on loopback.
    static func ipv4Loopback(group: String) throws -> (receiver: DatagramSocket, sender: DatagramSocket)? {
        let receiver = try DatagramSocket(bindingTo: "0.0.0.0", port: 0, reuseAddress: true)
        do throws(SocketError) {
            try receiver.joinMulticastGroup(group, interface: "127.0.0.1")
        } catch {
            return nil
        }
        let sender = try DatagramSocket(sendingTo: group, port: receiver.localPort)
        try sender.setMulticastSending(interface: "127.0.0.1", loopback: true, hops: 1)
        return (receiver, sender)
    }

    static let ipv4LoopbackMulticastWorks: Bool = {
        guard let pair = try? ipv4Loopback(group: "239.255.77.1") else { return false }
        guard (try? send([0x55], on: pair.sender)) != nil else { return false }
        return (try? receive(pair.receiver, deadline: .after(.milliseconds(500)))) == [0x55]
    }()

    @Test(.enabled(if: ipv4LoopbackMulticastWorks, "IPv4 multicast cannot be sent and received on the loopback interface here"))
    func ipv4GroupJoinedOnLoopbackReceives() throws {
        let pair = try #require(try Self.ipv4Loopback(group: "239.255.77.2"))
        // Joined by interface name too (the index form, ip_mreqn on Linux).
        let byName = try DatagramSocket(bindingTo: "0.0.0.0", port: pair.receiver.localPort, reuseAddress: true)
        try byName.joinMulticastGroup("239.255.77.2", interface: "lo")
        try Self.send(Array("to the group".utf8), on: pair.sender)
        #expect(try Self.receive(pair.receiver) == Array("to the group".utf8))
        #expect(try Self.receive(byName) == Array("to the group".utf8))
    }

    @Test func multicastArgumentsAreChecked() throws {
        let v4 = try DatagramSocket(bindingTo: "0.0.0.0", port: 0)
        #expect(throws: SocketError(.invalidArgument, "")) { try v4.joinMulticastGroup("not-a-group") }
        #expect(throws: SocketError(.invalidArgument, "")) { try v4.joinMulticastGroup("ff15::1") }  // another family
        #expect(throws: SocketError(.invalidArgument, "")) { try v4.joinMulticastGroup("239.255.77.3", interface: "no-such-interface0") }
        #expect(throws: SocketError(.invalidArgument, "")) { try v4.setMulticastSending(hops: 256) }
        // A unicast address is not a group: the system refuses.
        #expect(throws: SocketError(.system, "")) { try v4.joinMulticastGroup("127.0.0.1", interface: "127.0.0.1") }
    }

    static let ipv6LoopbackMulticastWorks: Bool = {
        guard let receiver = try? DatagramSocket(bindingTo: "::", port: 0, reuseAddress: true),
              (try? receiver.joinMulticastGroup("ff11::4242", interface: "lo")) != nil,
              let sender = try? DatagramSocket(sendingTo: "ff11::4242", port: receiver.localPort),
              (try? sender.setMulticastSending(interface: "lo", loopback: true, hops: 1)) != nil,
              (try? send([0x66], on: sender)) != nil else { return false }
        return (try? receive(receiver, deadline: .after(.milliseconds(500)))) == [0x66]
    }()

    @Test(.enabled(if: ipv6LoopbackMulticastWorks, "IPv6 multicast cannot be sent and received on the loopback interface here"))
    func ipv6GroupJoinedOnLoopbackReceives() throws {
        let receiver = try DatagramSocket(bindingTo: "::", port: 0, reuseAddress: true)
        try receiver.joinMulticastGroup("ff11::4243", interface: "lo")
        let sender = try DatagramSocket(sendingTo: "ff11::4243", port: receiver.localPort)
        try sender.setMulticastSending(interface: "lo", loopback: true, hops: 1)
        try Self.send([1, 2, 3, 4], on: sender)
        #expect(try Self.receive(receiver) == [1, 2, 3, 4])
    }
}
