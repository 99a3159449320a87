import FLV
import H264

/// The error type of the RTMP module: the network, the server's answers, the protocol, limits.
///
/// As `H264Error` does, it carries a ``Code`` (a struct over a private enum, so codes can be
/// added without breaking a caller's `switch`), a human reason and where it was raised; two
/// errors are equal when their codes are. An FLV or H.264 error behind it (a sample that cannot
/// be framed) is kept in ``underlying``.
public struct RTMPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Base: String, Hashable, Sendable {
            case connectionRefused
            case timedOut
            case connectionRejected
            case connectionClosed
            case protocolViolation
            case limitExceeded
            case invalidArgument
            case io
            case cancelled
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// The remote host refused the connection (nothing listens on the port).
        public static let connectionRefused = Code(.connectionRefused)
        /// An operation did not complete within its deadline, whatever the server sent.
        public static let timedOut = Code(.timedOut)
        /// The server refused the request (an unknown application, a rejected stream name).
        public static let connectionRejected = Code(.connectionRejected)
        /// The peer closed the connection while more was expected.
        public static let connectionClosed = Code(.connectionClosed)
        /// The peer broke the rules of the protocol (a malformed chunk, handshake or reply).
        public static let protocolViolation = Code(.protocolViolation)
        /// The peer went past a documented limit (message size, chunk streams, buffered bytes).
        public static let limitExceeded = Code(.limitExceeded)
        /// A caller-supplied argument is invalid (a URL, a time, a sample that cannot be sent).
        public static let invalidArgument = Code(.invalidArgument)
        /// A socket call failed (a name that does not resolve, another system error).
        public static let io = Code(.io)
        /// The publisher was cancelled (``RTMPPublisher/cancel()``, or the cancellation of the
        /// task awaiting an ``AsyncRTMPPublisher`` call): the operation in progress stopped and
        /// the connection was closed without a goodbye.
        public static let cancelled = Code(.cancelled)

        public var description: String { base.rawValue }
    }

    private let detail: ErrorDetail<Code, any Error>

    /// What kind of failure this is.
    public var code: Code { detail.code }
    /// A human-readable explanation.
    public var reason: String { detail.reason }
    /// The FLV or core error behind this one, if any.
    public var underlying: (any Error)? { detail.underlying }
    /// The source file that raised the error.
    public var file: String { detail.file }
    /// The source line that raised the error.
    public var line: Int { detail.line }

    /// Creates an error. Prefer the static factories, which keep error paths out of hot code.
    public init(_ code: Code, _ reason: String, underlying: (any Error)? = nil, file: String = #fileID, line: Int = #line) {
        detail = ErrorDetail(code, reason, underlying: underlying, file: file, line: line)
    }

    public var description: String { "RTMPError.\(code): \(reason)" }

    public static func == (lhs: RTMPError, rhs: RTMPError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension RTMPError {
    @inline(never)
    static func invalid(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) -> RTMPError {
        RTMPError(code, reason, file: file, line: line)
    }

    /// A sample or metadata that cannot be sent (an FLV framing error).
    @inline(never)
    static func argument(_ error: FLVError, file: String = #fileID, line: Int = #line) -> RTMPError {
        RTMPError(.invalidArgument, "\(error.code): \(error.reason)", underlying: error, file: file, line: line)
    }
}
