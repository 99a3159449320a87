import H264

/// The error type of the FLV module: a malformed or unsupported FLV file or AMF0 value, a
/// limit, or H.264 data inside the container that the core rejects.
///
/// As ``H264Error`` does, it carries a ``Code`` (a struct over a private enum, so codes can be
/// added without breaking a caller's `switch`), a human reason and where it was raised; two
/// errors are equal when their codes are. A problem in the H.264 data itself (a malformed
/// sample, an avcC record the core rejects) keeps the core's error in ``underlying``.
public struct FLVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Base: String, Hashable, Sendable {
            case truncated
            case invalidContainer
            case limitExceeded
            case unsupported
            case invalidArgument
            case invalidDecoderConfiguration
            case missingDecoderConfiguration
            case invalidBitstream
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// The input ended inside a header, a tag or an AMF0 value.
        public static let truncated = Code(.truncated)
        /// A malformed FLV header, tag or AMF0 value (a wrong signature, reserved bits, a wrong
        /// `PreviousTagSize`, an unknown AMF0 marker).
        public static let invalidContainer = Code(.invalidContainer)
        /// A documented limit was exceeded (a tag body, AMF0 nesting).
        public static let limitExceeded = Code(.limitExceeded)
        /// Valid FLV this module does not handle (a codec other than AVC, encryption).
        public static let unsupported = Code(.unsupported)
        /// A caller-supplied value is invalid (a time outside the FLV range, a composition time
        /// that does not fit 24 bits).
        public static let invalidArgument = Code(.invalidArgument)
        /// An AVC sequence header that is not a valid avcC record (see ``FLVError/underlying``).
        public static let invalidDecoderConfiguration = Code(.invalidDecoderConfiguration)
        /// A sample before any AVC sequence header (or without the SPS and PPS to make one).
        public static let missingDecoderConfiguration = Code(.missingDecoderConfiguration)
        /// The H.264 data inside a tag is malformed: ``FLVError/underlying`` says how.
        public static let invalidBitstream = Code(.invalidBitstream)

        public var description: String { base.rawValue }
    }

    private let detail: ErrorDetail<Code, H264Error>

    /// What kind of failure this is.
    public var code: Code { detail.code }
    /// A human-readable explanation.
    public var reason: String { detail.reason }
    /// The core's error, when the problem is in the H.264 data.
    public var underlying: H264Error? { detail.underlying }
    /// The source file that raised the error.
    public var file: String { detail.file }
    /// The source line that raised the error.
    public var line: Int { detail.line }

    /// Creates an error. Prefer the static factories, which keep error paths out of hot code.
    public init(_ code: Code, _ reason: String, underlying: H264Error? = nil, file: String = #fileID, line: Int = #line) {
        detail = ErrorDetail(code, reason, underlying: underlying, file: file, line: line)
    }

    public var description: String { "FLVError.\(code): \(reason)" }

    public static func == (lhs: FLVError, rhs: FLVError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension FLVError {
    @inline(never)
    static func truncated(_ reason: String, file: String = #fileID, line: Int = #line) -> FLVError {
        FLVError(.truncated, reason, file: file, line: line)
    }

    @inline(never)
    static func invalid(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) -> FLVError {
        FLVError(code, reason, file: file, line: line)
    }

    /// Wraps the core's error about the H.264 data in a tag.
    @inline(never)
    static func bitstream(_ error: H264Error, _ context: String, file: String = #fileID, line: Int = #line) -> FLVError {
        FLVError(.invalidBitstream, "\(context): \(error.code): \(error.reason)", underlying: error, file: file, line: line)
    }
}
