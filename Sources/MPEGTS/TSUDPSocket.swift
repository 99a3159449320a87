import MediaSupport

/// MPEG-TS over UDP, unicast or multicast: a socket that sends a ``TSWriter``'s packets seven
/// to a datagram (1,316 bytes, what FFmpeg, VLC and broadcast gear send), or receives datagrams
/// into a ``TSParser``. RTP is not used (plain TS over UDP, as `udp://` in FFmpeg).
///
/// ```swift
/// let udp = try TSUDPSocket(sendingTo: "239.1.1.1", port: 5000, multicastInterface: "eth0")
/// var ts = try TSWriter()
/// for au in accessUnits {
///     try ts.write(au)
///     try udp.send(packetsOf: &ts)
/// }
///
/// let input = try TSUDPSocket(receivingOn: 5000, multicastGroup: "239.1.1.1", interface: "eth0")
/// var parser = TSParser()
/// while try input.receive(into: &parser, timeout: .seconds(5)) != nil {
///     while let event = parser.next() { handle(event) }
/// }
/// ```
///
/// Every wait has a timeout; ``cancel()`` ends the one in progress from any thread, and every
/// later one, with ``TSError/Code/cancelled``. Used by one thread at a time besides
/// ``cancel()``; the socket is closed when it is released. The package's one socket layer is
/// underneath (its UDP socket and multicast join, which RTP's `UDPSocket` uses too).
///
/// Memory: the socket (the kernel's buffers, as asked for), and for a receiving socket one
/// 65,507-byte datagram buffer, reused.
public final class TSUDPSocket: @unchecked Sendable {
    private let socket: DatagramSocket
    private let interrupt = Interrupt()
    private var buffer: [UInt8] = []
    /// The local port (the one the kernel chose when bound to port 0).
    public let localPort: Int
    /// The TS packets per datagram of ``send(packetsOf:packetsPerDatagram:timeout:)`` by
    /// default: seven (1,316 bytes, within a 1,500-byte Ethernet MTU).
    public static let defaultPacketsPerDatagram = 7

    /// Opens a socket that sends to `host:port`, a unicast or multicast address.
    /// - Parameters:
    ///   - host: a name or numeric address (resolved once, here).
    ///   - port: 1...65535.
    ///   - multicastInterface: for a multicast destination, the interface to send on (a name,
    ///     or an IPv4 interface's address); nil lets the system route.
    ///   - hops: for a multicast destination, the time to live (0...255; 1: this network only).
    ///   - sendBufferSize: the kernel's send buffer (`SO_SNDBUF`) to ask for.
    /// - Throws: ``TSError/Code/invalidArgument`` for a port or hops out of range or an unknown
    ///   interface; ``TSError/Code/io`` when the name does not resolve or the socket cannot be
    ///   made.
    public init(sendingTo host: String, port: Int, multicastInterface: String? = nil, hops: Int = 1,
                sendBufferSize: Int = 1 << 20) throws(TSError) {
        guard (1...65535).contains(port) else { throw TSError.invalid(.invalidArgument, "port \(port) is outside 1...65535") }
        let interrupt = self.interrupt
        socket = try Self.mapping { () throws(SocketError) in
            let s = try DatagramSocket(sendingTo: host, port: port, sendBufferSize: sendBufferSize, interrupt: interrupt)
            if let destination = s.destination, Self.isMulticast(destination) {
                try s.setMulticastSending(interface: multicastInterface, loopback: true, hops: hops)
            }
            return s
        }
        localPort = socket.localPort
    }

    /// Binds a socket to receive on `port`, joining `multicastGroup` when one is given.
    /// - Parameters:
    ///   - port: 0...65535 (0: the kernel chooses, see ``localPort``).
    ///   - address: the numeric local address (`0.0.0.0`: every IPv4 interface, where a
    ///     group's datagrams arrive; `::` for an IPv6 group).
    ///   - multicastGroup: a numeric multicast address to join (`239.1.1.1`, `ff15::1`); other
    ///     receivers on this host may bind the same port.
    ///   - interface: where to join the group: an interface name, or an IPv4 interface's
    ///     address; nil lets the system choose.
    ///   - receiveBufferSize: the kernel's receive buffer (`SO_RCVBUF`) to ask for: a large one
    ///     absorbs bursts (the kernel may grant less, `net.core.rmem_max`).
    /// - Throws: ``TSError/Code/invalidArgument`` for a port out of range, an address or group
    ///   that is not numeric, an unknown interface; ``TSError/Code/io`` when the port is in use
    ///   or the group cannot be joined (no multicast route).
    public init(receivingOn port: Int, address: String = "0.0.0.0", multicastGroup: String? = nil, interface: String? = nil,
                receiveBufferSize: Int = 4 << 20) throws(TSError) {
        let interrupt = self.interrupt
        socket = try Self.mapping { () throws(SocketError) in
            let s = try DatagramSocket(bindingTo: address, port: port, receiveBufferSize: receiveBufferSize,
                                       reuseAddress: multicastGroup != nil, interrupt: interrupt)
            if let multicastGroup { try s.joinMulticastGroup(multicastGroup, interface: interface) }
            return s
        }
        localPort = socket.localPort
    }

    /// Ends the operation in progress, from any thread, and every later one, with
    /// ``TSError/Code/cancelled``.
    public func cancel() { interrupt.fire() }

    /// Sends one datagram, waiting at most `timeout` while the kernel's buffers are full.
    /// - Throws: ``TSError/Code/timedOut``, ``TSError/Code/cancelled``, ``TSError/Code/io``;
    ///   ``TSError/Code/invalidArgument`` on a receiving socket or for more than 65,507 bytes.
    public func send(_ datagram: ArraySlice<UInt8>, timeout: Duration = .seconds(1)) throws(TSError) {
        try send(datagram, deadline: .after(timeout))
    }

    private func send(_ datagram: ArraySlice<UInt8>, deadline: Deadline) throws(TSError) {
        guard datagram.count <= DatagramSocket.maximumDatagramSize else {
            throw TSError.invalid(.invalidArgument, "a datagram of \(datagram.count) bytes: at most \(DatagramSocket.maximumDatagramSize)")
        }
        let result = datagram.withUnsafeBytes { raw in
            Result { () throws(SocketError) in try socket.send(raw, deadline: deadline) }
        }
        if case .failure(let error) = result { throw Self.mapped(error) }
    }

    /// Sends every packet `writer` holds, `packetsPerDatagram` to a datagram (the last one with
    /// the rest).
    /// - Parameters:
    ///   - writer: its packets are taken as they are sent; on a failure those not sent stay.
    ///   - packetsPerDatagram: 1...348 (7: 1,316 bytes).
    ///   - timeout: the longest wait for buffer space, for all of them.
    /// - Returns: the datagrams sent.
    /// - Throws: as ``send(_:timeout:)``; ``TSError/Code/invalidArgument`` for a count out of
    ///   range.
    @discardableResult
    public func send(packetsOf writer: inout TSWriter, packetsPerDatagram: Int = TSUDPSocket.defaultPacketsPerDatagram,
                     timeout: Duration = .seconds(1)) throws(TSError) -> Int {
        guard (1...DatagramSocket.maximumDatagramSize / 188).contains(packetsPerDatagram) else {
            throw TSError.invalid(.invalidArgument, "\(packetsPerDatagram) packets per datagram: 1...\(DatagramSocket.maximumDatagramSize / 188)")
        }
        let deadline = Deadline.after(timeout)
        return try writer.takePackets(inGroupsOf: packetsPerDatagram) { (datagram) throws(TSError) in
            try send(datagram, deadline: deadline)
        }
    }

    /// Waits at most `timeout` for one datagram.
    /// - Returns: its bytes, or nil when none arrived in time.
    /// - Throws: ``TSError/Code/cancelled``, ``TSError/Code/io``.
    public func receive(timeout: Duration) throws(TSError) -> [UInt8]? {
        guard let count = try receiveIntoBuffer(timeout: timeout) else { return nil }
        return Array(buffer[..<count])
    }

    /// Waits at most `timeout` for one datagram and appends it to `parser`.
    /// - Returns: the bytes appended, or nil when none arrived in time (the events it
    ///   completes wait in `parser.next()`).
    /// - Throws: ``TSError/Code/cancelled``, ``TSError/Code/io``.
    @discardableResult
    public func receive(into parser: inout TSParser, timeout: Duration) throws(TSError) -> Int? {
        guard let count = try receiveIntoBuffer(timeout: timeout) else { return nil }
        parser.append(buffer[..<count])
        return count
    }

    private func receiveIntoBuffer(timeout: Duration) throws(TSError) -> Int? {
        if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: DatagramSocket.maximumDatagramSize) }
        let deadline = Deadline.after(timeout)
        let received = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try socket.receive(into: raw, deadline: deadline) }
        }
        switch received {
        case .success(let count): return count
        case .failure(let error) where error.kind == .timedOut: return nil
        case .failure(let error): throw Self.mapped(error)
        }
    }

    private static func isMulticast(_ address: SocketAddress) -> Bool {
        let host = address.host
        if address.isIPv6 { return host.lowercased().hasPrefix("ff") }
        guard let first = host.split(separator: ".").first.flatMap({ Int($0) }) else { return false }
        return (224...239).contains(first)
    }

    private static func mapping<T>(_ body: () throws(SocketError) -> T) throws(TSError) -> T {
        do {
            return try body()
        } catch {
            throw mapped(error)
        }
    }

    /// The socket layer's failure as MPEG-TS's error, the one place the module maps it.
    @inline(never)
    private static func mapped(_ error: SocketError) -> TSError {
        switch error.kind {
        case .invalidArgument: TSError.invalid(.invalidArgument, error.reason)
        case .timedOut: TSError.invalid(.timedOut, error.reason)
        case .cancelled: TSError.invalid(.cancelled, error.reason)
        default: TSError.invalid(.io, error.reason)
        }
    }
}
