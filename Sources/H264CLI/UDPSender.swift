import Glibc

/// A UDP socket sending datagrams to one destination (IPv4 or IPv6), for `rtp-send`.
final class UDPSender {
    private let fd: Int32
    private var destination = sockaddr_storage()
    private let destinationLength: socklen_t
    /// The destination address in numeric form (for the SDP `c=` line).
    let numericHost: String
    /// The destination port.
    let port: Int

    /// Resolves `host` and opens a socket.
    init(host: String, port: Int) throws {
        guard (1...65535).contains(port) else { throw CLIError("port \(port) is outside 1...65535") }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let info = result else {
            throw CLIError("cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }
        fd = socket(info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw CLIError("socket: \(String(cString: strerror(errno)))") }
        destinationLength = info.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &destination) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
        }
        var name = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        _ = getnameinfo(info.pointee.ai_addr, info.pointee.ai_addrlen, &name, socklen_t(name.count), nil, 0, NI_NUMERICHOST)
        numericHost = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.port = port
        // A larger send buffer absorbs the burst of a big access unit.
        var size: Int32 = 1 << 20
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    /// Sends one datagram, retrying briefly while the kernel's buffers are full.
    func send(_ datagram: UnsafeRawBufferPointer) throws {
        var attempts = 0
        while true {
            let n = withUnsafePointer(to: &destination) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, datagram.baseAddress, datagram.count, 0, $0, destinationLength)
                }
            }
            if n >= 0 { return }
            let e = errno
            attempts += 1
            guard (e == EINTR || e == EAGAIN || e == ENOBUFS) && attempts < 1000 else {
                throw CLIError("sendto \(numericHost):\(port): \(String(cString: strerror(e)))")
            }
            if e != EINTR { usleep(200) }
        }
    }
}
