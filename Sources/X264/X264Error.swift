import H264

/// The error of the `X264` module: a configuration the encoder cannot take, a frame it refuses,
/// or a failure of libx264 itself.
///
/// A member of the package's error family (`CodedError`, which supplies the reason, the source
/// location, equality by code and the factories): a ``Code`` (a struct over a private enum, so
/// codes can be added without breaking a caller's `switch`); two errors are equal when their
/// codes are. An error of the H.264 core met on the way (a frame the core's `VideoFrame`
/// rejects, a NAL unit of x264's output that does not parse) keeps the core's error in
/// `underlying` under ``Code/h264``; a frame the colour conversion refuses keeps the
/// `H264VideoError` there under ``Code/invalidArgument``.
///
/// It is the `FrameEncoder.Failure` of ``X264Encoder``, and one reference wide: the
/// contents live in an immutable object made when the error is raised, so a typed
/// `throws(X264Error)` moves one word.
public struct X264Error: CodedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible, WrapsH264Error {
        enum Base: String, Hashable, Sendable {
            case invalidArgument
            case unsupported
            case invalidTimestamp
            case encoderFailure
            case h264
        }

        let base: Base
        init(_ base: Base) { self.base = base }

        /// A configuration value, a frame's size or format, or a call the encoder's state does
        /// not allow (a frame after ``X264Encoder/flush()``).
        public static let invalidArgument = Code(.invalidArgument)
        /// A valid request this encoder cannot honour (CABAC in the Baseline profile, a data rate
        /// limit with a constant QP).
        public static let unsupported = Code(.unsupported)
        /// A frame whose timestamp does not follow the previous frame's: not strictly later, or
        /// in another timescale (the `FrameEncoder` contract; VideoToolbox refuses such
        /// frames too). The frame is not encoded and the encoder goes on.
        public static let invalidTimestamp = Code(.invalidTimestamp)
        /// libx264 failed (it refused to open with these parameters, to reconfigure, or to
        /// encode); the reason carries x264's own messages.
        public static let encoderFailure = Code(.encoderFailure)
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
