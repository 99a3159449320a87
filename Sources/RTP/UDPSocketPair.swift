import H264

/// The two receiving sockets of one RTP session: the RTP port and its RTCP port (RFC 3550 11:
/// the RTP port + 1 unless the SDP says otherwise with `a=rtcp`, RFC 3605), read as one
/// ``RTPDatagramSource`` that says which port each datagram came from. An ``RTPReceiver``
/// reading it hears the sender's RTCP: its BYE ends the reception, its sender reports give
/// the access units a wall-clock time.
///
/// When datagrams wait on both ports, the two are read in turn, so a flood on one cannot
/// starve the other. Memory: the two sockets.
///
/// ```swift
/// var sockets = try UDPSocketPair(receivingOn: sdp.port, rtcpPort: sdp.rtcpPort)
/// let stop = try receiver.run(from: &sockets) { accessUnit in write(accessUnit.nalUnits) }
/// ```
public struct UDPSocketPair: RTPDatagramSource {
    /// The RTP socket.
    public let rtp: UDPSocket
    /// The RTCP socket (nil: RTCP only as RFC 5761 multiplexes it on the RTP port).
    public let rtcp: UDPSocket?
    private var rtcpFirst = true

    /// Pairs two bound sockets.
    public init(rtp: UDPSocket, rtcp: UDPSocket?) {
        self.rtp = rtp
        self.rtcp = rtcp
    }

    /// Binds the RTP port, then the RTCP port.
    /// - Parameters:
    ///   - port: the RTP port, 0...65535 (0: the kernel chooses one).
    ///   - rtcpPort: the RTCP port (nil: the RTP port + 1, RFC 3550 11).
    ///   - address: the numeric local address both are bound to.
    ///   - receiveBufferSize: the kernel receive buffer asked for the RTP socket.
    /// - Throws: errors of ``UDPSocket/init(receivingOn:address:receiveBufferSize:)``, and
    ///   ``RTPError/Code/invalidArgument`` when the RTP port is 65535 and no RTCP port is given.
    public init(receivingOn port: Int, rtcpPort: Int? = nil, address: String = "0.0.0.0",
                receiveBufferSize: Int = 8 << 20) throws(RTPError) {
        let rtp = try UDPSocket(receivingOn: port, address: address, receiveBufferSize: receiveBufferSize)
        let control = rtcpPort ?? rtp.localPort + 1
        guard control <= 65535 else { throw RTPError.invalid(.invalidArgument, "no RTCP port after RTP port \(rtp.localPort)") }
        self.init(rtp: rtp, rtcp: try UDPSocket(receivingOn: control, address: address, receiveBufferSize: 1 << 20))
    }

    /// A datagram from either port, without saying which (see ``receiveDatagram(into:timeout:)``).
    public mutating func receive(into buffer: inout [UInt8], timeout: Duration) throws(RTPError) -> Int? {
        try receiveDatagram(into: &buffer, timeout: timeout)?.count
    }

    /// Waits at most `timeout` for a datagram on either port.
    /// - Returns: its size (its bytes are `buffer[..<n]`) and port, or nil when none arrived in
    ///   time.
    /// - Throws: ``RTPError/Code/io`` when a system call fails.
    public mutating func receiveDatagram(into buffer: inout [UInt8], timeout: Duration) throws(RTPError) -> (count: Int, channel: RTPChannel)? {
        guard let rtcp else { return try rtp.receive(into: &buffer, timeout: timeout).map { ($0, .rtp) } }
        // The port read first when both have a datagram alternates.
        rtcpFirst.toggle()
        let (first, second) = rtcpFirst ? (rtcp, rtp) : (rtp, rtcp)
        guard let (n, fromSecond) = try UDPSocket.receive(from: first, or: second, into: &buffer, timeout: timeout) else { return nil }
        return (n, (fromSecond != rtcpFirst) ? .rtcp : .rtp)
    }
}
