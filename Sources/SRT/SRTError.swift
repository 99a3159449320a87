import H264

/// The error of the `SRT` module: a connection that could not be made or was lost, a peer's
/// refusal, a deadline, a cancellation, a caller's value libsrt refuses.
///
/// A member of the package's error family (`CodedError`, which supplies the reason, the source
/// location, equality by code and the factories): a ``Code`` (a struct over a private enum, so
/// codes can be added without breaking a caller's `switch`), one reference wide. libsrt's own
/// failure (its `SRT_ERRNO` and the system's `errno`) is named in the reason; a refusal's
/// reason code (libsrt's `SRT_REJ_*`, or a listener's `SRT_REJX_*` such as 1403) too.
public struct SRTError: CodedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Base: String, Hashable, Sendable {
            case timedOut
            case cancelled
            case connectionRejected
            case passphraseMismatch
            case connectionClosed
            case invalidArgument
            case limitExceeded
            case io
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// An operation did not complete within its deadline, whatever the peer did (a caller
        /// whose listener never answers, a peer that connects and sends nothing).
        public static let timedOut = Code(.timedOut)
        /// ``SRTSocket/cancel()`` or ``SRTListener/cancel()`` ended the operation (from any
        /// thread).
        public static let cancelled = Code(.cancelled)
        /// The peer refused the connection: a listener's hook or its limit
        /// (``SRTListener/Options/maximumConnections``), a full backlog, a version or mode it
        /// does not accept. The reason carries the rejection code.
        public static let connectionRejected = Code(.connectionRejected)
        /// The connection was refused because the passphrases differ, or only one side has one
        /// (libsrt's `SRT_REJ_BADSECRET`, `SRT_REJ_UNSECURE`).
        public static let passphraseMismatch = Code(.passphraseMismatch)
        /// The peer closed the connection, or it broke (no answer for libsrt's peer idle time).
        public static let connectionClosed = Code(.connectionClosed)
        /// A caller's value libsrt or this module refuses (a passphrase of the wrong length, a
        /// port out of range, a message longer than the payload size, an address that is not
        /// numeric where one must be).
        public static let invalidArgument = Code(.invalidArgument)
        /// A documented bound was reached.
        public static let limitExceeded = Code(.limitExceeded)
        /// libsrt or the system failed otherwise (a port in use, no resources).
        public static let io = Code(.io)

        public var description: String { base.rawValue }
    }

    /// The error's contents (read through `CodedError`'s accessors).
    public let _detail: ErrorDetail<Code>

    /// An error with these contents, made by `CodedError`'s initialiser.
    public init(_detail: ErrorDetail<Code>) { self._detail = _detail }
}
