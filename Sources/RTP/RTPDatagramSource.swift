import H264

/// The port a datagram arrived on: the session's RTP port or its RTCP port.
public enum RTPChannel: Hashable, Sendable {
    /// The RTP port (where RTCP may also arrive, multiplexed as RFC 5761 describes).
    case rtp
    /// The RTCP port (the RTP port + 1, or the SDP's `a=rtcp` port).
    case rtcp
}

/// Where an ``RTPReceiver`` gets its datagrams: a ``UDPSocket``, a ``UDPSocketPair`` (the RTP
/// and RTCP ports), or anything else that waits for one with a deadline (a test's list of
/// packets, another transport).
public protocol RTPDatagramSource {
    /// Waits at most `timeout` for one datagram and puts it at the start of `buffer`.
    /// - Parameters:
    ///   - buffer: the caller's reusable buffer, grown as the source needs.
    ///   - timeout: the longest wait; the source returns nil once it has passed.
    /// - Returns: the datagram's size (its bytes are `buffer[..<n]`), or nil when none arrived
    ///   in time.
    mutating func receive(into buffer: inout [UInt8], timeout: Duration) throws(RTPError) -> Int?

    /// As ``receive(into:timeout:)``, and says which port the datagram arrived on. A source that
    /// listens on one port needs nothing more: the default takes every datagram as arriving on
    /// the RTP port (where ``RTPReceiver`` still recognises multiplexed RTCP).
    /// - Returns: the datagram's size and port, or nil when none arrived in time.
    mutating func receiveDatagram(into buffer: inout [UInt8], timeout: Duration) throws(RTPError) -> (count: Int, channel: RTPChannel)?
}

extension RTPDatagramSource {
    /// Every datagram on the RTP port: ``receive(into:timeout:)``.
    public mutating func receiveDatagram(into buffer: inout [UInt8], timeout: Duration) throws(RTPError) -> (count: Int, channel: RTPChannel)? {
        try receive(into: &buffer, timeout: timeout).map { ($0, .rtp) }
    }
}
