import H264

/// The error of the `H264Delivery` module: a stream the fixer's header edits cannot be applied
/// to, or an FLV file the checker cannot read further.
///
/// A member of the package's error family (`CodedError`, which supplies the reason, the source
/// location, equality by code and the factories): a ``Code`` (a struct over a private enum, so
/// codes can be added without breaking a caller's `switch`), one reference wide. The checkers
/// and the fixer parse with the core and the FLV reader, so every error they throw wraps one
/// of theirs, kept in `underlying`: the core's `H264Error` under ``Code/h264``, the
/// `FLVError` under ``Code/flv``. (What a check finds in a stream is not thrown: it is a
/// ``DeliveryViolation``, and the parse errors on the way are values in
/// ``StreamChecker/errors`` and ``StreamFixer/problems``.)
public struct DeliveryError: CodedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible, WrapsH264Error {
        enum Base: String, Hashable, Sendable {
            case h264
            case flv
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// The core refused the stream: an edit of the plan cannot be applied to an SPS. The
        /// `H264Error` in `underlying` says why.
        public static let h264 = Code(.h264)
        /// The FLV reader refused the file (a malformed tag, a sequence header that is not an
        /// avcC record, a file that ends inside a tag): the `FLVError` in `underlying` says why.
        public static let flv = Code(.flv)

        public var description: String { base.rawValue }
    }

    /// The error's contents (read through `CodedError`'s accessors).
    public let _detail: ErrorDetail<Code>

    /// An error with these contents, made by `CodedError`'s initialiser.
    public init(_detail: ErrorDetail<Code>) { self._detail = _detail }
}
