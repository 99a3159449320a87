import H264

/// Where an ``RTPReceiver`` gets its datagrams: a ``UDPSocket``, or anything else that waits
/// for one with a deadline (a test's list of packets, another transport).
public protocol RTPDatagramSource {
    /// Waits at most `timeout` for one datagram and puts it at the start of `buffer`.
    /// - Parameters:
    ///   - buffer: the caller's reusable buffer, grown as the source needs.
    ///   - timeout: the longest wait; the source returns nil once it has passed.
    /// - Returns: the datagram's size (its bytes are `buffer[..<n]`), or nil when none arrived
    ///   in time.
    mutating func receive(into buffer: inout [UInt8], timeout: Duration) throws(H264Error) -> Int?
}
