#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket bound to a local address and port: the server side of the socket
/// layer (an RTMP server's). ``accept(deadline:)`` waits for the next connection with a
/// ``Deadline``, and the listener's ``Interrupt`` ends that wait from any thread.
///
/// ```swift
/// let listener = try TCPListener(address: "127.0.0.1", port: 0)   // the kernel picks the port
/// let client = try TCPSocket.connect(to: "127.0.0.1", port: listener.localPort, deadline: .after(.seconds(1)))
/// let server = try listener.accept(deadline: .after(.seconds(1)))
/// ```
///
/// Used by one thread at a time (one thread accepts; `Sendable` to be handed to it). Memory: the socket and the kernel's
/// backlog of connections not yet accepted (`backlog`).
package final class TCPListener: @unchecked Sendable {
    private var fd: Int32
    /// Fired from another thread, it ends a waiting ``accept(deadline:)`` and every later one
    /// with ``SocketError/Kind/cancelled``; accepted sockets watch it too.
    package let interrupt: Interrupt?
    /// The address the socket is bound to, with the port the kernel chose for port 0.
    package let localAddress: SocketAddress

    /// The local port (the one the kernel chose when bound to port 0).
    package var localPort: Int { localAddress.port }

    /// Binds a socket to `address:port` and listens.
    /// - Parameters:
    ///   - address: a numeric local address: `127.0.0.1`, `0.0.0.0` (every IPv4 interface),
    ///     `::1`, `::`.
    ///   - port: 0...65535; 0 lets the kernel choose (see ``localPort``).
    ///   - backlog: connections the kernel holds until accepted.
    ///   - interrupt: watched by ``accept(deadline:)`` and by the sockets it returns.
    /// - Throws: ``SocketError/Kind/invalidArgument`` for a port out of range or an address
    ///   that is not numeric; ``SocketError/Kind/system`` when the port is in use or another
    ///   call fails.
    package init(address: String = "127.0.0.1", port: Int = 0, backlog: Int32 = 16,
                 interrupt: Interrupt? = nil) throws(SocketError) {
        let local = try SocketAddress.resolve(address, port: port, transport: .tcp, numericOnly: true, passive: true)[0]
        let s = try SocketSystem.makeSocket(family: local.family, transport: .tcp)
        // A server restarted at once can take its port back from connections in TIME_WAIT.
        SocketSystem.setOption(s, SOL_SOCKET, SO_REUSEADDR, 1)
        do throws(SocketError) {
            try SocketSystem.bindDescriptor(s, local, "bind \(address):\(port)")
            guard listen(s, backlog) == 0 else { throw SocketError(errno: errno, while: "listen on \(address):\(port)") }
            localAddress = try SocketAddress(localOf: s)
        } catch {
            SocketSystem.closeDescriptor(s)
            throw error
        }
        fd = s
        self.interrupt = interrupt
    }

    deinit { if fd >= 0 { SocketSystem.closeDescriptor(fd) } }

    /// Stops listening (idempotent): connections not yet accepted are refused.
    package func close() {
        if fd >= 0 { SocketSystem.closeDescriptor(fd) }
        fd = -1
    }

    /// Waits for the next connection until `deadline` (nil: without a limit).
    /// - Returns: the connected socket, watching the listener's interrupt.
    /// - Throws: ``SocketError/Kind/timedOut``, ``SocketError/Kind/cancelled``,
    ///   ``SocketError/Kind/connectionClosed`` after ``close()``, ``SocketError/Kind/system``
    ///   when the system refuses (out of descriptors).
    package func accept(deadline: Deadline?) throws(SocketError) -> TCPSocket {
        while true {
            guard fd >= 0 else { throw SocketError(.connectionClosed, "accept: the listener is closed") }
            try interrupt?.check("accept")
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketSystem.acceptDescriptor(fd, $0, &length) }
            }
            if client >= 0 {
                SocketSystem.adopt(client)
                SocketSystem.setOption(client, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
                let address = withUnsafePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0, length: length) }
                }
                return TCPSocket(fd: client, remoteAddress: address, interrupt: interrupt)
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK:
                _ = try SocketSystem.wait((fd, nil), events: Int16(POLLIN), deadline: deadline, interrupt: interrupt, "accept")
            case EINTR, ECONNABORTED:
                continue  // a connection reset before it was accepted: wait for the next
            case let code:
                throw SocketError(errno: code, while: "accept")
            }
        }
    }
}
