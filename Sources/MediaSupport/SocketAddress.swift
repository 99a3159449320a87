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
