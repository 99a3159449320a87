#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A UDP socket over IPv4 or IPv6, bound to a local port to receive
/// (``init(bindingTo:port:receiveBufferSize:reuseAddress:interrupt:)``, with multicast groups
/// joined by ``joinMulticastGroup(_:interface:)``), or aimed at a destination to send
/// (``init(sendingTo:port:sendBufferSize:interrupt:)``). Every wait has a ``Deadline``, and
/// the socket's ``Interrupt`` ends it from any thread.
///
/// Used by one thread at a time (`Sendable` to be handed to it). Memory: the socket; datagrams go into the caller's buffer.
package final class DatagramSocket: @unchecked Sendable {
    package let fd: Int32
    /// Fired from another thread, it ends the wait in progress and every later one with
    /// ``SocketError/Kind/cancelled``.
    package let interrupt: Interrupt?
    /// The local address (with the port the kernel chose for port 0).
    package let localAddress: SocketAddress
    /// Where ``send(_:to:deadline:)`` sends by default (nil for a receiving socket).
    package let destination: SocketAddress?

    /// The local port.
    package var localPort: Int { localAddress.port }

    /// The largest UDP payload over IPv4, the most a receive can return.
    package static let maximumDatagramSize = 65_507

    /// Binds a socket to `address:port` to receive.
    /// - Parameters:
    ///   - address: a numeric local address: `0.0.0.0` (every IPv4 interface, and where a
    ///     multicast group's datagrams arrive), `127.0.0.1`, `::`, `::1`.
    ///   - port: 0...65535 (0: the kernel chooses one, see ``localPort``).
    ///   - receiveBufferSize: the kernel's receive buffer (`SO_RCVBUF`) to ask for; the kernel
    ///     may grant less (`net.core.rmem_max`). Nil keeps the system's default.
    ///   - reuseAddress: let other sockets bind the same port (`SO_REUSEADDR`, and
    ///     `SO_REUSEPORT` where the system needs it): several receivers of one multicast group.
    ///   - interrupt: watched by every wait.
    /// - Throws: ``SocketError/Kind/invalidArgument`` for a port out of range or an address
    ///   that is not numeric; ``SocketError/Kind/system`` when the port is in use or another
    ///   call fails.
    package init(bindingTo address: String, port: Int, receiveBufferSize: Int? = nil, reuseAddress: Bool = false,
                 interrupt: Interrupt? = nil) throws(SocketError) {
        let local = try SocketAddress.resolve(address, port: port, transport: .udp, numericOnly: true, passive: true)[0]
        let s = try SocketSystem.makeSocket(family: local.family, transport: .udp)
        if let receiveBufferSize { SocketSystem.setOption(s, SOL_SOCKET, SO_RCVBUF, Int32(clamping: receiveBufferSize)) }
        if reuseAddress {
            SocketSystem.setOption(s, SOL_SOCKET, SO_REUSEADDR, 1)
            #if canImport(Darwin)
            SocketSystem.setOption(s, SOL_SOCKET, SO_REUSEPORT, 1)
            #endif
        }
        do throws(SocketError) {
            try SocketSystem.bindDescriptor(s, local, "bind \(address):\(port)")
            localAddress = try SocketAddress(localOf: s)
        } catch {
            SocketSystem.closeDescriptor(s)
            throw error
        }
        fd = s
        destination = nil
        self.interrupt = interrupt
    }

    /// Opens a socket that sends to `host:port`, bound to a local port the kernel chooses.
    /// - Parameters:
    ///   - host: a name or numeric address, resolved once, here (the first address).
    ///   - port: 0...65535.
    ///   - sendBufferSize: the kernel's send buffer (`SO_SNDBUF`) to ask for: a large one
    ///     absorbs the burst of a large picture. Nil keeps the system's default.
    ///   - interrupt: watched by every wait.
    /// - Throws: ``SocketError/Kind/invalidArgument`` for a port out of range;
    ///   ``SocketError/Kind/system`` when the name does not resolve or the socket cannot be made.
    package init(sendingTo host: String, port: Int, sendBufferSize: Int? = nil, interrupt: Interrupt? = nil) throws(SocketError) {
        let remote = try SocketAddress.resolve(host, port: port, transport: .udp)[0]
        let s = try SocketSystem.makeSocket(family: remote.family, transport: .udp)
        if let sendBufferSize { SocketSystem.setOption(s, SOL_SOCKET, SO_SNDBUF, Int32(clamping: sendBufferSize)) }
        do throws(SocketError) {
            // Bound now (any address, a port the kernel chooses) rather than at the first send,
            // so that the local port is known from the start (an answer comes back to it).
            let any = try SocketAddress.resolve(remote.isIPv6 ? "::" : "0.0.0.0", port: 0, transport: .udp,
                                                numericOnly: true, passive: true)[0]
            try SocketSystem.bindDescriptor(s, any, "bind a port to send to \(host):\(port)")
            localAddress = try SocketAddress(localOf: s)
        } catch {
            SocketSystem.closeDescriptor(s)
            throw error
        }
        fd = s
        destination = remote
        self.interrupt = interrupt
    }

    deinit { SocketSystem.closeDescriptor(fd) }

    // MARK: Receiving

    /// Waits until `deadline` for one datagram and copies it to the start of `buffer` (a
    /// longer datagram is cut to the buffer's size). One already waiting is taken at once,
    /// even past the deadline.
    /// - Returns: the datagram's size (it may be 0).
    /// - Throws: ``SocketError/Kind/timedOut`` when none arrived in time,
    ///   ``SocketError/Kind/cancelled``, ``SocketError/Kind/system`` when a call fails.
    package func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: Deadline?) throws(SocketError) -> Int {
        try Self.receive(from: self, or: nil, into: buffer, deadline: deadline).count
    }

    /// Waits until `deadline` for a datagram on `first` or `second` and copies it to the start
    /// of `buffer`; when both have one, takes `first`'s (a caller that reads two sockets, an
    /// RTP port and its RTCP port, swaps them each time to be fair). The waits watch `first`'s
    /// interrupt.
    /// - Returns: the datagram's size and whether it came from `second`.
    /// - Throws: as ``receive(into:deadline:)``.
    package static func receive(from first: DatagramSocket, or second: DatagramSocket?, into buffer: UnsafeMutableRawBufferPointer,
                                deadline: Deadline?) throws(SocketError) -> (count: Int, fromSecond: Bool) {
        while true {
            let ready = try SocketSystem.wait((first.fd, second?.fd), events: Int16(POLLIN), deadline: deadline,
                                              interrupt: first.interrupt, "receive")
            let socket = ready == 1 ? second! : first  // index 1 is ready only when there is a second
            let n = recv(socket.fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if n >= 0 { return (n, ready == 1) }
            let code = errno
            // Linux reports an ICMP port-unreachable for an earlier send as ECONNREFUSED here.
            guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR || code == ECONNREFUSED else {
                throw SocketError(errno: code, while: "receive on port \(socket.localPort)")
            }
        }
    }

    /// Waits until `deadline` for a datagram on any of `sockets` and copies it to the start of
    /// `buffer`: one `poll` over them all (the sockets of several RTP sessions, each with its
    /// RTCP port). When several have one, the first ready from index `preferred` on, round the
    /// list, is taken (a caller moves `preferred` on each time to be fair). The waits watch the
    /// first socket's interrupt.
    /// - Returns: the datagram's size and the index of its socket.
    /// - Throws: as ``receive(into:deadline:)``; ``SocketError/Kind/invalidArgument`` for an
    ///   empty list.
    /// - Complexity: O(n) in the sockets per wait.
    package static func receive(fromAny sockets: [DatagramSocket], preferred: Int = 0, into buffer: UnsafeMutableRawBufferPointer,
                                deadline: Deadline?) throws(SocketError) -> (count: Int, index: Int) {
        guard let first = sockets.first else { throw SocketError(.invalidArgument, "receive from no socket") }
        let interrupt = first.interrupt
        var set = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        set.append(pollfd(fd: interrupt?.readEnd ?? -1, events: Int16(POLLIN), revents: 0))
        while true {
            try interrupt?.check("receive")
            for i in set.indices { set[i].revents = 0 }
            let rc = poll(&set, nfds_t(set.count), Deadline.pollTimeout(deadline))
            if rc < 0 {
                let code = errno
                guard code == EINTR else { throw SocketError(errno: code, while: "poll (receive)") }
                continue
            }
            if set[sockets.count].revents != 0 { try interrupt?.check("receive") }
            if rc > 0 {
                for k in 0..<sockets.count {
                    let index = (preferred % sockets.count &+ k) % sockets.count  // both below count: no overflow
                    guard set[index].revents != 0 else { continue }
                    let n = recv(sockets[index].fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                    if n >= 0 { return (n, index) }
                    let code = errno
                    guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR || code == ECONNREFUSED else {
                        throw SocketError(errno: code, while: "receive on port \(sockets[index].localPort)")
                    }
                }
            }
            if let deadline, deadline.hasPassed { throw SocketError.timedOut("receive") }
        }
    }

    // MARK: Sending

    /// Sends one datagram to `address` (nil: the ``destination``), waiting until `deadline`
    /// while the kernel's buffers are full.
    /// - Throws: ``SocketError/Kind/timedOut`` when the buffers stay full past the deadline,
    ///   ``SocketError/Kind/cancelled``, ``SocketError/Kind/invalidArgument`` without an address
    ///   (a receiving socket), ``SocketError/Kind/system`` when the call fails.
    package func send(_ datagram: UnsafeRawBufferPointer, to address: SocketAddress? = nil, deadline: Deadline) throws(SocketError) {
        guard let target = address ?? destination else {
            throw SocketError(.invalidArgument, "send on a receiving socket without a destination")
        }
        while true {
            try interrupt?.check("send")
            let n = target.withSocketAddress { sockaddr, length in
                sendto(fd, datagram.baseAddress, datagram.count, Int32(MSG_DONTWAIT) | SocketSystem.sendFlags, sockaddr, length)
            }
            if n >= 0 { return }
            let code = errno
            switch code {
            case EINTR, ECONNREFUSED:
                continue  // ECONNREFUSED: an ICMP error for an earlier datagram, now consumed
            case EAGAIN, EWOULDBLOCK, ENOBUFS:
                guard !deadline.hasPassed else {
                    throw SocketError(.timedOut, "send to \(target.host):\(target.port): the buffers stayed full past the deadline",
                                      systemError: code)
                }
                // ENOBUFS (an interface queue full) is not announced by poll: try again within a
                // millisecond.
                do throws(SocketError) {
                    _ = try SocketSystem.wait((fd, nil), events: Int16(POLLOUT), deadline: deadline.capped(at: .milliseconds(1)),
                                              interrupt: interrupt, "send")
                } catch where error.kind == .timedOut {
                    continue
                }
            default:
                throw SocketError(errno: code, while: "send to \(target.host):\(target.port)")
            }
        }
    }

    // MARK: Multicast

    /// Joins the multicast `group` on this receiving socket (IPv4 `IP_ADD_MEMBERSHIP`, IPv6
    /// `IPV6_JOIN_GROUP`): the group's datagrams to the bound port arrive here. Bind to the
    /// wildcard address (`0.0.0.0`, `::`) or the group's own to receive them.
    /// - Parameters:
    ///   - group: a numeric multicast address of the socket's family (`239.1.2.3`, `ff15::1`).
    ///   - interface: where to listen: nil lets the system choose; an interface name (`lo`,
    ///     `eth0`); or, for IPv4, the interface's numeric address (`127.0.0.1`).
    /// - Throws: ``SocketError/Kind/invalidArgument`` for a group that is not a numeric
    ///   multicast address of the socket's family or an unknown interface;
    ///   ``SocketError/Kind/system`` when the system refuses (no multicast route).
    package func joinMulticastGroup(_ group: String, interface: String? = nil) throws(SocketError) {
        let what = "join multicast group \(group)"
        let address = try SocketAddress.resolve(group, port: 0, transport: .udp, numericOnly: true)[0]
        guard address.family == localAddress.family else {
            throw SocketError(.invalidArgument, "\(what): not an address of the socket's family")
        }
        if address.isIPv6 {
            var request = ipv6_mreq()
            request.ipv6mr_multiaddr = address.withSocketAddress { p, _ in
                p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            }
            request.ipv6mr_interface = try Self.interfaceIndex(interface, what)
            try SocketSystem.setOption(fd, Int32(IPPROTO_IPV6), IPV6_JOIN_GROUP, request, what)
            return
        }
        let groupAddress = address.withSocketAddress { p, _ in
            p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        }
        switch try Self.ipv4Interface(interface, what) {
        case .address(let local):
            try SocketSystem.setOption(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP,
                                       ip_mreq(imr_multiaddr: groupAddress, imr_interface: local), what)
        case .index(let index):
            #if canImport(Darwin)
            throw SocketError(.invalidArgument, "\(what): name the IPv4 interface by its address on this system (index \(index))")
            #else
            try SocketSystem.setOption(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP,
                                       ip_mreqn(imr_multiaddr: groupAddress, imr_address: in_addr(), imr_ifindex: Int32(index)), what)
            #endif
        }
    }

    /// Sets how this socket sends to multicast groups: the outgoing interface, whether its own
    /// host receives the datagrams too, and how many routers they may cross.
    /// - Parameters:
    ///   - interface: nil keeps the system's routing; an interface name, or for IPv4 its
    ///     numeric address.
    ///   - loopback: deliver to receivers on this host too (`IP_MULTICAST_LOOP`).
    ///   - hops: the time to live (`IP_MULTICAST_TTL`, `IPV6_MULTICAST_HOPS`), 0...255.
    /// - Throws: ``SocketError/Kind/invalidArgument`` for an unknown interface or hops outside
    ///   0...255; ``SocketError/Kind/system`` when the system refuses.
    package func setMulticastSending(interface: String? = nil, loopback: Bool = true, hops: Int = 1) throws(SocketError) {
        let what = "set multicast sending"
        guard (0...255).contains(hops) else { throw SocketError(.invalidArgument, "\(what): hops \(hops) outside 0...255") }
        if localAddress.isIPv6 {
            if interface != nil {
                try SocketSystem.setOption(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_IF, try Self.interfaceIndex(interface, what), what)
            }
            try SocketSystem.setOption(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_LOOP, UInt32(loopback ? 1 : 0), what)
            try SocketSystem.setOption(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, Int32(hops), what)
            return
        }
        if interface != nil {
            switch try Self.ipv4Interface(interface, what) {
            case .address(let local):
                try SocketSystem.setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, local, what)
            case .index(let index):
                #if canImport(Darwin)
                throw SocketError(.invalidArgument, "\(what): name the IPv4 interface by its address on this system (index \(index))")
                #else
                try SocketSystem.setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF,
                                           ip_mreqn(imr_multiaddr: in_addr(), imr_address: in_addr(), imr_ifindex: Int32(index)), what)
                #endif
            }
        }
        // One byte each: the size every system accepts for these two.
        try SocketSystem.setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, UInt8(loopback ? 1 : 0), what)
        try SocketSystem.setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, UInt8(hops), what)
    }

    /// An interface's index from its name (nil: 0, any interface).
    private static func interfaceIndex(_ name: String?, _ what: String) throws(SocketError) -> UInt32 {
        guard let name else { return 0 }
        let index = if_nametoindex(name)
        guard index != 0 else { throw SocketError(.invalidArgument, "\(what): no interface named '\(name)'") }
        return index
    }

    private enum IPv4Interface {
        case address(in_addr)
        case index(UInt32)
    }

    /// An IPv4 interface named by its numeric address or its name (nil: any).
    private static func ipv4Interface(_ interface: String?, _ what: String) throws(SocketError) -> IPv4Interface {
        guard let interface else { return .address(in_addr()) }  // INADDR_ANY
        var address = in_addr()
        if inet_pton(AF_INET, interface, &address) == 1 { return .address(address) }
        return .index(try interfaceIndex(interface, what))
    }
}
