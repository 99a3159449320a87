import H264

/// The error type of the FLV module: a malformed or unsupported FLV file or AMF0 value, a
/// limit, or H.264 data inside the container that the core rejects.
///
/// A member of the package's error family (`CodedError`, which supplies the reason, the source
/// location, equality by code and the factories): a ``Code`` (a struct over a private enum, so
/// codes can be added without breaking a caller's `switch`), one reference wide. A problem in
/// the H.264 data itself keeps the core's error in `underlying`: code ``Code/h264`` for a
/// malformed sample, ``Code/invalidDecoderConfiguration`` or
/// ``Code/missingDecoderConfiguration`` for an avcC record the core rejects or cannot make.
public struct FLVError: CodedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible, WrapsH264Error {
        enum Base: String, Hashable, Sendable {
            case truncated
            case invalidContainer
            case limitExceeded
            case unsupported
            case invalidArgument
            case invalidDecoderConfiguration
            case missingDecoderConfiguration
            case h264
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
        /// An AVC sequence header that is not a valid avcC record (the core's error, when it
        /// has one, in `underlying`).
        public static let invalidDecoderConfiguration = Code(.invalidDecoderConfiguration)
        /// A sample before any AVC sequence header (or without the SPS and PPS to make one).
        public static let missingDecoderConfiguration = Code(.missingDecoderConfiguration)
        /// The H.264 data inside a tag is malformed: the core's error in `underlying` says how.
        public static let h264 = Code(.h264)
        /// The former name of ``h264``.
        @available(*, deprecated, renamed: "h264")
        public static var invalidBitstream: Code { .h264 }

        public var description: String { base.rawValue }
    }

    /// The error's contents (read through `CodedError`'s accessors).
    public let _detail: ErrorDetail<Code>

    /// An error with these contents, made by `CodedError`'s initialiser.
    public init(_detail: ErrorDetail<Code>) { self._detail = _detail }
}

extension FLVError {
    /// The input ended inside a header, a tag or an AMF0 value.
    @inline(never)
    static func truncated(_ reason: String, file: String = #fileID, line: Int = #line) -> FLVError {
        FLVError(.truncated, reason, file: file, line: line)
    }
}
