#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected TCP socket (made by ``connect(to:port:deadline:interrupt:)`` or accepted by a
/// ``TCPListener``), non-blocking underneath, with a ``Deadline`` on every operation and an
/// optional ``Interrupt`` that cancels any of them from another thread.
///
/// Used by one thread at a time (`Sendable` so that it can be handed to another: a connection
/// made by one thread and used by a sender thread). `SIGPIPE` is never raised. The descriptor is closed by
/// ``close()`` or when the socket is released.
///
/// Memory: the socket; a receive allocates what it returns (at most its `maximum`).
package final class TCPSocket: @unchecked Sendable {
    private var fd: Int32
    /// Fired from another thread, it ends the operation in progress and every later one with
    /// ``SocketError/Kind/cancelled``.
    package let interrupt: Interrupt?
    /// The peer's address.
    package let remoteAddress: SocketAddress

    /// Takes over a connected, non-blocking descriptor.
    init(fd: Int32, remoteAddress: SocketAddress, interrupt: Interrupt?) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.interrupt = interrupt
    }

    deinit { if fd >= 0 { SocketSystem.closeDescriptor(fd) } }

    /// Connects to `host:port`, trying each address the name resolves to in turn, all within
    /// one deadline. `TCP_NODELAY` is set: a message goes out when it is written.
    /// - Parameters:
    ///   - host: a name or a numeric address (a name lookup cannot be interrupted, see
    ///     ``Interrupt``).
    ///   - port: 0...65535.
    ///   - deadline: for the whole connection (every address tried).
    ///   - interrupt: watched by this and every later operation of the socket.
    /// - Throws: ``SocketError/Kind/connectionRefused`` when the host answers that nothing
    ///   listens, ``SocketError/Kind/timedOut``, ``SocketError/Kind/cancelled``,
    ///   ``SocketError/Kind/invalidArgument`` for a port out of range,
    ///   ``SocketError/Kind/system`` when the name does not resolve or another call fails.
    package static func connect(to host: String, port: Int, deadline: Deadline,
                                interrupt: Interrupt? = nil) throws(SocketError) -> TCPSocket {
        let what = "connect to \(host):\(port)"
        var lastError = SocketError(.system, "no address for '\(host)'")
        for address in try SocketAddress.resolve(host, port: port, transport: .tcp) {
            try interrupt?.check(what)
            let s: Int32
            do throws(SocketError) {
                s = try SocketSystem.makeSocket(family: address.family, transport: .tcp)
            } catch {
                lastError = error
                continue
            }
            SocketSystem.setOption(s, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            let rc = address.withSocketAddress { SocketSystem.connectDescriptor(s, $0, $1) }
            if rc == 0 { return TCPSocket(fd: s, remoteAddress: address, interrupt: interrupt) }
            guard errno == EINPROGRESS else {
                lastError = SocketError(errno: errno, while: what)
                SocketSystem.closeDescriptor(s)
                continue
            }
            do throws(SocketError) {
                _ = try SocketSystem.wait((s, nil), events: Int16(POLLOUT), deadline: deadline, interrupt: interrupt, what)
            } catch {
                SocketSystem.closeDescriptor(s)
                throw error
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(s, SOL_SOCKET, SO_ERROR, &code, &length)
            if code == 0 { return TCPSocket(fd: s, remoteAddress: address, interrupt: interrupt) }
            lastError = SocketError(errno: code, while: what)
            SocketSystem.closeDescriptor(s)
        }
        throw lastError
    }

    /// True until ``close()``.
    package var isOpen: Bool { fd >= 0 }

    /// Closes the socket (idempotent).
    package func close() {
        if fd >= 0 { SocketSystem.closeDescriptor(fd) }
        fd = -1
    }

    /// Sends all of `bytes` before `deadline`, however slowly the peer reads.
    /// - Throws: ``SocketError/Kind/timedOut``, ``SocketError/Kind/cancelled``,
    ///   ``SocketError/Kind/connectionClosed`` when the peer has gone (or the socket is closed),
    ///   ``SocketError/Kind/system`` otherwise.
    package func send(_ bytes: UnsafeRawBufferPointer, deadline: Deadline) throws(SocketError) {
        guard fd >= 0 else { throw SocketError(.connectionClosed, "send: the socket is closed") }
        var offset = 0
        while offset < bytes.count {
            try interrupt?.check("send")
            guard !deadline.hasPassed else { throw SocketError.timedOut("send") }
            let n = SocketSystem.sendBytes(fd, bytes.baseAddress! + offset, bytes.count &- offset, SocketSystem.sendFlags)
            if n > 0 {
                offset &+= n  // n <= bytes.count - offset
                continue
            }
            let code = errno
            if n < 0 && (code == EAGAIN || code == EWOULDBLOCK) {
                _ = try SocketSystem.wait((fd, nil), events: Int16(POLLOUT), deadline: deadline, interrupt: interrupt, "send")
            } else if !(n < 0 && code == EINTR) {
                throw SocketError(errno: n == 0 ? EPIPE : code, while: "send")
            }
        }
    }

    /// Sends all of `bytes` before `deadline` (see ``send(_:deadline:)-(UnsafeRawBufferPointer,_)``).
    package func send(_ bytes: [UInt8], deadline: Deadline) throws(SocketError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(SocketError) in try send(raw, deadline: deadline) } }.get()
    }

    /// Receives into `buffer` what has arrived, waiting until `deadline` for the first byte:
    /// bytes already waiting are taken at once, even past the deadline (``Deadline/now`` reads
    /// without waiting). A caller that loops on it keeps one deadline for the whole loop (as
    /// ``receive(exactly:deadline:)`` does), so a peer that trickles bytes cannot hold it.
    /// - Returns: the number of bytes (at least 1 for a non-empty buffer).
    /// - Throws: ``SocketError/Kind/connectionClosed`` when the peer closed (end of stream),
    ///   ``SocketError/Kind/timedOut`` when nothing arrived in time, ``SocketError/Kind/cancelled``.
    package func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: Deadline) throws(SocketError) -> Int {
        guard fd >= 0 else { throw SocketError(.connectionClosed, "receive: the socket is closed") }
        guard buffer.count > 0 else { return 0 }
        try interrupt?.check("receive")
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 { return n }
            if n == 0 { throw SocketError(.connectionClosed, "receive: the peer closed the connection") }
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK {
                _ = try SocketSystem.wait((fd, nil), events: Int16(POLLIN), deadline: deadline, interrupt: interrupt, "receive")
            } else if code != EINTR {
                throw SocketError(errno: code, while: "receive")
            }
        }
    }

    /// Receives at most `maximum` bytes as ``receive(into:deadline:)`` does.
    /// - Returns: the bytes (never empty).
    package func receive(maximum: Int, deadline: Deadline) throws(SocketError) -> [UInt8] {
        var failure: SocketError?
        let bytes = [UInt8](unsafeUninitializedCapacity: max(maximum, 1)) { buffer, count in
            do throws(SocketError) {
                count = try receive(into: UnsafeMutableRawBufferPointer(buffer), deadline: deadline)
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Receives exactly `count` bytes before `deadline`, checked each time bytes arrive: a
    /// peer that sends one byte at a time gets ``SocketError/Kind/timedOut`` when the time is
    /// up, as a silent one does.
    /// - Throws: as ``receive(into:deadline:)``; ``SocketError/Kind/connectionClosed`` when the
    ///   peer closes before `count` bytes.
    package func receive(exactly count: Int, deadline: Deadline) throws(SocketError) -> [UInt8] {
        var failure: SocketError?
        let bytes = [UInt8](unsafeUninitializedCapacity: max(count, 0)) { buffer, filled in
            filled = 0
            while filled < count {
                do throws(SocketError) {
                    if filled > 0 && deadline.hasPassed { throw SocketError.timedOut("receive") }
                    // filled < count == buffer.count: the slice is not empty.
                    filled &+= try receive(into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[filled...])), deadline: deadline)
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Shuts the connection down in both directions, keeping the descriptor: a wait in progress
    /// on another thread wakes (a receive ends with ``SocketError/Kind/connectionClosed``, a send
    /// fails), and the peer sees the end. Meant to be called from another thread than the one
    /// that uses the socket, which still closes it (the caller makes sure it is not closed
    /// meanwhile: a server's connection does both under one lock).
    package func shutdownBothDirections() {
        if fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// True when bytes (or the end of the stream) wait to be received.
    package var isReadable: Bool {
        guard fd >= 0 else { return false }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0
    }

    /// Half-closes the connection and reads (and discards) what the peer still sends until it
    /// closes too or `deadline` passes, so that closing does not reset the connection while the
    /// peer's last replies are unread.
    package func shutdownAndDrain(deadline: Deadline) {
        guard fd >= 0 else { return }
        _ = shutdown(fd, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 4096)
        while !deadline.hasPassed {
            let received = scratch.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try receive(into: raw, deadline: deadline) }
            }
            guard case .success = received else { break }
        }
    }
}
