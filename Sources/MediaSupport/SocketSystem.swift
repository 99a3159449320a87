#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls every socket of the layer shares: creation with the right flags, options,
/// and the one `poll` loop with a deadline and an interrupt.
enum SocketSystem {
    /// A new non-blocking, close-on-exec socket that never raises `SIGPIPE`.
    static func makeSocket(family: Int32, transport: SocketAddress.Transport) throws(SocketError) -> Int32 {
        #if canImport(Darwin)
        let fd = socket(family, transport.socketType, 0)
        guard fd >= 0 else { throw SocketError(errno: errno, while: "socket") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #else
        let fd = socket(family, transport.socketType | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(errno: errno, while: "socket") }
        #endif
        return fd
    }

    /// `close(2)` (under a name no socket method shadows).
    static func closeDescriptor(_ fd: Int32) { _ = close(fd) }

    /// `connect(2)`.
    static func connectDescriptor(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        connect(fd, address, length)
    }

    /// `send(2)` with ``sendFlags``.
    static func sendBytes(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
        send(fd, bytes, count, flags)
    }

    /// `accept(2)` (``adopt(_:)`` then sets the new descriptor's flags).
    static func acceptDescriptor(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Int32 {
        accept(fd, address, &length)
    }

    /// `bind(2)` to `address`.
    static func bindDescriptor(_ fd: Int32, _ address: SocketAddress, _ what: @autoclosure () -> String) throws(SocketError) {
        let rc = address.withSocketAddress { bind(fd, $0, $1) }
        guard rc == 0 else { throw SocketError(errno: errno, while: what()) }
    }

    /// Makes an accepted descriptor non-blocking and close-on-exec (and, on Darwin, free of
    /// `SIGPIPE`), as ``makeSocket(family:transport:)`` makes its own.
    static func adopt(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        #if canImport(Darwin)
        setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
    }

    /// The flags of every `send`: no `SIGPIPE` where the flag exists (Darwin sets
    /// `SO_NOSIGPIPE` on the socket instead).
    static var sendFlags: Int32 {
        #if canImport(Darwin)
        0
        #else
        Int32(MSG_NOSIGNAL)
        #endif
    }

    /// Sets an integer socket option; false when the system refused it.
    @discardableResult
    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Bool {
        var v = value
        return setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    /// Sets a socket option whose value is a C struct or integer.
    static func setOption<T>(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: T,
                                              _ what: @autoclosure () -> String) throws(SocketError) {
        let rc = withUnsafeBytes(of: value) { setsockopt(fd, level, name, $0.baseAddress, socklen_t($0.count)) }
        guard rc == 0 else {
            throw SocketError(errno: errno, while: what())
        }
    }

    /// Waits until one of `fds` is ready for `events` (or has an error or end to report),
    /// `deadline` passes, or `interrupt` fires; the one poll loop of the layer.
    /// - Parameters:
    ///   - fds: one or two descriptors, in the order they are preferred when both are ready.
    ///   - events: `POLLIN` or `POLLOUT`.
    ///   - deadline: nil waits without a limit.
    ///   - what: the operation, for the error's reason.
    /// - Returns: the index in `fds` of a ready descriptor.
    /// - Throws: ``SocketError/Kind/timedOut``, ``SocketError/Kind/cancelled``, or the error of
    ///   `poll` itself.
    static func wait(_ fds: (Int32, Int32?), events: Int16, deadline: Deadline?, interrupt: Interrupt?,
                     _ what: @autoclosure () -> String) throws(SocketError) -> Int {
        while true {
            try interrupt?.check(what())
            let timeout = Deadline.pollTimeout(deadline)
            // Descriptors of -1 are ignored by poll: an absent second socket, an interrupt
            // without a pipe.
            var set = (pollfd(fd: fds.0, events: events, revents: 0),
                       pollfd(fd: fds.1 ?? -1, events: events, revents: 0),
                       pollfd(fd: interrupt?.readEnd ?? -1, events: Int16(POLLIN), revents: 0))
            let rc = withUnsafeMutablePointer(to: &set) {
                $0.withMemoryRebound(to: pollfd.self, capacity: 3) { poll($0, 3, timeout) }
            }
            if rc < 0 {
                let code = errno
                guard code == EINTR else { throw SocketError(errno: code, while: "poll (\(what()))") }
                continue
            }
            if set.2.revents != 0 { try interrupt?.check(what()) }
            if set.0.revents != 0 { return 0 }
            if set.1.revents != 0 { return 1 }
            if let deadline, deadline.hasPassed { throw SocketError.timedOut(what()) }
        }
    }
}
