#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CSRT
import MediaSupport

/// One libsrt socket in non-blocking mode, with the epoll its waits use and the ``Interrupt``
/// that ends them: the plumbing under ``SRTSocket`` and ``SRTListener``, written once.
///
/// Every wait is `srt_epoll_wait` on the socket and on the interrupt's pipe (a system
/// descriptor libsrt's epoll watches beside its own sockets), with the milliseconds left to a
/// ``Deadline``: a cancellation from any thread wakes it within a few milliseconds (measured:
/// 2 ms), and a deadline holds whatever the peer does (silence, a trickle). libsrt also wakes a
/// blocked call when another thread closes its socket (measured: at once, "Connection was
/// broken"), but a socket id closed by one thread may be used by another meanwhile: the pipe
/// needs no such care.
///
/// Memory: libsrt's socket (its buffers: ``SRTSocket``) and epoll, the interrupt's two
/// descriptors.
final class SRTHandle: @unchecked Sendable {
    /// libsrt's socket id.
    let id: SRTSOCKET
    /// Fired by `cancel()` and `close()` (from any thread).
    let interrupt = Interrupt()
    private let epoll: Int32
    /// The events the epoll watches on ``id`` (changed by ``wait(for:deadline:_:)``; used by one
    /// thread at a time).
    private var watched: Int32 = 0
    private let state = ThreadLock(false)  // closed
    /// Called once when the socket closes (an accepted socket leaves its listener's count).
    var onClose: (@Sendable () -> Void)?

    /// A new socket (`srt_create_socket`), non-blocking, in live mode.
    convenience init() throws(SRTError) {
        try SRTLibrary.retain()
        let id = srt_create_socket()
        guard id != csrt_invalid_socket() else {
            let error = SRTLibrary.lastError("srt_create_socket")
            SRTLibrary.release()
            throw error
        }
        try self.init(adopting: id, retained: true)
        var no: Int32 = 0
        try set(SRTO_RCVSYN, &no, "non-blocking receive")
        try set(SRTO_SNDSYN, &no, "non-blocking send")
        var live = Int32(SRTT_LIVE.rawValue)
        try set(SRTO_TRANSTYPE, &live, "live mode")
    }

    /// Takes over `id` (an accepted socket, which inherits the listener's options). With
    /// `retained` false, counts a user of libsrt first.
    init(adopting id: SRTSOCKET, retained: Bool) throws(SRTError) {
        if !retained { try SRTLibrary.retain() }
        self.id = id
        epoll = srt_epoll_create()
        guard epoll >= 0 else {
            let error = SRTLibrary.lastError("srt_epoll_create")
            srt_close(id)
            SRTLibrary.release()
            throw error
        }
        if interrupt.readEnd >= 0 {
            var events = Int32(SRT_EPOLL_IN.rawValue)
            _ = srt_epoll_add_ssock(epoll, interrupt.readEnd, &events)
        }
    }

    deinit { close() }

    /// Closes the socket and its epoll (idempotent, from any thread): a wait in progress on
    /// another thread ends, cancelled.
    func close() {
        interrupt.fire()
        let first = state.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        srt_epoll_release(epoll)
        srt_close(id)
        SRTLibrary.release()
        onClose?()
    }

    /// Sets an option before the socket connects or listens.
    func set(_ option: SRT_SOCKOPT, _ value: UnsafeRawPointer, length: Int = 4, _ what: String) throws(SRTError) {
        guard srt_setsockflag(id, option, value, Int32(length)) == 0 else { throw SRTLibrary.lastError("set \(what)") }
    }

    /// Sets a string option (a stream id, a passphrase).
    func set(_ option: SRT_SOCKOPT, string: String, _ what: String) throws(SRTError) {
        var bytes = Array(string.utf8)
        bytes.append(0)  // a valid pointer even for an empty string; the length leaves it out
        let rc = bytes.withUnsafeBytes { srt_setsockflag(id, option, $0.baseAddress, Int32($0.count - 1)) }
        guard rc == 0 else { throw SRTLibrary.lastError("set \(what)") }
    }

    /// Sets the options every socket of a connection takes (a caller's before it connects, a
    /// listener's before it listens, which its accepted sockets inherit).
    func apply(_ options: SRTOptions) throws(SRTError) {
        try options.validate()
        // 0...60 s (validated): fits an Int32 of milliseconds.
        var latency = Int32(options.latency.components.seconds * 1000
                            + options.latency.components.attoseconds / 1_000_000_000_000_000)
        try set(SRTO_LATENCY, &latency, "latency")
        var timed: Int32 = options.timestampBasedDelivery ? 1 : 0
        try set(SRTO_TSBPDMODE, &timed, "timestamp-based delivery")
        var payload = Int32(options.payloadSize)
        try set(SRTO_PAYLOADSIZE, &payload, "payload size")
        if let passphrase = options.passphrase {
            var keyLength = Int32(options.keyLength)
            try set(SRTO_PBKEYLEN, &keyLength, "key length")
            try set(SRTO_PASSPHRASE, string: passphrase, "passphrase")
        }
    }

    /// The value of a string option (`SRTO_STREAMID`).
    func string(_ option: SRT_SOCKOPT) -> String? {
        var buffer = [UInt8](repeating: 0, count: SRTOptions.maximumStreamIDLength + 1)
        var length = Int32(buffer.count)
        guard srt_getsockflag(id, option, &buffer, &length) == 0, length > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(min(length, Int32(buffer.count)))), as: UTF8.self)
    }

    /// libsrt's state of the socket.
    var status: SRT_SOCKSTATUS { srt_getsockstate(id) }

    /// Waits until the socket is ready for `events` (`SRT_EPOLL_IN`, `SRT_EPOLL_OUT`; an error
    /// or the end of the connection counts as ready: the call that follows reports it), until
    /// `deadline` (nil: without a limit), or until the interrupt fires.
    /// - Throws: ``SRTError/Code/timedOut``, ``SRTError/Code/cancelled``, or libsrt's failure.
    func wait(for events: SRT_EPOLL_OPT, deadline: Deadline?, _ what: @autoclosure () -> String) throws(SRTError) {
        let wanted = Int32(events.rawValue | SRT_EPOLL_ERR.rawValue)
        if wanted != watched {
            var e = wanted
            let rc = watched == 0 ? srt_epoll_add_usock(epoll, id, &e) : srt_epoll_update_usock(epoll, id, &e)
            guard rc == 0 else { throw checkedCancellation(what()) ?? SRTLibrary.lastError("epoll (\(what()))") }
            watched = wanted
        }
        while true {
            if let cancelled = checkedCancellation(what()) { throw cancelled }
            // Without the pipe (it could not be made), slices of 50 ms between checks of the flag.
            var timeout = Int64(Deadline.pollTimeout(deadline))
            if interrupt.readEnd < 0 { timeout = timeout < 0 ? 50 : min(timeout, 50) }
            var read = (SRTSOCKET(0), SRTSOCKET(0)), write = (SRTSOCKET(0), SRTSOCKET(0))
            var system = (SYSSOCKET(0), SYSSOCKET(0))
            var readCount: Int32 = 2, writeCount: Int32 = 2, systemCount: Int32 = 2
            let rc = withUnsafeMutablePointer(to: &read) { r in
                withUnsafeMutablePointer(to: &write) { w in
                    withUnsafeMutablePointer(to: &system) { s in
                        r.withMemoryRebound(to: SRTSOCKET.self, capacity: 2) { r in
                            w.withMemoryRebound(to: SRTSOCKET.self, capacity: 2) { w in
                                s.withMemoryRebound(to: SYSSOCKET.self, capacity: 2) { s in
                                    srt_epoll_wait(epoll, r, &readCount, w, &writeCount, timeout, s, &systemCount, nil, nil)
                                }
                            }
                        }
                    }
                }
            }
            if let cancelled = checkedCancellation(what()) { throw cancelled }
            if rc > 0 && (readCount > 0 || writeCount > 0) { return }
            if rc < 0 && SRT_ERRNO(rawValue: srt_getlasterror(nil)) != SRT_ETIMEOUT {
                throw SRTLibrary.lastError("wait (\(what()))")
            }
            if let deadline, deadline.hasPassed { throw SRTError.invalid(.timedOut, "\(what()) timed out") }
        }
    }

    /// The cancellation error once the interrupt has fired (nil before).
    func checkedCancellation(_ what: @autoclosure () -> String) -> SRTError? {
        interrupt.isFired ? SRTError.invalid(.cancelled, "\(what()) was cancelled") : nil
    }

    /// A numeric socket address as libsrt takes it.
    static func withAddress<R>(_ address: SocketAddress, _ body: (UnsafePointer<sockaddr>, Int32) -> R) -> R {
        address.withSocketAddress { body($0, Int32($1)) }
    }
}
