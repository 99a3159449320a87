/// The error of the core.
///
/// An `H264Error` carries a ``Code`` that says what kind of failure it is, a human-readable
/// reason, and where in the library it was raised. Two errors are equal when their codes are
/// equal, so tests and callers match on `error.code` and never on the text.
///
/// Codes are a struct over a private enum: new codes can be added in later versions without
/// breaking code that switches over the ones it knows.
///
/// It is the first member of the package's error family (``CodedError``, which supplies
/// everything but the codes). The value is one reference wide (8 bytes; swift-asn1's
/// `ASN1Error` is built the same way): the code, the reason and the source location live in an
/// immutable object allocated when the error is made, so a typed `throws(H264Error)` moves one
/// word, not a 48-byte value, on every call that can throw. As the lowest layer, its
/// ``CodedError/underlying`` is always nil.
///
/// The modules above the core have their own errors (`H264VideoError`, `X264Error`,
/// `RTPError`, `FLVError`, `RTMPError`, `MP4Error`, `DeliveryError`), which carry an
/// `H264Error` they met under their code `h264` (``WrapsH264Error``); these codes are the
/// core's.
public struct H264Error: CodedError {
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

        public var description: String { base.rawValue }
    }

    /// The error's contents (read through ``CodedError``'s accessors).
    public let _detail: ErrorDetail<Code>

    /// An error with these contents; ``CodedError/init(_:_:underlying:file:line:)`` makes them.
    public init(_detail: ErrorDetail<Code>) { self._detail = _detail }

    /// True when `other` is this very error value (not only the same code).
    func isIdentical(to other: H264Error) -> Bool { _detail === other._detail }
}

extension H264Error {
    /// The input ended before a syntax element or structure was complete.
    @inline(never)
    public static func truncated(_ reason: String = "input ended early", file: String = #fileID, line: Int = #line) -> H264Error {
        H264Error(.truncated, reason, file: file, line: line)
    }
    /// The syntax element `name` has a value outside the range the specification allows.
    @inline(never)
    public static func outOfRange(_ name: String, _ value: Int64, file: String = #fileID, line: Int = #line) -> H264Error {
        H264Error(.valueOutOfRange, "\(name) = \(value) is out of range", file: file, line: line)
    }
}
