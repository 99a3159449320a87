import H264

/// The error of the `MP4` module: a ``Code`` saying what kind of failure it is, a human reason,
/// and where it was raised.
///
/// Like `H264Error`, codes are a struct over a private enum, so codes can be added without
/// breaking code that switches over the ones it knows; two errors are equal when their codes
/// are equal. Errors of the H.264 core met while reading or writing a file (an avcC record that
/// does not parse, a NAL unit too long for its length field) keep their `H264Error` in
/// ``underlying``.
public struct MP4Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
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
        /// The H.264 core reported an error (kept in ``MP4Error/underlying``).
        public static let h264 = Code(.h264)
        /// Segmented output got samples, but none where decoding can start (no IDR access
        /// unit, or no recovery point either when those were allowed): nothing was written.
        public static let noStartPoint = Code(.noStartPoint)

        public var description: String { base.rawValue }
    }

    private let detail: ErrorDetail<Code, H264Error>

    /// What kind of failure this is.
    public var code: Code { detail.code }
    /// A human-readable explanation.
    public var reason: String { detail.reason }
    /// The core error behind a ``Code/h264`` or ``Code/invalidDecoderConfiguration`` error.
    public var underlying: H264Error? { detail.underlying }
    /// The source file that raised the error.
    public var file: String { detail.file }
    /// The source line that raised the error.
    public var line: Int { detail.line }

    /// Creates an error. Prefer the static factories, which keep error paths out of hot code.
    public init(_ code: Code, _ reason: String, underlying: H264Error? = nil, file: String = #fileID, line: Int = #line) {
        detail = ErrorDetail(code, reason, underlying: underlying, file: file, line: line)
    }

    public var description: String { "MP4Error.\(code): \(reason)" }

    public static func == (lhs: MP4Error, rhs: MP4Error) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension MP4Error {
    /// An error of `code` with `reason`.
    @inline(never)
    public static func invalid(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) -> MP4Error {
        MP4Error(code, reason, file: file, line: line)
    }

    /// The input ended before a structure was complete.
    @inline(never)
    public static func truncated(_ reason: String, file: String = #fileID, line: Int = #line) -> MP4Error {
        MP4Error(.truncated, reason, file: file, line: line)
    }

    /// A core error met while handling MP4, with what was being done.
    @inline(never)
    public static func h264(_ error: H264Error, _ context: String, file: String = #fileID, line: Int = #line) -> MP4Error {
        let code: Code = error.code == .invalidDecoderConfiguration ? .invalidDecoderConfiguration : .h264
        return MP4Error(code, "\(context): \(error.code): \(error.reason)", underlying: error, file: file, line: line)
    }
}
