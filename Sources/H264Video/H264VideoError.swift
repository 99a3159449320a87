import H264

/// The error of the `H264Video` module: a Y4M stream or raw frames that cannot be read, a
/// frame source or conversion given values it cannot take, or a system that refuses a thread.
///
/// A member of the package's error family (`CodedError`, which supplies the reason, the source
/// location, equality by code and the factories): a ``Code`` (a struct over a private enum, so
/// codes can be added without breaking a caller's `switch`), one reference wide. The frames
/// this module makes are the core's `VideoFrame`s: when the core refuses one, its `H264Error`
/// is kept in `underlying` under ``Code/h264``.
public struct H264VideoError: CodedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible, WrapsH264Error {
        enum Base: String, Hashable, Sendable {
            case invalidArgument
            case truncated
            case unsupported
            case limitExceeded
            case h264
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// A caller-supplied value (a size, a frame rate, an index), a Y4M header or frame
        /// marker that is malformed, frames of different sizes, or a sequence iterated twice.
        public static let invalidArgument = Code(.invalidArgument)
        /// A Y4M or raw stream that ends inside its header or a frame.
        public static let truncated = Code(.truncated)
        /// Valid input this module does not handle (a Y4M colour space other than 8-bit 4:2:0,
        /// 4:2:2 and 4:4:4; a conversion between other pixel formats).
        public static let unsupported = Code(.unsupported)
        /// A documented limit was exceeded (a Y4M line or frame size), or the system refused a
        /// thread for a frame source.
        public static let limitExceeded = Code(.limitExceeded)
        /// The core refused a frame (`VideoFrame`'s checks): the `H264Error` in `underlying`
        /// says why.
        public static let h264 = Code(.h264)

        public var description: String { base.rawValue }
    }

    /// The error's contents (read through `CodedError`'s accessors).
    public let _detail: ErrorDetail<Code>

    /// An error with these contents, made by `CodedError`'s initialiser.
    public init(_detail: ErrorDetail<Code>) { self._detail = _detail }
}
