/// The one error type of the library.
///
/// An `H264Error` carries a ``Code`` that says what kind of failure it is, a human-readable
/// reason, and where in the library it was raised. Two errors are equal when their codes are
/// equal, so tests and callers match on `error.code` and never on the text.
///
/// Codes are a struct over a private enum: new codes can be added in later versions without
/// breaking code that switches over the ones it knows.
///
/// The value is one reference wide (8 bytes; swift-asn1's `ASN1Error` is built the same way):
/// the code, the reason and the source location live in an immutable object allocated when the
/// error is made, so a typed `throws(H264Error)` moves one word, not a 48-byte value, on every
/// call that can throw.
///
/// The other modules have their own errors (`FLVError`, `RTMPError`, `MP4Error`, `X264Error`);
/// these codes are the core's.
public struct H264Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Base: String, Hashable, Sendable {
            case truncated
            case invalidExpGolomb
            case valueOutOfRange
            case invalidTrailingBits
            case missingStartCode
            case emptyNALUnit
            case forbiddenBitSet
            case nalUnitTooLarge
            case lengthPastEnd
            case invalidLengthSize
            case invalidDecoderConfiguration
            case missingParameterSet
            case unsupported
            case limitExceeded
            case invalidArgument
            case invalidBitstream
            case io
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// The input ended before a syntax element or structure was complete.
        public static let truncated = Code(.truncated)
        /// An Exp-Golomb code with more leading zero bits than the specification allows.
        public static let invalidExpGolomb = Code(.invalidExpGolomb)
        /// A syntax element outside the range the specification allows for it.
        public static let valueOutOfRange = Code(.valueOutOfRange)
        /// `rbsp_trailing_bits()` missing or malformed.
        public static let invalidTrailingBits = Code(.invalidTrailingBits)
        /// Annex-B input that does not begin with a start code (strict mode).
        public static let missingStartCode = Code(.missingStartCode)
        /// A NAL unit with no bytes at all.
        public static let emptyNALUnit = Code(.emptyNALUnit)
        /// A NAL unit whose `forbidden_zero_bit` is 1.
        public static let forbiddenBitSet = Code(.forbiddenBitSet)
        /// A NAL unit larger than the configured limit, or than the AVCC length field can hold.
        public static let nalUnitTooLarge = Code(.nalUnitTooLarge)
        /// An AVCC length prefix that runs past the end of the buffer.
        public static let lengthPastEnd = Code(.lengthPastEnd)
        /// An AVCC NAL length size other than 1, 2 or 4 bytes.
        public static let invalidLengthSize = Code(.invalidLengthSize)
        /// A malformed `AVCDecoderConfigurationRecord` (avcC).
        public static let invalidDecoderConfiguration = Code(.invalidDecoderConfiguration)
        /// A structure refers to an SPS or PPS that has not been seen.
        public static let missingParameterSet = Code(.missingParameterSet)
        /// Valid input that this library does not handle.
        public static let unsupported = Code(.unsupported)
        /// A documented resource limit was exceeded (sizes, counts, nesting).
        public static let limitExceeded = Code(.limitExceeded)
        /// A caller-supplied argument or configuration is invalid.
        public static let invalidArgument = Code(.invalidArgument)
        /// The bitstream violates a constraint of the specification.
        public static let invalidBitstream = Code(.invalidBitstream)
        /// A system call on a socket failed, or could not complete before its deadline (RTP over
        /// UDP); the reason carries the system's message.
        public static let io = Code(.io)

        public var description: String { base.rawValue }
    }

    private let detail: ErrorDetail<Code, Never>

    /// What kind of failure this is.
    public var code: Code { detail.code }
    /// A human-readable explanation.
    public var reason: String { detail.reason }
    /// The source file that raised the error.
    public var file: String { detail.file }
    /// The source line that raised the error.
    public var line: Int { detail.line }

    /// Creates an error. Prefer the static factories, which keep error paths out of hot code.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        detail = ErrorDetail(code, reason, file: file, line: line)
    }

    public var description: String { "H264Error.\(code): \(reason)" }

    /// True when `other` is this very error value (not only the same code).
    func isIdentical(to other: H264Error) -> Bool { detail === other.detail }

    public static func == (lhs: H264Error, rhs: H264Error) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension H264Error {
    @inline(never)
    public static func truncated(_ reason: String = "input ended early", file: String = #fileID, line: Int = #line) -> H264Error {
        H264Error(.truncated, reason, file: file, line: line)
    }
    @inline(never)
    public static func outOfRange(_ name: String, _ value: Int64, file: String = #fileID, line: Int = #line) -> H264Error {
        H264Error(.valueOutOfRange, "\(name) = \(value) is out of range", file: file, line: line)
    }
    @inline(never)
    public static func invalid(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) -> H264Error {
        H264Error(code, reason, file: file, line: line)
    }
}
