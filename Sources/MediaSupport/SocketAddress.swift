#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 socket address (a `sockaddr_storage` and its length): what a name resolves
/// to, what a socket is bound to, where a datagram goes.
package struct SocketAddress: @unchecked Sendable {
    // @unchecked: a plain C struct of integers, copied by value.
    private var storage = sockaddr_storage()
    /// The length of the address in ``storage``.
    package let length: socklen_t

    /// The protocol family: `AF_INET` or `AF_INET6`.
    package var family: Int32 { Int32(storage.ss_family) }

    /// True for an IPv6 address.
    package var isIPv6: Bool { family == AF_INET6 }

    /// Copies `length` bytes of the address at `address`.
    package init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        // getaddrinfo, getsockname and accept give at most sizeof(sockaddr_storage) bytes.
        let count = min(Int(length), MemoryLayout<sockaddr_storage>.size)
        self.length = socklen_t(count)
        withUnsafeMutableBytes(of: &storage) { destination in
            destination.copyMemory(from: UnsafeRawBufferPointer(start: address, count: count))
        }
    }

    /// The address a socket is bound to (`getsockname`).
    package init(localOf fd: Int32) throws(SocketError) {
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { throw SocketError(errno: errno, while: "getsockname") }
        self = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0, length: length) }
        }
    }

    /// The port, in host order.
    package var port: Int {
        withSocketAddress { address, _ in
            if address.pointee.sa_family == sa_family_t(AF_INET6) {
                return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// The host in numeric form (`127.0.0.1`, `::1`), as an SDP `c=` line or a log wants it.
    package var host: String {
        var name = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let rc = withSocketAddress { address, length in
            getnameinfo(address, length, &name, socklen_t(name.count), nil, 0, NI_NUMERICHOST)
        }
        guard rc == 0 else { return "" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Calls `body` with the address as the system calls take it.
    package func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: storage) { raw in
            try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    /// The kind of socket an address is resolved for.
    package enum Transport: Sendable {
        case tcp, udp
        var socketType: Int32 {
            #if canImport(Darwin)
            self == .tcp ? SOCK_STREAM : SOCK_DGRAM
            #else
            Int32((self == .tcp ? SOCK_STREAM : SOCK_DGRAM).rawValue)
            #endif
        }
    }

    /// Resolves `host` and `port` (`getaddrinfo`): every address, in the order the system
    /// prefers.
    ///
    /// A name lookup may wait on the network and cannot be interrupted or given a deadline:
    /// pass a numeric address where that matters.
    /// - Parameters:
    ///   - host: a name or a numeric IPv4 or IPv6 address.
    ///   - port: 0...65535.
    ///   - transport: TCP or UDP.
    ///   - numericOnly: refuse names (a local address to bind must be numeric).
    ///   - passive: for binding (`AI_PASSIVE`).
    /// - Throws: ``SocketError/Kind/invalidArgument`` for a port outside 0...65535 or a
    ///   non-numeric `host` when `numericOnly`; ``SocketError/Kind/system`` when the name does
    ///   not resolve.
    package static func resolve(_ host: String, port: Int, transport: Transport, numericOnly: Bool = false,
                                passive: Bool = false) throws(SocketError) -> [SocketAddress] {
        guard (0...65535).contains(port) else {
            throw SocketError(.invalidArgument, "port \(port) is outside 0...65535")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = transport.socketType
        hints.ai_flags = (numericOnly ? AI_NUMERICHOST : 0) | (passive ? AI_PASSIVE : 0) | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            if numericOnly { throw SocketError(.invalidArgument, "'\(host)' is not a numeric address") }
            throw SocketError(.system, "cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let info = node {
            if let address = info.pointee.ai_addr { addresses.append(SocketAddress(address, length: info.pointee.ai_addrlen)) }
            node = info.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw SocketError(.system, "no address for '\(host)'") }
        return addresses
    }
}

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
