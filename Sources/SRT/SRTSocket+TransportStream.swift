import MPEGTS
import MediaSupport

extension SRTSocket {
    /// Sends every packet `writer` holds, as many whole 188-byte packets per message as the
    /// payload size takes (seven at the default 1,316 bytes), the last message with the rest.
    ///
    /// - Parameters:
    ///   - writer: its packets are taken (`TSWriter.takePackets(inGroupsOf:_:)`) as they are sent; on
    ///     a failure those not sent stay in it.
    ///   - timeout: the longest wait for room in libsrt's send buffer, for all of them.
    /// - Returns: the messages sent.
    /// - Throws: as ``send(_:timeout:)-(ArraySlice<UInt8>,_)``.
    @discardableResult
    public func send(packetsOf writer: inout TSWriter, timeout: Duration = .seconds(1)) throws(SRTError) -> Int {
        let deadline = Deadline.after(timeout)
        return try writer.takePackets(inGroupsOf: payloadSize / 188) { (message) throws(SRTError) in
            try send(message, deadline: deadline)
        }
    }

    /// Waits at most `timeout` for the next message and appends it to `parser`.
    /// - Returns: the bytes appended, or nil when no message came in time (the events it
    ///   completes are waiting in `parser.next()`).
    /// - Throws: as ``receive(timeout:)``.
    @discardableResult
    public func receive(into parser: inout TSParser, timeout: Duration) throws(SRTError) -> Int? {
        guard let count = try receiveIntoBuffer(deadline: .after(timeout)) else { return nil }
        withReceived(count) { parser.append($0) }
        return count
    }
}
