#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CSRT
import MediaSupport

/// A connected SRT socket in live mode: a caller's (``connect(to:port:options:timeout:)``) or
/// one a listener accepted (``SRTListener/accept(timeout:)``). Messages go out and come in
/// whole, as byte arrays of at most the payload size (1,316 bytes: seven TS packets);
/// ``send(packetsOf:timeout:)`` and ``receive(into:timeout:)`` carry MPEG-TS.
///
/// ```swift
/// let srt = try SRTSocket.connect(to: "127.0.0.1", port: 9000,
///                                 options: SRTOptions(streamID: "live/cam1", passphrase: "0123456789"))
/// var ts = try TSWriter()
/// for au in accessUnits {
///     try ts.write(au)
///     try srt.send(packetsOf: &ts)        // seven packets per message
/// }
/// srt.close()
/// ```
///
/// Every operation has a deadline that holds whatever the peer does; ``cancel()`` ends the one
/// in progress from any thread, and every later one, with ``SRTError/Code/cancelled``. Used by
/// one thread at a time besides ``cancel()`` and ``close()``; the connection is closed by
/// ``close()`` or when the socket is released.
///
/// Memory: libsrt's buffers for the connection (by default 8,192 packets each way, about
/// 12 MiB, reserved as they fill: `SRTO_SNDBUF`, `SRTO_RCVBUF`), and one 1,456-byte receive
/// buffer; a receive allocates the message it returns.
public final class SRTSocket: @unchecked Sendable {
    let handle: SRTHandle
    /// The stream id: the one this caller sent, or the one the caller of an accepted socket
    /// sent (nil when none was).
    public let streamID: String?
    /// The peer's numeric address.
    public let remoteHost: String
    /// The peer's port.
    public let remotePort: Int
    /// The most bytes of one message (the options' payload size).
    public let payloadSize: Int
    private var buffer = [UInt8](repeating: 0, count: SRTOptions.maximumPayloadSize)

    init(handle: SRTHandle, streamID: String?, remote: SocketAddress, payloadSize: Int) {
        self.handle = handle
        self.streamID = streamID
        remoteHost = remote.host
        remotePort = remote.port
        self.payloadSize = payloadSize
    }

    /// Connects to an SRT listener as a caller.
    ///
    /// - Parameters:
    ///   - host: a name or numeric address (a name lookup is not bounded by `timeout`: pass a
    ///     numeric address where that matters).
    ///   - port: 1...65535.
    ///   - options: latency, stream id, passphrase, payload size.
    ///   - timeout: for the whole handshake (also given to libsrt as `SRTO_CONNTIMEO`).
    /// - Throws: ``SRTError/Code/timedOut`` when no listener answers in time,
    ///   ``SRTError/Code/passphraseMismatch``, ``SRTError/Code/connectionRejected`` (the
    ///   listener's hook or limit: its code in the reason), ``SRTError/Code/invalidArgument``
    ///   for an option or port libsrt refuses, ``SRTError/Code/io``.
    public static func connect(to host: String, port: Int, options: SRTOptions = SRTOptions(),
                               timeout: Duration = .seconds(3)) throws(SRTError) -> SRTSocket {
        let what = "connect to \(host):\(port)"
        guard (1...65535).contains(port) else { throw SRTError.invalid(.invalidArgument, "\(what): port outside 1...65535") }
        let address: SocketAddress
        do {
            address = try SocketAddress.resolve(host, port: port, transport: .udp)[0]
        } catch {
            throw SRTLibrary.mapped(error)
        }
        let handle = try SRTHandle()
        try handle.apply(options)
        if let streamID = options.streamID { try handle.set(SRTO_STREAMID, string: streamID, "stream id") }
        let deadline = Deadline.after(timeout)
        // libsrt's own limit: at least its minimum, and never before ours.
        var connectTimeout = Int32(clamping: max(Int64(Deadline.pollTimeout(deadline)), 100))
        try handle.set(SRTO_CONNTIMEO, &connectTimeout, "connect timeout")
        let rc = SRTHandle.withAddress(address) { srt_connect(handle.id, $0, $1) }
        if rc < 0 {
            let status = handle.status
            throw status == SRTS_BROKEN || status == SRTS_CLOSED ? SRTLibrary.rejection(of: handle.id, what)
                : SRTLibrary.lastError(what)
        }
        while true {
            let status = handle.status
            if status == SRTS_CONNECTED { break }
            if status != SRTS_CONNECTING && status != SRTS_OPENED {
                throw SRTLibrary.rejection(of: handle.id, what)
            }
            try handle.wait(for: SRT_EPOLL_OUT, deadline: deadline, what)
        }
        return SRTSocket(handle: handle, streamID: options.streamID, remote: address, payloadSize: options.payloadSize)
    }

    /// Ends the operation in progress, from any thread, and every later one, with
    /// ``SRTError/Code/cancelled``; the connection stays open until ``close()``.
    public func cancel() { handle.interrupt.fire() }

    /// Closes the connection (idempotent, from any thread; a wait in progress ends, cancelled).
    /// Messages not yet acknowledged by the peer are dropped (live mode does not linger): a
    /// sender that wants them delivered calls ``finish(timeout:)``.
    public func close() { handle.close() }

    /// Waits at most `timeout` until the peer has acknowledged every message sent and its
    /// latency has passed (a receiver hands a message over one latency after it was sent, and
    /// drops what it holds when the connection closes), then closes the connection.
    /// - Throws: ``SRTError/Code/timedOut`` when messages were still unacknowledged at the
    ///   deadline; ``SRTError/Code/cancelled``. The connection is closed either way.
    public func finish(timeout: Duration = .seconds(2)) throws(SRTError) {
        defer { handle.close() }
        let deadline = Deadline.after(timeout)
        while true {
            if let cancelled = handle.checkedCancellation("finish") { throw cancelled }
            var waiting: Int32 = 0
            var length = Int32(MemoryLayout<Int32>.size)
            guard srt_getsockflag(handle.id, SRTO_SNDDATA, &waiting, &length) == 0, waiting > 0 else { break }
            if deadline.hasPassed {
                throw SRTError.invalid(.timedOut, "finish: \(waiting) packets still unacknowledged at the deadline")
            }
            // libsrt signals no event for an acknowledgement: look again every 2 ms.
            sleep(until: deadline.capped(at: .milliseconds(2)))
        }
        var latency: Int32 = 0
        var length = Int32(MemoryLayout<Int32>.size)
        _ = srt_getsockflag(handle.id, SRTO_PEERLATENCY, &latency, &length)
        // The peer's latency (at most 60 s, as every latency) and a margin for its clock.
        sleep(until: deadline.capped(at: .milliseconds(Int64(max(0, latency)) + 20)))
        if let cancelled = handle.checkedCancellation("finish") { throw cancelled }
    }

    /// Sleeps until `deadline`, or until the socket is cancelled.
    private func sleep(until deadline: Deadline) {
        let interrupt = handle.interrupt
        if interrupt.readEnd >= 0 {
            _ = interrupt.waitUntilReadable(interrupt.readEnd, deadline: deadline)
        } else {
            let left = deadline.remaining.components
            usleep(UInt32(clamping: left.seconds * 1_000_000 + left.attoseconds / 1_000_000_000_000))
        }
    }

    // MARK: Messages

    /// Sends one message, waiting at most `timeout` for room in libsrt's send buffer.
    /// - Parameters:
    ///   - message: 1...``payloadSize`` bytes.
    ///   - timeout: the longest wait for buffer space.
    /// - Throws: ``SRTError/Code/invalidArgument`` for an empty message or one longer than
    ///   ``payloadSize``; ``SRTError/Code/timedOut``; ``SRTError/Code/cancelled``;
    ///   ``SRTError/Code/connectionClosed`` when the connection is gone.
    public func send(_ message: ArraySlice<UInt8>, timeout: Duration = .seconds(1)) throws(SRTError) {
        try send(message, deadline: .after(timeout))
    }

    /// Sends one message (see ``send(_:timeout:)-(ArraySlice<UInt8>,_)``).
    public func send(_ message: [UInt8], timeout: Duration = .seconds(1)) throws(SRTError) {
        try send(message[...], deadline: .after(timeout))
    }

    func send(_ message: ArraySlice<UInt8>, deadline: Deadline) throws(SRTError) {
        guard (1...payloadSize).contains(message.count) else {
            throw SRTError.invalid(.invalidArgument, "a message of \(message.count) bytes: 1...\(payloadSize) fit")
        }
        while true {
            if let cancelled = handle.checkedCancellation("send") { throw cancelled }
            let n = message.withUnsafeBytes { raw in
                srt_sendmsg2(handle.id, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count), nil)
            }
            if n >= 0 { return }
            guard SRT_ERRNO(rawValue: srt_getlasterror(nil)) == SRT_EASYNCSND else { throw SRTLibrary.lastError("send") }
            try handle.wait(for: SRT_EPOLL_OUT, deadline: deadline, "send")
        }
    }

    /// Waits at most `timeout` for the next message.
    /// - Returns: the message, or nil when none came in time.
    /// - Throws: ``SRTError/Code/connectionClosed`` when the peer closed the connection or it
    ///   broke; ``SRTError/Code/cancelled``.
    public func receive(timeout: Duration) throws(SRTError) -> [UInt8]? {
        guard let count = try receiveIntoBuffer(deadline: .after(timeout)) else { return nil }
        return Array(buffer[..<count])
    }

    /// One message into ``buffer``; nil at the deadline.
    func receiveIntoBuffer(deadline: Deadline) throws(SRTError) -> Int? {
        var idle = 0
        while true {
            if let cancelled = handle.checkedCancellation("receive") { throw cancelled }
            let n = buffer.withUnsafeMutableBytes { raw in
                srt_recvmsg2(handle.id, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count), nil)
            }
            if n > 0 { return Int(n) }
            if n == 0 { throw SRTError.invalid(.connectionClosed, "receive: the peer closed the connection") }
            guard SRT_ERRNO(rawValue: srt_getlasterror(nil)) == SRT_EASYNCRCV else { throw SRTLibrary.lastError("receive") }
            if idle > 0 { usleep(1000) }  // woken with nothing to read (libsrt may report early): no spin
            idle &+= 1  // at most once per millisecond until the deadline
            do throws(SRTError) {
                try handle.wait(for: SRT_EPOLL_IN, deadline: deadline, "receive")
            } catch where error.code == .timedOut {
                return nil
            }
        }
    }

    /// Calls `body` with the message just received into the buffer.
    func withReceived(_ count: Int, _ body: (ArraySlice<UInt8>) -> Void) { body(buffer[..<count]) }

    // MARK: Statistics

    /// The connection's counters, from libsrt (`srt_bstats`).
    public struct Statistics: Sendable, Hashable {
        /// Data packets sent, retransmissions included.
        public var packetsSent: Int64 = 0
        /// Data packets received.
        public var packetsReceived: Int64 = 0
        /// Packets found missing: those this side's peer reported lost of what it sent, plus
        /// those this side found missing of what it received (retransmitted or not).
        public var packetsLost: Int64 = 0
        /// Packets sent again.
        public var packetsRetransmitted: Int64 = 0
        /// Packets dropped as too late to play (either side).
        public var packetsDropped: Int64 = 0
        /// Payload bytes sent.
        public var bytesSent: Int64 = 0
        /// Payload bytes received.
        public var bytesReceived: Int64 = 0
        /// The smoothed round-trip time.
        public var roundTripTime: Duration = .zero

        public init() {}
    }

    /// The connection's counters so far (zero once it is closed).
    public var statistics: Statistics {
        var stats = SRT_TRACEBSTATS()
        var s = Statistics()
        guard srt_bstats(handle.id, &stats, 0) == 0 else { return s }
        s.packetsSent = stats.pktSentTotal
        s.packetsReceived = stats.pktRecvTotal
        s.packetsLost = Int64(stats.pktSndLossTotal) + Int64(stats.pktRcvLossTotal)
        s.packetsRetransmitted = Int64(stats.pktRetransTotal)
        s.packetsDropped = Int64(stats.pktSndDropTotal) + Int64(stats.pktRcvDropTotal)
        s.bytesSent = Int64(clamping: stats.byteSentTotal)
        s.bytesReceived = Int64(clamping: stats.byteRecvTotal)
        s.roundTripTime = .microseconds(Int64(stats.msRTT * 1000))
        return s
    }
}
