import FLV
import H264

/// The error type of the RTMP module: the network, the server's answers, the protocol, limits.
///
/// A member of the package's error family (`CodedError`, which supplies the reason, the source
/// location, equality by code and the factories): a ``Code`` (a struct over a private enum, so
/// codes can be added without breaking a caller's `switch`), one reference wide; two errors are
/// equal when their codes are. The error behind it is kept in `underlying`: the core's
/// `H264Error` under ``Code/h264``, an `FLVError` under ``Code/invalidArgument`` (a sample that
/// cannot be framed) or ``Code/protocolViolation`` (a malformed AMF0 command from the server).
public struct RTMPError: CodedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible, WrapsH264Error {
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
            case h264
            case unsupported
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
        /// The H.264 core refused the stream (an Annex-B stream without an access unit): the
        /// `H264Error` in `underlying` says why.
        public static let h264 = Code(.h264)

        /// The peer sent what the library does not handle: a publisher's video in a codec
        /// other than H.264 (a legacy `CodecID` other than 7, an enhanced RTMP FourCC other than
        /// `avc1`, such as `hvc1` or `av01`), refused rather than misread.
        public static let unsupported = Code(.unsupported)

        public var description: String { base.rawValue }
    }

    /// The error's contents (read through `CodedError`'s accessors).
    public let _detail: ErrorDetail<Code>

    /// An error with these contents, made by `CodedError`'s initialiser.
    public init(_detail: ErrorDetail<Code>) { self._detail = _detail }
}
