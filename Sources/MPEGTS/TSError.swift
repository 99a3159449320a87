import H264
import MediaSupport

/// The error of the `MPEGTS` module: a malformed or unsupported transport stream, a limit, a
/// caller's value the muxer cannot write, H.264 data the core rejects, or a failure of the UDP
/// transport (``TSUDPSocket``).
///
/// A member of the package's error family (`CodedError`, which supplies the reason, the source
/// location, equality by code and the factories): a ``Code`` (a struct over a private enum, so
/// codes can be added without breaking a caller's `switch`), one reference wide. A problem in
/// the H.264 data itself keeps the core's error in `underlying` under ``Code/h264``.
///
/// The demuxer (``TSParser``) throws none of these for damaged input: what it meets in a stream
/// (a continuity gap, a bad CRC, a PES too long) comes out as a ``TSEvent`` and parsing goes on.
public struct TSError: CodedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible, WrapsH264Error {
        enum Base: String, Hashable, Sendable {
            case truncated
            case invalidPacket
            case invalidSection
            case invalidPES
            case limitExceeded
            case unsupported
            case invalidArgument
            case h264
            case io
            case timedOut
            case cancelled
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// The input ended inside a packet, a section or a PES header.
        public static let truncated = Code(.truncated)
        /// A transport packet that breaks ISO/IEC 13818-1 2.4.3 (an adaptation field longer
        /// than the packet, no sync byte where one must be).
        public static let invalidPacket = Code(.invalidPacket)
        /// A PSI section (PAT, PMT) that breaks 2.4.4: a wrong `table_id`, a length past the
        /// section, a CRC that does not match.
        public static let invalidSection = Code(.invalidSection)
        /// A PES packet that breaks 2.4.3.6: no `packet_start_code_prefix`, a header longer
        /// than the packet, a `PES_packet_length` its payload does not match.
        public static let invalidPES = Code(.invalidPES)
        /// A documented limit was exceeded (a PES or access unit too large, too many streams).
        public static let limitExceeded = Code(.limitExceeded)
        /// Valid MPEG-TS this module does not handle (scrambled packets).
        public static let unsupported = Code(.unsupported)
        /// A caller-supplied value is invalid (a PID out of range or used twice, a sample
        /// without timestamps, a decoding time that goes back).
        public static let invalidArgument = Code(.invalidArgument)
        /// The H.264 data is malformed: the core's error in `underlying` says how.
        public static let h264 = Code(.h264)
        /// A socket call of ``TSUDPSocket`` failed (a port in use, a group the system cannot
        /// join, a name that does not resolve).
        public static let io = Code(.io)
        /// A ``TSUDPSocket`` send found the kernel's buffers full past its timeout.
        public static let timedOut = Code(.timedOut)
        /// ``TSUDPSocket/cancel()`` ended the operation.
        public static let cancelled = Code(.cancelled)

        public var description: String { base.rawValue }
    }

    /// The error's contents (read through `CodedError`'s accessors).
    public let _detail: ErrorDetail<Code>

    /// An error with these contents, made by `CodedError`'s initialiser.
    public init(_detail: ErrorDetail<Code>) { self._detail = _detail }
}

/// MPEG-TS's mapping of the shared reader's failure (`ByteReader<TSByteReads>` throws
/// ``TSError``): bytes missing are ``TSError/Code/truncated``, a count no read can satisfy is
/// ``TSError/Code/invalidSection`` (every counted read of this module is in a section or a
/// PES header, whose lengths the stream gives).
enum TSByteReads: ByteReadErrorMapping {
    static func failure(_ error: ByteReadError) -> TSError {
        switch error.kind {
        case .truncated: TSError.invalid(.truncated, error.description)
        case .outOfRange: TSError.invalid(.invalidSection, error.description)
        }
    }
}
