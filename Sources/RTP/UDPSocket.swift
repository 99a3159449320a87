import Glibc
import H264

/// A UDP socket for RTP over IPv4 or IPv6: bound to a local port to receive
/// (``init(receivingOn:address:receiveBufferSize:)``), or aimed at one destination to send
/// (``init(sendingTo:port:sendBufferSize:)``). Every operation has a deadline, whatever the
/// network does: ``receive(into:timeout:)`` waits at most its timeout, ``send(_:timeout:)``
/// gives up when the kernel's buffers stay full past its timeout.
///
/// Used by one thread or task at a time; the descriptor is closed when the socket is released.
/// Memory: the socket itself; datagrams go into the caller's buffer.
public final class UDPSocket: RTPDatagramSource {
    let fd: Int32
    private var destination = sockaddr_storage()
    private var destinationLength: socklen_t = 0
    /// The local port (the one the kernel chose when bound to port 0).
    public let localPort: Int
    /// The destination in numeric form (for an SDP `c=` line); empty for a receiving socket.
    public let remoteHost: String
    /// The destination port; 0 for a receiving socket.
    public let remotePort: Int

    /// Largest datagram a receive can return (the largest UDP payload over IPv4).
    public static let maximumDatagramSize = 65_507

    /// Binds a socket to receive on `port`.
    ///
    /// - Parameters:
    ///   - port: the local port, 0...65535 (0: the kernel chooses one, see ``localPort``).
    ///   - address: the numeric local address to bind: `0.0.0.0` (every IPv4 interface),
    ///     `127.0.0.1`, `::` (IPv6, and IPv4 where the system maps it) or another.
    ///   - receiveBufferSize: the kernel's receive buffer (`SO_RCVBUF`) to ask for: a large one
    ///     keeps the bursts of large pictures from overflowing it; the kernel may grant less
    ///     (`net.core.rmem_max`).
    /// - Throws: ``RTPError/Code/invalidArgument`` for a port outside 0...65535 or an address
    ///   that is not numeric; ``RTPError/Code/io`` when the socket cannot be made or bound (the
    ///   port is in use).
    public init(receivingOn port: Int, address: String = "0.0.0.0", receiveBufferSize: Int = 8 << 20) throws(RTPError) {
        guard (0...65535).contains(port) else { throw RTPError.invalid(.invalidArgument, "port \(port) is outside 0...65535") }
        let info = try Self.resolve(address, port: port, flags: AI_NUMERICHOST | AI_PASSIVE)
        defer { freeaddrinfo(info) }
        let s = socket(info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue), 0)
        guard s >= 0 else { throw Self.errnoError("socket") }
        var size = Int32(clamping: receiveBufferSize)
        _ = setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        guard bind(s, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let error = Self.errnoError("bind \(address):\(port)")
            close(s)
            throw error
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &length) }
        }
        fd = s
        localPort = Self.port(of: bound)
        remoteHost = ""
        remotePort = 0
    }

    /// Opens a socket that sends to `host:port`.
    ///
    /// - Parameters:
    ///   - host: a name or numeric address (resolved once, here).
    ///   - port: 1...65535.
    ///   - sendBufferSize: the kernel's send buffer (`SO_SNDBUF`) to ask for: a large one
    ///     absorbs the burst of a large picture.
    /// - Throws: ``RTPError/Code/invalidArgument`` for a port outside 1...65535;
    ///   ``RTPError/Code/io`` when the name does not resolve or the socket cannot be made.
    public init(sendingTo host: String, port: Int, sendBufferSize: Int = 1 << 20) throws(RTPError) {
        guard (1...65535).contains(port) else { throw RTPError.invalid(.invalidArgument, "port \(port) is outside 1...65535") }
        let info = try Self.resolve(host, port: port, flags: 0)
        defer { freeaddrinfo(info) }
        fd = socket(info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw Self.errnoError("socket") }
        destinationLength = info.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &destination) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
        }
        var name = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        _ = getnameinfo(info.pointee.ai_addr, info.pointee.ai_addrlen, &name, socklen_t(name.count), nil, 0, NI_NUMERICHOST)
        remoteHost = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        remotePort = port
        localPort = 0
        var size = Int32(clamping: sendBufferSize)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    /// Waits at most `timeout` for one datagram and copies it to the start of `buffer`.
    ///
    /// - Parameters:
    ///   - buffer: grown to ``maximumDatagramSize`` bytes when smaller (once), then reused.
    ///   - timeout: the longest wait (zero or negative: only what has already arrived).
    /// - Returns: the datagram's size (its bytes are `buffer[..<n]`), or nil when none arrived
    ///   in time.
    /// - Throws: ``RTPError/Code/io`` when the system call fails.
    public func receive(into buffer: inout [UInt8], timeout: Duration) throws(RTPError) -> Int? {
        try Self.receive(from: self, or: nil, into: &buffer, timeout: timeout)?.count
    }

    /// Waits at most `timeout` for a datagram on `first` or `second` and copies it to the start
    /// of `buffer`; when both have one, takes `second`'s (the caller alternates to be fair).
    /// - Returns: the datagram's size and whether it came from `second`, or nil when none
    ///   arrived in time.
    static func receive(from first: UDPSocket, or second: UDPSocket?, into buffer: inout [UInt8],
                        timeout: Duration) throws(RTPError) -> (count: Int, fromSecond: Bool)? {
        if buffer.count < Self.maximumDatagramSize { buffer += repeatElement(0, count: Self.maximumDatagramSize - buffer.count) }
        let deadline = ContinuousClock.now.advanced(by: max(timeout, .zero))
        while true {
            var pollers = (pollfd(fd: first.fd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: second?.fd ?? -1, events: Int16(POLLIN), revents: 0))
            let rc = withUnsafeMutablePointer(to: &pollers) {
                $0.withMemoryRebound(to: pollfd.self, capacity: 2) { poll($0, second == nil ? 1 : 2, Self.milliseconds(until: deadline)) }
            }
            if rc < 0 {
                if errno == EINTR { continue }
                throw Self.errnoError("poll")
            }
            if rc > 0 {
                let useSecond = second != nil && pollers.1.revents != 0
                let fd = useSecond ? pollers.1.fd : first.fd
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n >= 0 { return (n, useSecond) }
                let e = errno
                // Linux reports an ICMP port-unreachable for an earlier send as ECONNREFUSED here.
                guard e == EAGAIN || e == EINTR || e == ECONNREFUSED else { throw Self.errnoError("recv", e) }
            }
            if ContinuousClock.now >= deadline { return nil }
        }
    }

    /// Sends one datagram to the destination, waiting while the kernel's buffers are full.
    /// - Parameters:
    ///   - datagram: the bytes (an RTP or RTCP packet).
    ///   - timeout: the longest wait for buffer space.
    /// - Throws: ``RTPError/Code/io`` when the system call fails; ``RTPError/Code/timedOut`` when
    ///   the buffers stay full past `timeout`; ``RTPError/Code/invalidArgument`` on a receiving
    ///   socket.
    public func send(_ datagram: UnsafeRawBufferPointer, timeout: Duration = .seconds(1)) throws(RTPError) {
        guard destinationLength > 0 else { throw RTPError.invalid(.invalidArgument, "send on a receiving socket") }
        let deadline = ContinuousClock.now.advanced(by: max(timeout, .zero))
        while true {
            let n = withUnsafePointer(to: &destination) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, datagram.baseAddress, datagram.count, Int32(MSG_DONTWAIT), $0, destinationLength)
                }
            }
            if n >= 0 { return }
            let e = errno
            guard e == EINTR || e == EAGAIN || e == ENOBUFS || e == ECONNREFUSED else {
                throw Self.errnoError("sendto \(remoteHost):\(remotePort)", e)
            }
            guard ContinuousClock.now < deadline else {
                throw RTPError.invalid(.timedOut, "sendto \(remoteHost):\(remotePort): buffers full past the deadline")
            }
            if e == EAGAIN || e == ENOBUFS {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&poller, 1, min(Self.milliseconds(until: deadline), 1))
            }
        }
    }

    /// Milliseconds from now to `deadline` for `poll`, rounded up, 0 when past.
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let d = ContinuousClock.now.duration(to: deadline)
        guard d > .zero else { return 0 }
        let (s, atto) = d.components
        // s is bounded by the caller's Duration; clamp to what poll takes.
        return Int32(clamping: min(s, 86_400) &* 1000 &+ atto / 1_000_000_000_000_000 &+ 1)
    }

    private static func resolve(_ host: String, port: Int, flags: Int32) throws(RTPError) -> UnsafeMutablePointer<addrinfo> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = flags
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let info = result else {
            if flags & AI_NUMERICHOST != 0 { throw RTPError.invalid(.invalidArgument, "'\(host)' is not a numeric address") }
            throw RTPError.invalid(.io, "cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        return info
    }

    private static func port(of address: sockaddr_storage) -> Int {
        var a = address
        return withUnsafePointer(to: &a) { p -> Int in
            if Int32(address.ss_family) == AF_INET6 {
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    @inline(never)
    private static func errnoError(_ what: String, _ code: Int32 = errno) -> RTPError {
        RTPError.invalid(.io, "\(what): \(String(cString: strerror(code)))")
    }
}
