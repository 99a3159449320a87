import Glibc
import H264

/// A non-blocking TCP client socket with deadlines on every operation.
///
/// Used by one thread at a time. `SIGPIPE` is never raised (`MSG_NOSIGNAL`). Every wait also
/// watches the ``SocketInterrupt`` it was given: once fired, each operation throws
/// ``RTMPError/Code/cancelled`` at once instead of waiting for the peer or its deadline.
final class TCPSocket {
    private var fd: Int32
    private let interrupt: SocketInterrupt?

    /// Connects to `host:port`, trying each address the name resolves to.
    /// - Throws: ``RTMPError/Code/connectionRefused`` when the host answers that nothing
    ///   listens, ``RTMPError/Code/timedOut`` past `timeoutMilliseconds`,
    ///   ``RTMPError/Code/io`` when the name does not resolve or another socket error occurs.
    init(host: String, port: UInt16, timeoutMilliseconds: Int, interrupt: SocketInterrupt? = nil) throws(RTMPError) {
        self.interrupt = interrupt
        let deadline = Deadline(milliseconds: timeoutMilliseconds)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw RTMPError.invalid(.io, "cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = RTMPError.invalid(.io, "no address for '\(host)'")
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let ai = node {
            try interrupt?.check("connect to \(host):\(port)")
            node = ai.pointee.ai_next
            let s = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
            guard s >= 0 else { lastError = Self.errnoError("socket"); continue }
            _ = fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            _ = setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(s, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 {
                fd = s
                return
            }
            guard errno == EINPROGRESS else {
                lastError = Self.connectError(errno, host, port)
                Glibc.close(s)
                continue
            }
            do {
                try Self.wait(s, events: Int16(POLLOUT), deadline: deadline, interrupt: interrupt, what: "connect to \(host):\(port)")
            } catch {
                Glibc.close(s)
                throw error
            }
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len)
            if err == 0 {
                fd = s
                return
            }
            lastError = Self.connectError(err, host, port)
            Glibc.close(s)
        }
        throw lastError
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Closes the socket (idempotent).
    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Half-closes the connection and reads (and discards) what the peer still sends until it
    /// closes too or `deadline` passes, so that closing does not reset the connection while the
    /// peer's last replies are unread.
    func shutdownAndDrain(deadline: Deadline) {
        guard fd >= 0 else { return }
        _ = shutdown(fd, Int32(SHUT_WR))
        while deadline.remainingMilliseconds > 0 {
            do { _ = try receive(maximum: 4096, deadline: deadline) } catch { break }
        }
    }

    /// Sends all of `bytes` before `deadline`.
    /// - Throws: ``RTMPError/Code/timedOut``, ``RTMPError/Code/connectionClosed`` when the peer
    ///   has gone (`EPIPE`, `ECONNRESET`), ``RTMPError/Code/io`` otherwise.
    func send(_ bytes: [UInt8], deadline: Deadline) throws(RTMPError) {
        guard fd >= 0 else { throw RTMPError.invalid(.connectionClosed, "socket is closed") }
        var offset = 0
        while offset < bytes.count {
            try interrupt?.check("send")
            try deadline.check("send")
            let n = bytes.withUnsafeBytes { p in
                Glibc.send(fd, p.baseAddress! + offset, p.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                offset += n
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                try Self.wait(fd, events: Int16(POLLOUT), deadline: deadline, interrupt: interrupt, what: "send")
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                throw Self.transferError("send")
            }
        }
    }

    /// Receives at most `maximum` bytes, waiting until `deadline` for the first: bytes already
    /// waiting are returned at once (a deadline of 0 reads without waiting). A caller that loops
    /// on it checks its deadline each time round (``Deadline/check(_:)``), so a peer that keeps
    /// sending cannot hold it.
    /// - Returns: the bytes (never empty).
    /// - Throws: ``RTMPError/Code/connectionClosed`` when the peer closed,
    ///   ``RTMPError/Code/timedOut`` when nothing arrived in time.
    func receive(maximum: Int, deadline: Deadline) throws(RTMPError) -> [UInt8] {
        guard fd >= 0 else { throw RTMPError.invalid(.connectionClosed, "socket is closed") }
        try interrupt?.check("receive")
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let n = buffer.withUnsafeMutableBytes { p in recv(fd, p.baseAddress!, p.count, 0) }
            if n > 0 { return Array(buffer[..<n]) }
            if n == 0 { throw RTMPError.invalid(.connectionClosed, "the server closed the connection") }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                try Self.wait(fd, events: Int16(POLLIN), deadline: deadline, interrupt: interrupt, what: "receive")
            } else if errno != EINTR {
                throw Self.transferError("receive")
            }
        }
    }

    /// True when bytes (or an end of stream) are waiting to be received.
    func isReadable() -> Bool {
        guard fd >= 0 else { return false }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0
    }

    /// Waits for `events` on `fd` until `deadline`, or until `interrupt` fires.
    private static func wait(_ fd: Int32, events: Int16, deadline: Deadline, interrupt: SocketInterrupt?,
                             what: String) throws(RTMPError) {
        while true {
            try interrupt?.check(what)
            let ms = deadline.remainingMilliseconds
            guard ms > 0 else { throw RTMPError.invalid(.timedOut, "\(what) timed out") }
            var p = (pollfd(fd: fd, events: events, revents: 0),
                     pollfd(fd: interrupt?.readEnd ?? -1, events: Int16(POLLIN), revents: 0))  // fd -1 is ignored
            let r = withUnsafeMutableBytes(of: &p) { raw in
                poll(raw.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, Int32(clamping: ms))
            }
            if p.1.revents != 0 { try interrupt?.check(what) }
            if r > 0 && p.0.revents != 0 { return }
            if r < 0 && errno != EINTR { throw errnoError("poll") }
        }
    }

    private static func connectError(_ code: Int32, _ host: String, _ port: UInt16) -> RTMPError {
        if code == ECONNREFUSED {
            return RTMPError.invalid(.connectionRefused, "connection to \(host):\(port) refused")
        }
        if code == ETIMEDOUT {
            return RTMPError.invalid(.timedOut, "connect to \(host):\(port) timed out")
        }
        return RTMPError.invalid(.io, "connect to \(host):\(port): \(String(cString: strerror(code)))")
    }

    private static func transferError(_ what: String) -> RTMPError {
        let code = errno
        if code == EPIPE || code == ECONNRESET || code == ENOTCONN {
            return RTMPError.invalid(.connectionClosed, "\(what): the server closed the connection")
        }
        return RTMPError.invalid(.io, "\(what): \(String(cString: strerror(code)))")
    }

    private static func errnoError(_ what: String) -> RTMPError {
        RTMPError.invalid(.io, "\(what): \(String(cString: strerror(errno)))")
    }
}

/// A point in time on the monotonic clock, for operation timeouts.
struct Deadline: Sendable {
    let instant: ContinuousClock.Instant

    /// `milliseconds` from now (negative values are treated as 0).
    init(milliseconds: Int) {
        instant = ContinuousClock.now.advanced(by: .milliseconds(max(milliseconds, 0)))
    }

    /// Throws ``RTMPError/Code/timedOut`` once the deadline has passed.
    func check(_ what: @autoclosure () -> String) throws(RTMPError) {
        guard ContinuousClock.now < instant else { throw RTMPError.invalid(.timedOut, "\(what()) timed out") }
    }

    /// Milliseconds left, rounded up; 0 when past.
    var remainingMilliseconds: Int {
        let d = ContinuousClock.now.duration(to: instant)
        let (s, atto) = d.components
        guard s >= 0, d > .zero else { return 0 }
        return Int(clamping: s) &* 1000 &+ Int(atto / 1_000_000_000_000_000) &+ 1  // s bounded by the caller's Int ms
    }
}
