#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CSRT
import MediaSupport

/// An SRT listener in live mode: binds a local UDP port and accepts callers, each an
/// ``SRTSocket``, only those its owner allows (``Options/accept``, decided on the caller's stream
/// id and address during the handshake, before the connection exists) and at most
/// ``Options/maximumConnections`` at once.
///
/// ```swift
/// let listener = try SRTListener(port: 9000, options: .init(connection: SRTOptions(passphrase: "0123456789"),
///                                                          accept: { $0.streamID == "live/cam1" ? .accept : .reject }))
/// let caller = try listener.accept(timeout: .seconds(10))
/// var parser = TSParser()
/// while try caller.receive(into: &parser, timeout: .seconds(5)) != nil {
///     while let event = parser.next() { handle(event) }
/// }
/// ```
///
/// A refused caller is told why: the hook's refusal as code 1403 (forbidden), the limit as
/// 1402 (overload), a passphrase that differs by libsrt itself; each is counted in
/// ``statistics``. ``cancel()`` ends a waiting ``accept(timeout:)`` from any thread.
///
/// Memory: libsrt's listening socket and the callers waiting to be accepted (at most
/// ``Options/backlog``, each a connection's buffers, see ``SRTSocket``); the bookkeeping of at
/// most ``Options/maximumConnections`` + ``Options/backlog`` connections (a few bytes each).
public final class SRTListener: @unchecked Sendable {
    /// A caller asking to connect, as the hook sees it.
    public struct ConnectionRequest: Sendable, Hashable {
        /// The stream id the caller sent (empty when it sent none).
        public var streamID: String
        /// The caller's numeric address.
        public var remoteHost: String
        /// The caller's port.
        public var remotePort: Int

        public init(streamID: String, remoteHost: String, remotePort: Int) {
            self.streamID = streamID
            self.remoteHost = remoteHost
            self.remotePort = remotePort
        }
    }

    /// What the hook decides for a caller.
    public enum Decision: Sendable, Hashable {
        /// Let the caller connect.
        case accept
        /// Refuse it (the caller sees rejection code 1403, forbidden).
        case reject
    }

    /// The listener's settings.
    public struct Options: Sendable {
        /// The options of every accepted connection (the stream id is the caller's).
        public var connection: SRTOptions
        /// The most connections accepted and not yet closed, plus those waiting to be accepted;
        /// a caller beyond it is refused (code 1402, overload). Default 16.
        public var maximumConnections: Int
        /// The callers whose handshake is done, waiting for ``SRTListener/accept(timeout:)``
        /// (libsrt's backlog). Default 8.
        public var backlog: Int
        /// Decides, during the handshake, whether a caller may connect: called on libsrt's
        /// thread, once per caller; it must return quickly and not call back into the listener.
        /// The default accepts every caller (within the limit).
        public var accept: @Sendable (ConnectionRequest) -> Decision

        public init(connection: SRTOptions = SRTOptions(), maximumConnections: Int = 16, backlog: Int = 8,
                    accept: @escaping @Sendable (ConnectionRequest) -> Decision = { _ in .accept }) {
            self.connection = connection
            self.maximumConnections = maximumConnections
            self.backlog = backlog
            self.accept = accept
        }
    }

    /// The listener's counters.
    public struct Statistics: Sendable, Hashable {
        /// Connections handed out by ``SRTListener/accept(timeout:)``.
        public var accepted = 0
        /// Callers the hook refused.
        public var refused = 0
        /// Callers refused at the limit.
        public var refusedAtLimit = 0

        public init() {}
    }

    private let handle: SRTHandle
    private let gate: Gate
    private let gateReference: Unmanaged<Gate>
    /// The options in force.
    public let options: Options
    /// The local port (the one the system chose for port 0).
    public let localPort: Int

    /// Binds `address:port` and listens.
    /// - Parameters:
    ///   - address: a numeric local address: `127.0.0.1`, `0.0.0.0` (every IPv4 interface), `::`.
    ///   - port: 0...65535 (0: the system chooses, see ``localPort``).
    ///   - options: the connections' options, the limit, the hook.
    /// - Throws: ``SRTError/Code/invalidArgument`` for an address that is not numeric, a port
    ///   out of range, a limit below 1 or an option libsrt refuses; ``SRTError/Code/io`` when
    ///   the port is in use.
    public init(address: String = "0.0.0.0", port: Int, options: Options = Options()) throws(SRTError) {
        guard options.maximumConnections >= 1, options.backlog >= 1 else {
            throw SRTError.invalid(.invalidArgument, "maximumConnections and backlog must be at least 1")
        }
        let local: SocketAddress
        do {
            local = try SocketAddress.resolve(address, port: port, transport: .udp, numericOnly: true, passive: true)[0]
        } catch {
            throw SRTLibrary.mapped(error)
        }
        let handle = try SRTHandle()
        self.handle = handle
        try handle.apply(options.connection)
        guard SRTHandle.withAddress(local, { srt_bind(handle.id, $0, $1) }) == 0 else {
            throw SRTLibrary.lastError("bind \(address):\(port)")
        }
        let gate = Gate(options: options)
        let gateReference = Unmanaged.passRetained(gate)
        guard srt_listen_callback(handle.id, { opaque, socket, _, peer, streamID in
            guard let opaque else { return -1 }
            return Unmanaged<Gate>.fromOpaque(opaque).takeUnretainedValue().decide(socket, peer, streamID)
        }, gateReference.toOpaque()) == 0 else {
            handle.close()
            gateReference.release()
            throw SRTLibrary.lastError("set the listener's hook")
        }
        guard srt_listen(handle.id, Int32(clamping: options.backlog)) == 0 else {
            let error = SRTLibrary.lastError("listen on \(address):\(port)")
            handle.close()
            gateReference.release()
            throw error
        }
        self.gate = gate
        self.gateReference = gateReference
        self.options = options
        var bound = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_getsockname(handle.id, $0, &length) }
        }
        localPort = rc == 0 ? withUnsafePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0, length: socklen_t(length)).port }
        } : port
    }

    deinit {
        // Closed first: once srt_close has removed the listener, libsrt calls the hook no more
        // (it calls it holding the lock that removal takes).
        handle.close()
        gateReference.release()
    }

    /// The counters so far.
    public var statistics: Statistics { gate.state.withLock { $0.statistics } }

    /// Connections accepted and not yet closed.
    public var openConnections: Int { gate.state.withLock { $0.open.count } }

    /// Ends a waiting ``accept(timeout:)`` from any thread, and every later one, with
    /// ``SRTError/Code/cancelled``.
    public func cancel() { handle.interrupt.fire() }

    /// Stops listening (idempotent, from any thread): callers are no longer accepted; the
    /// connections accepted stay open.
    public func close() { handle.close() }

    /// Waits at most `timeout` (nil: without a limit) for the next caller the hook allowed.
    /// - Returns: the connection, with the caller's stream id.
    /// - Throws: ``SRTError/Code/timedOut``, ``SRTError/Code/cancelled``,
    ///   ``SRTError/Code/connectionClosed`` after ``close()``.
    public func accept(timeout: Duration?) throws(SRTError) -> SRTSocket {
        let deadline = timeout.map { Deadline.after($0) }
        while true {
            if let cancelled = handle.checkedCancellation("accept") { throw cancelled }
            var peer = sockaddr_storage()
            var length = Int32(MemoryLayout<sockaddr_storage>.size)
            let id = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_accept(handle.id, $0, &length) }
            }
            if id != csrt_invalid_socket() {
                let remote = withUnsafePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0, length: socklen_t(length)) }
                }
                let accepted = try SRTHandle(adopting: id, retained: false)
                gate.state.withLock { s in
                    s.pending.remove(id)
                    s.open.insert(id)
                    s.statistics.accepted &+= 1  // one per connection
                }
                let gate = self.gate
                accepted.onClose = { gate.state.withLock { _ = $0.open.remove(id) } }
                return SRTSocket(handle: accepted, streamID: accepted.string(SRTO_STREAMID), remote: remote,
                                 payloadSize: options.connection.payloadSize)
            }
            guard SRT_ERRNO(rawValue: srt_getlasterror(nil)) == SRT_EASYNCRCV else { throw SRTLibrary.lastError("accept") }
            try handle.wait(for: SRT_EPOLL_IN, deadline: deadline, "accept")
        }
    }

    /// What libsrt's thread and the listener share: the hook, the connections counted against
    /// the limit.
    final class Gate: @unchecked Sendable {
        struct State {
            /// Callers the hook let in, not yet accepted (a handshake may still fail after it:
            /// libsrt checks the passphrase later, so each is looked at again before counting).
            var pending: Set<SRTSOCKET> = []
            /// Accepted and not yet closed.
            var open: Set<SRTSOCKET> = []
            var statistics = Statistics()
        }
        let state = ThreadLock(State())
        let options: Options

        init(options: Options) { self.options = options }

        /// The hook libsrt calls during a caller's handshake: 0 lets it in, -1 refuses it with
        /// the reason set on the socket.
        func decide(_ socket: SRTSOCKET, _ peer: UnsafePointer<sockaddr>?, _ streamID: UnsafePointer<CChar>?) -> Int32 {
            // The peer's address is as long as its family's structure (libsrt passes no length).
            let remote = peer.map { p in
                SocketAddress(p, length: socklen_t(p.pointee.sa_family == sa_family_t(AF_INET6)
                                                   ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size))
            }
            let request = ConnectionRequest(streamID: streamID.map { String(cString: $0) } ?? "",
                                            remoteHost: remote?.host ?? "", remotePort: remote?.port ?? 0)
            // Callers let in whose handshake failed since (or that closed before being
            // accepted) no longer count.
            let stale = state.withLock { $0.pending }.filter {
                let status = srt_getsockstate($0)
                return status != SRTS_CONNECTED && status != SRTS_CONNECTING && status != SRTS_OPENED && status != SRTS_INIT
            }
            let full = state.withLock { s -> Bool in
                s.pending.subtract(stale)
                guard s.pending.count &+ s.open.count < options.maximumConnections else {
                    s.statistics.refusedAtLimit &+= 1
                    return true
                }
                return false
            }
            if full {
                srt_setrejectreason(socket, SRT_REJX_OVERLOAD)
                return -1
            }
            guard options.accept(request) == .accept else {
                state.withLock { $0.statistics.refused &+= 1 }
                srt_setrejectreason(socket, SRT_REJX_FORBIDDEN)
                return -1
            }
            let admitted = state.withLock { s -> Bool in
                guard s.pending.count &+ s.open.count < options.maximumConnections else {
                    s.statistics.refusedAtLimit &+= 1
                    return false
                }
                s.pending.insert(socket)
                return true
            }
            if !admitted { srt_setrejectreason(socket, SRT_REJX_OVERLOAD) }
            return admitted ? 0 : -1
        }
    }
}
