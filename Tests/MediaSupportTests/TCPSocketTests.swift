import Testing
import MediaSupport

/// TCP connect and listen/accept on 127.0.0.1: deadlines that hold whether the peer is silent
/// or trickles bytes, and cancellation from another thread.
@Suite struct TCPSocketTests {
    /// A connected pair: the client's socket and the one the listener accepted.
    static func connectedPair(interrupt: Interrupt? = nil) throws -> (listener: TCPListener, client: TCPSocket, server: TCPSocket) {
        let listener = try TCPListener(address: "127.0.0.1", port: 0, interrupt: interrupt)
        let client = try TCPSocket.connect(to: "127.0.0.1", port: listener.localPort, deadline: .after(.seconds(5)))
        let server = try listener.accept(deadline: .after(.seconds(5)))
        return (listener, client, server)
    }

    @Test func listenOnPortZeroConnectAcceptRoundTrip() throws {
        let (listener, client, server) = try Self.connectedPair()
        #expect(listener.localPort > 0)
        #expect(server.remoteAddress.host == "127.0.0.1")
        #expect(client.remoteAddress.port == listener.localPort)
        let hello: [UInt8] = Array("hello, server".utf8)
        try client.send(hello, deadline: .after(.seconds(5)))
        #expect(try server.receive(exactly: hello.count, deadline: .after(.seconds(5))) == hello)
        let reply = [UInt8](repeating: 0xA5, count: 300_000)  // more than one receive's worth
        try server.send(reply, deadline: .after(.seconds(5)))
        #expect(try client.receive(exactly: reply.count, deadline: .after(.seconds(5))) == reply)
        // The peer's close is the end of the stream.
        client.close()
        #expect(throws: SocketError(.connectionClosed, "")) {
            _ = try server.receive(maximum: 16, deadline: .after(.seconds(5)))
        }
    }

    @Test func bytesAlreadyWaitingAreTakenWithAPassedDeadline() throws {
        let (_, client, server) = try Self.connectedPair()
        try client.send([1, 2, 3], deadline: .after(.seconds(5)))
        #expect(try server.receive(exactly: 3, deadline: .after(.seconds(5))) == [1, 2, 3])
        try client.send([4], deadline: .after(.seconds(5)))
        var readable = false
        for _ in 0..<1000 where !readable {
            readable = server.isReadable
            if !readable { pause(.milliseconds(1)) }
        }
        #expect(readable)
        #expect(try server.receive(maximum: 8, deadline: .now) == [4])
    }

    @Test func receiveTimesOutWhenThePeerIsSilent() throws {
        let (_, client, server) = try Self.connectedPair()
        #expect(throws: SocketError(.timedOut, "")) { _ = try server.receive(maximum: 64, deadline: .after(.milliseconds(100))) }
        #expect(throws: SocketError(.timedOut, "")) { _ = try server.receive(exactly: 1, deadline: .after(.milliseconds(100))) }
        withExtendedLifetime(client) {}
    }

    /// The peer sends a byte every 10 ms, 200 in all, then closes: a deadline checked only while
    /// the peer is silent would wait for every byte and end with the close instead.
    @Test func receiveExactlyTimesOutWhenThePeerTrickles() throws {
        let (_, client, server) = try Self.connectedPair()
        let trickle = try Spawned { () -> Int in
            var sent = 0
            for _ in 0..<200 {
                guard (try? client.send([0x42], deadline: .after(.seconds(1)))) != nil else { break }
                sent += 1
                pause(.milliseconds(10))
            }
            client.close()
            return sent
        }
        #expect(throws: SocketError(.timedOut, "")) {
            _ = try server.receive(exactly: 10_000, deadline: .after(.milliseconds(300)))
        }
        server.close()
        #expect(trickle.value() != nil)
    }

    @Test func sendTimesOutWhenThePeerDoesNotRead() throws {
        let (_, client, server) = try Self.connectedPair()
        let lots = [UInt8](repeating: 0, count: 64 << 20)  // beyond what the kernel buffers on loopback
        #expect(throws: SocketError(.timedOut, "")) { try client.send(lots, deadline: .after(.milliseconds(200))) }
        withExtendedLifetime(server) {}
    }

    @Test func connectToAClosedPortIsRefused() throws {
        let listener = try TCPListener(address: "127.0.0.1", port: 0)
        let port = listener.localPort
        listener.close()
        #expect(throws: SocketError(.connectionRefused, "")) {
            _ = try TCPSocket.connect(to: "127.0.0.1", port: port, deadline: .after(.seconds(5)))
        }
    }

    @Test func badArgumentsAreRefused() throws {
        #expect(throws: SocketError(.invalidArgument, "")) { _ = try TCPListener(address: "127.0.0.1", port: 70_000) }
        #expect(throws: SocketError(.invalidArgument, "")) { _ = try TCPListener(address: "localhost-by-name", port: 0) }
        let listener = try TCPListener(address: "127.0.0.1", port: 0)
        // The port is taken (SO_REUSEADDR does not let two sockets listen on it).
        #expect(throws: SocketError(.system, "")) { _ = try TCPListener(address: "127.0.0.1", port: listener.localPort) }
    }

    @Test func acceptTimesOutWithoutAClient() throws {
        let listener = try TCPListener(address: "127.0.0.1", port: 0)
        #expect(throws: SocketError(.timedOut, "")) { _ = try listener.accept(deadline: .after(.milliseconds(100))) }
    }

    // MARK: Cancellation from another thread

    @Test func interruptEndsABlockedAccept() throws {
        let interrupt = Interrupt()
        let listener = try TCPListener(address: "127.0.0.1", port: 0, interrupt: interrupt)
        let accepting = try Spawned { () -> SocketError? in
            do throws(SocketError) { _ = try listener.accept(deadline: nil) } catch { return error }
            return nil
        }
        pause(.milliseconds(50))
        #expect(!accepting.hasReturned)  // no deadline and no client: only the interrupt ends it
        interrupt.fire()
        #expect(accepting.value()??.kind == .cancelled)
        // Every later operation is cancelled at once.
        #expect(throws: SocketError(.cancelled, "")) { _ = try listener.accept(deadline: .after(.seconds(5))) }
    }

    @Test func interruptEndsABlockedReceive() throws {
        let interrupt = Interrupt()
        let (_, client, server) = try Self.connectedPair(interrupt: interrupt)  // accepted sockets watch the listener's interrupt
        let receiving = try Spawned { () -> SocketError? in
            do throws(SocketError) { _ = try server.receive(maximum: 64, deadline: .after(.seconds(600))) } catch { return error }
            return nil
        }
        pause(.milliseconds(50))
        #expect(!receiving.hasReturned)
        interrupt.fire()
        #expect(receiving.value()??.kind == .cancelled)
        withExtendedLifetime(client) {}
    }

    /// A listener with a backlog of 0 that never accepts: once its queue is full, the kernel
    /// drops further connection requests, so a connect waits (for its deadline, or the interrupt).
    @Test func interruptEndsABlockedConnect() throws {
        let listener = try TCPListener(address: "127.0.0.1", port: 0, backlog: 0)
        let port = listener.localPort
        var held: [TCPSocket] = []
        var blocked = false
        for _ in 0..<8 where !blocked {
            do throws(SocketError) {
                held.append(try TCPSocket.connect(to: "127.0.0.1", port: port, deadline: .after(.milliseconds(200))))
            } catch {
                #expect(error.kind == .timedOut)  // the deadline holds while the peer never answers
                blocked = true
            }
        }
        #expect(blocked)
        let interrupt = Interrupt()
        let connecting = try Spawned { () -> SocketError? in
            do throws(SocketError) { _ = try TCPSocket.connect(to: "127.0.0.1", port: port, deadline: .after(.seconds(600)), interrupt: interrupt) } catch {
                return error
            }
            return nil
        }
        pause(.milliseconds(50))
        #expect(!connecting.hasReturned)
        interrupt.fire()
        #expect(connecting.value()??.kind == .cancelled)
        withExtendedLifetime(held) {}
    }
}
