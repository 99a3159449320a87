import H264
import MediaSupport
import RTP

/// The error type of the RTSP module: the network, the server's answers, the protocol, limits.
///
/// A member of the package's error family (`CodedError`: a ``Code`` over a private enum, so
/// codes can be added without breaking a caller's `switch`; one reference wide; equal when the
/// codes are). An `RTPError` met while taking the stream apart (the SDP's
/// `sprop-parameter-sets`, the depacketiser's settings) is kept in `underlying`, under
/// ``Code/invalidResponse``.
///
/// A reason never contains the credentials: URLs are printed without their user information
/// and `Authorization` headers are never quoted.
public struct RTSPError: CodedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible, WrapsH264Error {
        enum Base: String, Hashable, Sendable {
            case connectionRefused
            case timedOut
            case connectionClosed
            case cancelled
            case io
            case invalidArgument
            case invalidResponse
            case limitExceeded
            case requestFailed
            case unauthorized
            case unsupported
            case h264
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// The server refused the connection (nothing listens on the port).
        public static let connectionRefused = Code(.connectionRefused)
        /// A request got no whole response within its deadline, or the stream fell silent for
        /// longer than ``RTSPClient/Options/silenceTimeout``, whatever the server sent.
        public static let timedOut = Code(.timedOut)
        /// The server closed the connection while more was expected.
        public static let connectionClosed = Code(.connectionClosed)
        /// ``RTSPClient/cancel()`` was called (from any thread), or the task iterating an
        /// ``RTSPStream`` was cancelled.
        public static let cancelled = Code(.cancelled)
        /// A socket call failed (a name that does not resolve, a port in use, another system
        /// error).
        public static let io = Code(.io)
        /// A caller's argument is invalid: a URL, a track, an option.
        public static let invalidArgument = Code(.invalidArgument)
        /// The server broke RTSP's rules: a malformed status line or header, a
        /// control URL that does not parse, an SDP without a media section. (Frames on
        /// interleaved channels never set up are counted and ignored, not errors.)
        public static let invalidResponse = Code(.invalidResponse)
        /// The server went past a documented bound (``RTSPClient/Options/limits``): a status
        /// line or header too long, too many headers, a body or interleaved frame too large.
        public static let limitExceeded = Code(.limitExceeded)
        /// The server answered a request with a status other than 2xx (and other than 401
        /// when credentials could answer it): the reason names the method and the status.
        public static let requestFailed = Code(.requestFailed)
        /// The server asked for credentials (401) that were not given, or refused those given.
        public static let unauthorized = Code(.unauthorized)
        /// The server asked for what the client does not do: an authentication scheme other
        /// than Basic and Digest (MD5, SHA-256), a transport it cannot offer.
        public static let unsupported = Code(.unsupported)
        /// The H.264 core refused the stream: the `H264Error` in `underlying` says why.
        public static let h264 = Code(.h264)

        public var description: String { base.rawValue }
    }

    /// The error's contents (read through `CodedError`'s accessors).
    public let _detail: ErrorDetail<Code>

    /// An error with these contents, made by `CodedError`'s initialiser.
    public init(_detail: ErrorDetail<Code>) { self._detail = _detail }
}

/// RTSP's codes for the socket layer's failures (a timeout, a cancellation, a refused or
/// closed connection, a bad argument; any other system failure is ``RTSPError/Code/io``).
extension RTSPError.Code: SocketErrorCodes {}

extension RTSPError: SocketErrorMapping {
    /// The socket layer's failure mapped by MediaSupport's one mapping (`RTSPError(error)`,
    /// `RTSPError.mapping { ... }`), the reason the socket's.
    package init(socketErrorCode code: Code, reason: String, file: String, line: Int) {
        self.init(code, reason, file: file, line: line)
    }
}

extension RTSPError {

    /// An RTP error met on the way (sockets of a UDP session, the SDP's parameter sets), mapped:
    /// RTP's `io` and `timedOut` keep their meaning; anything else is the server's stream.
    init(_ error: RTPError, _ context: String, file: String = #fileID, line: Int = #line) {
        let code: Code
        switch error.code {
        case .io: code = .io
        case .timedOut: code = .timedOut
        case .invalidArgument: code = .invalidArgument
        default: code = .invalidResponse
        }
        self.init(code, "\(context): \(error.reason)", underlying: error, file: file, line: line)
    }
}
