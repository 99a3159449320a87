internal import CSRT
import MediaSupport

/// libsrt's process-wide state: `srt_startup` when the first socket or listener of the process
/// is made, `srt_cleanup` when the last is released (reference-counted, so sockets made and
/// released by several threads and libraries share one start), and its logging silenced (it
/// writes to stderr by default; errors reach callers as ``SRTError`` values).
enum SRTLibrary {
    private static let users = ThreadLock(0)

    /// Counts one more user, starting libsrt for the first.
    static func retain() throws(SRTError) {
        try users.withLock { (count: inout Int) throws(SRTError) in
            if count == 0 {
                guard srt_startup() >= 0 else { throw lastError("srt_startup") }
                csrt_silence_logging()
            }
            count &+= 1  // one per live socket: far below Int.max
        }
    }

    /// Counts one user less, cleaning libsrt up after the last.
    static func release() {
        users.withLock { count in
            count &-= 1  // paired with a retain: never below 0
            if count == 0 { _ = srt_cleanup() }
        }
    }

    /// libsrt's last error on this thread as an ``SRTError``, the one place the module maps it:
    /// a timeout (`SRT_ETIMEOUT`, `SRT_ENOSERVER`) is ``SRTError/Code/timedOut``; a lost or
    /// missing connection ``SRTError/Code/connectionClosed``; a refused handshake
    /// ``SRTError/Code/connectionRejected``; a bad argument (an option's value, a message too
    /// long) ``SRTError/Code/invalidArgument``; anything else ``SRTError/Code/io``.
    @inline(never)
    static func lastError(_ what: String, file: String = #fileID, line: Int = #line) -> SRTError {
        var systemError: Int32 = 0
        let code = srt_getlasterror(&systemError)
        let text = srt_getlasterror_str().map { String(cString: $0) } ?? "unknown error"
        let kind: SRTError.Code
        switch SRT_ERRNO(rawValue: code) {
        case SRT_ETIMEOUT, SRT_ENOSERVER: kind = .timedOut
        case SRT_ECONNLOST, SRT_ENOCONN, SRT_EINVSOCK, SRT_ESCLOSED: kind = .connectionClosed
        case SRT_ECONNREJ: kind = .connectionRejected
        case SRT_EINVPARAM, SRT_ELARGEMSG, SRT_EINVOP, SRT_EBOUNDSOCK, SRT_ECONNSOCK, SRT_EINVALMSGAPI: kind = .invalidArgument
        default: kind = .io
        }
        return SRTError(kind, "\(what): \(text) (SRT error \(code))", file: file, line: line)
    }

    /// The failure of a connection libsrt refused, from its rejection reason
    /// (`srt_getrejectreason`): passphrases that differ are ``SRTError/Code/passphraseMismatch``,
    /// a handshake that timed out ``SRTError/Code/timedOut``, any other refusal
    /// ``SRTError/Code/connectionRejected`` with the code in the reason (1402: the listener's
    /// limit, 1403: its hook refused).
    @inline(never)
    static func rejection(of socket: SRTSOCKET, _ what: String, file: String = #fileID, line: Int = #line) -> SRTError {
        let reason = srt_getrejectreason(socket)
        let text: String
        if reason >= SRT_REJC_PREDEFINED {
            text = "rejected by the peer with code \(reason)" + (Self.predefinedNames[reason].map { " (\($0))" } ?? "")
        } else {
            text = srt_rejectreason_str(reason).map { String(cString: $0) } ?? "rejected (\(reason))"
        }
        let kind: SRTError.Code
        switch SRT_REJECT_REASON(rawValue: UInt32(clamping: max(0, reason))) {
        case SRT_REJ_BADSECRET, SRT_REJ_UNSECURE: kind = .passphraseMismatch
        case SRT_REJ_TIMEOUT: kind = .timedOut
        case SRT_REJ_CLOSE: kind = .cancelled
        default: kind = .connectionRejected
        }
        return SRTError(kind, "\(what): \(text)", file: file, line: line)
    }

    private static let predefinedNames: [Int32: String] = [
        1400: "bad request", 1401: "unauthorized", 1402: "overload", 1403: "forbidden", 1404: "not found",
        1405: "bad mode", 1406: "unacceptable", 1409: "conflict",
    ]

    /// A socket layer failure (an address that does not resolve) as an ``SRTError``.
    @inline(never)
    static func mapped(_ error: SocketError, file: String = #fileID, line: Int = #line) -> SRTError {
        let kind: SRTError.Code
        switch error.kind {
        case .invalidArgument: kind = .invalidArgument
        case .timedOut: kind = .timedOut
        case .cancelled: kind = .cancelled
        case .connectionClosed, .connectionRefused: kind = .connectionClosed
        case .system: kind = .io
        }
        return SRTError(kind, error.reason, file: file, line: line)
    }
}
