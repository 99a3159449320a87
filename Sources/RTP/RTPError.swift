import H264

/// The error of the `RTP` module: a packet that breaks RFC 3550 or RFC 6184, a limit, a
/// configuration or session description it cannot take, or a socket that fails.
///
/// A member of the package's error family (`CodedError`, which supplies the reason, the source
/// location, equality by code and the factories): a ``Code`` (a struct over a private enum, so
/// codes can be added without breaking a caller's `switch`), one reference wide; two errors are
/// equal when their codes are. An error of the H.264 core met on the way (a parameter set of
/// `sprop-parameter-sets` whose NAL unit header or SPS does not parse) keeps the core's
/// `H264Error` in `underlying` under ``Code/h264``.
///
/// It is what an ``RTPDatagramSource`` throws, and what ``RTPReceiver/errors`` and the reasons
/// of ``RTPDepacketizerEvent/nalUnitDropped(timestamp:nalUnitType:fragmentsReceived:reason:)`` hold.
public struct RTPError: CodedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible, WrapsH264Error {
        enum Base: String, Hashable, Sendable {
            case truncated
            case invalidPacket
            case unsupported
            case limitExceeded
            case nalUnitTooLarge
            case missingParameterSet
            case invalidArgument
            case io
            case timedOut
            case h264
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// A packet (its RTP header, CSRC list or extension, a STAP-A, an FU-A, an RTCP packet)
        /// ended before what it announces; an FU-A NAL unit whose fragments were lost.
        public static let truncated = Code(.truncated)
        /// A packet that breaks RFC 3550 or RFC 6184: a version other than 2, bad padding, a
        /// payload header with the F bit or NAL unit type 0, a STAP-A holding an empty or
        /// aggregated unit, an FU-A with the start and end bits or the reserved bit set; or
        /// FU-A fragments that do not continue each other.
        public static let invalidPacket = Code(.invalidPacket)
        /// Valid RTP this receiver does not take: another payload type or SSRC than the one
        /// received, the interleaved mode's structures (STAP-B, MTAP, FU-B), an FU-A or STAP-A
        /// under packetization-mode 0.
        public static let unsupported = Code(.unsupported)
        /// A documented limit was exceeded (a packet, an access unit, the NAL units of one
        /// access unit, an RTCP compound packet, `sprop-parameter-sets`).
        public static let limitExceeded = Code(.limitExceeded)
        /// In packetization-mode 0, a NAL unit larger than one packet's payload (mode 0 cannot
        /// fragment).
        public static let nalUnitTooLarge = Code(.nalUnitTooLarge)
        /// Format parameters asked of NAL units without an SPS.
        public static let missingParameterSet = Code(.missingParameterSet)
        /// A caller-supplied value or text is invalid: a configuration, a port or address, a
        /// sample without timestamps, a malformed SDP, `fmtp` parameter or Base64 text.
        public static let invalidArgument = Code(.invalidArgument)
        /// A system call on a socket failed (the reason carries the system's message), or a
        /// name did not resolve.
        public static let io = Code(.io)
        /// A send could not complete before its deadline (the socket's buffers stayed full).
        public static let timedOut = Code(.timedOut)
        /// The H.264 core refused something on the way: the `H264Error` in `underlying` says
        /// what.
        public static let h264 = Code(.h264)

        public var description: String { base.rawValue }
    }

    /// The error's contents (read through `CodedError`'s accessors).
    public let _detail: ErrorDetail<Code>

    /// An error with these contents, made by `CodedError`'s initialiser.
    public init(_detail: ErrorDetail<Code>) { self._detail = _detail }
}
