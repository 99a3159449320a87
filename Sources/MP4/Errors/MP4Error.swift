import H264

/// The error of the `MP4` module: a ``Code`` saying what kind of failure it is, a human reason,
/// and where it was raised.
///
/// A member of the package's error family (`CodedError`, which supplies the reason, the source
/// location, equality by code and the factories): codes are a struct over a private enum, so
/// codes can be added without breaking code that switches over the ones it knows; two errors
/// are equal when their codes are equal; the value is one reference wide. Errors of the H.264
/// core met while reading or writing a file keep their `H264Error` in `underlying`: code
/// ``Code/h264`` (a NAL unit too long for its length field, a sample whose lengths do not add
/// up), or ``Code/invalidDecoderConfiguration`` for an avcC record that does not parse or
/// cannot be made.
public struct MP4Error: CodedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible, WrapsH264Error {
        enum Base: String, Hashable, Sendable {
            case truncated
            case invalidBox
            case invalidSampleTable
            case limitExceeded
            case unsupported
            case missingBox
            case invalidDecoderConfiguration
            case invalidArgument
            case io
            case h264
            case noStartPoint
            case timescaleMismatch
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// The file (or a box) ended before a structure was complete.
        public static let truncated = Code(.truncated)
        /// A box is malformed: a size below its header, a size past its parent, a size 0 below
        /// the top level, a field outside its range, a version this reader does not know.
        public static let invalidBox = Code(.invalidBox)
        /// The sample tables contradict each other or the file: counts that disagree, a chunk
        /// or sample outside the file, `first_chunk` out of order, timestamps that overflow.
        public static let invalidSampleTable = Code(.invalidSampleTable)
        /// A documented limit was exceeded (nesting depth, a count that the file's size cannot
        /// hold).
        public static let limitExceeded = Code(.limitExceeded)
        /// Valid MP4 this module does not handle (another codec, an encrypted track).
        public static let unsupported = Code(.unsupported)
        /// A box the file needs is absent (no `moov`, no `stbl`, no track of the kind asked for).
        public static let missingBox = Code(.missingBox)
        /// An `avcC` box that is not an AVCDecoderConfigurationRecord, or a sample before any
        /// sample description.
        public static let invalidDecoderConfiguration = Code(.invalidDecoderConfiguration)
        /// A caller-supplied argument or configuration is invalid (decoding times going back,
        /// a timescale of 0, a sample after `finish()`).
        public static let invalidArgument = Code(.invalidArgument)
        /// Reading or writing a file failed.
        public static let io = Code(.io)
        /// The H.264 core reported an error (kept in `underlying`).
        public static let h264 = Code(.h264)
        /// Segmented output got samples, but none where decoding can start (no IDR access
        /// unit, or no recovery point either when those were allowed): nothing was written.
        public static let noStartPoint = Code(.noStartPoint)
        /// The samples' times cannot be put in the track's timescale: a sample that says no
        /// timescale (``MP4Sample/timescale``) given to a writer made without one, a timescale
        /// outside 1...2^32-1, times the conversion overflows, or a track timescale so coarse
        /// that two different decoding times become one.
        public static let timescaleMismatch = Code(.timescaleMismatch)

        public var description: String { base.rawValue }
    }

    /// The error's contents (read through `CodedError`'s accessors).
    public let _detail: ErrorDetail<Code>

    /// An error with these contents, made by `CodedError`'s initialiser.
    public init(_detail: ErrorDetail<Code>) { self._detail = _detail }
}

extension MP4Error {
    /// The input ended before a structure was complete.
    @inline(never)
    public static func truncated(_ reason: String, file: String = #fileID, line: Int = #line) -> MP4Error {
        MP4Error(.truncated, reason, file: file, line: line)
    }
}
