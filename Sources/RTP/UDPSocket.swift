import H264
import MediaSupport

/// A UDP socket for RTP over IPv4 or IPv6: bound to a local port to receive
/// (``init(receivingOn:address:receiveBufferSize:)``), or aimed at one destination to send
/// (``init(sendingTo:port:sendBufferSize:)``). Every operation has a deadline, whatever the
/// network does: ``receive(into:timeout:)`` waits at most its timeout, ``send(_:timeout:)``
/// gives up when the kernel's buffers stay full past its timeout.
///
/// The package's one socket layer underneath (its UDP socket, with the TCP and multicast ones
/// beside it); this type gives it RTP's shape (a datagram source) and errors.
///
/// Used by one thread or task at a time; the descriptor is closed when the socket is released.
/// Memory: the socket itself; datagrams go into the caller's buffer.
public final class UDPSocket: RTPDatagramSource {
    /// The socket underneath (for the RTSP client, which sends its RTCP from the port it
    /// receives on).
    package let socket: DatagramSocket
    /// The local port (the one the kernel chose when bound to port 0).
    public let localPort: Int
    /// The destination in numeric form (for an SDP `c=` line); empty for a receiving socket.
    public let remoteHost: String
    /// The destination port; 0 for a receiving socket.
    public let remotePort: Int

    /// Largest datagram a receive can return (the largest UDP payload over IPv4).
    public static let maximumDatagramSize = DatagramSocket.maximumDatagramSize

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
        socket = try Self.mapping { () throws(SocketError) in
            try DatagramSocket(bindingTo: address, port: port, receiveBufferSize: receiveBufferSize)
        }
        localPort = socket.localPort
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
        socket = try Self.mapping { () throws(SocketError) in
            try DatagramSocket(sendingTo: host, port: port, sendBufferSize: sendBufferSize)
        }
        remoteHost = socket.destination?.host ?? host
        remotePort = port
        localPort = socket.localPort
    }

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
    /// of `buffer`; when both have one, takes `first`'s (the caller alternates to be fair).
    /// - Returns: the datagram's size and whether it came from `second`, or nil when none
    ///   arrived in time.
    static func receive(from first: UDPSocket, or second: UDPSocket?, into buffer: inout [UInt8],
                        timeout: Duration) throws(RTPError) -> (count: Int, fromSecond: Bool)? {
        if buffer.count < maximumDatagramSize { buffer += repeatElement(0, count: maximumDatagramSize - buffer.count) }
        let deadline = Deadline.after(timeout)
        let received = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in
                try DatagramSocket.receive(from: first.socket, or: second?.socket, into: raw, deadline: deadline)
            }
        }
        switch received {
        case .success(let datagram): return datagram
        case .failure(let error) where error.kind == .timedOut: return nil
        case .failure(let error): throw mapped(error)
        }
    }

    /// Sends one datagram to the destination, waiting while the kernel's buffers are full.
    /// - Parameters:
    ///   - datagram: the bytes (an RTP or RTCP packet).
    ///   - timeout: the longest wait for buffer space.
    /// - Throws: ``RTPError/Code/io`` when the system call fails; ``RTPError/Code/timedOut``
    ///   when the buffers stay full past `timeout`; ``RTPError/Code/invalidArgument`` on a
    ///   receiving socket.
    public func send(_ datagram: UnsafeRawBufferPointer, timeout: Duration = .seconds(1)) throws(RTPError) {
        try Self.mapping { () throws(SocketError) in try socket.send(datagram, deadline: .after(timeout)) }
    }

    /// Runs a socket operation, its failure mapped by ``mapped(_:)``.
    private static func mapping<T>(_ body: () throws(SocketError) -> T) throws(RTPError) -> T {
        do {
            return try body()
        } catch {
            throw mapped(error)
        }
    }

    /// The socket layer's failure as RTP's error, the one place RTP maps it: a caller's
    /// argument is `invalidArgument`; every failure of the network or the system (a full
    /// buffer past its deadline included) is `io`.
    @inline(never)
    private static func mapped(_ error: SocketError) -> RTPError {
        switch error.kind {
        case .invalidArgument: RTPError.invalid(.invalidArgument, error.reason)
        case .timedOut: RTPError.invalid(.timedOut, error.reason)
        default: RTPError.invalid(.io, error.reason)
        }
    }
}
