import H264

/// The error of the `X264` module: a configuration the encoder cannot take, a frame it refuses,
/// or a failure of libx264 itself.
///
/// As `H264Error` does, it carries a ``Code`` (a struct over a private enum, so codes can be
/// added without breaking a caller's `switch`), a human reason and where it was raised; two
/// errors are equal when their codes are. An error of the H.264 core met on the way (a frame
/// the core's ``H264/VideoFrame`` or colour conversion rejects, a NAL unit of x264's output that
/// does not parse) keeps the core's error in ``underlying``.
///
/// It is the ``H264/FrameEncoder/Failure`` of ``X264Encoder``, and one reference wide: the
/// contents live in an immutable object made when the error is raised, so a typed
/// `throws(X264Error)` moves one word.
public struct X264Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
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
        /// in another timescale (the ``H264/FrameEncoder`` contract; VideoToolbox refuses such
        /// frames too). The frame is not encoded and the encoder goes on.
        public static let invalidTimestamp = Code(.invalidTimestamp)
        /// libx264 failed (it refused to open with these parameters, to reconfigure, or to
        /// encode); the reason carries x264's own messages.
        public static let encoderFailure = Code(.encoderFailure)
        /// The H.264 core refused something on the way: ``X264Error/underlying`` says what.
        public static let h264 = Code(.h264)

        public var description: String { base.rawValue }
    }

    private let detail: ErrorDetail<Code, H264Error>

    /// What kind of failure this is.
    public var code: Code { detail.code }
    /// A human-readable explanation.
    public var reason: String { detail.reason }
    /// The core's error, when the core refused something (code ``Code/h264``).
    public var underlying: H264Error? { detail.underlying }
    /// The source file that raised the error.
    public var file: String { detail.file }
    /// The source line that raised the error.
    public var line: Int { detail.line }

    /// Creates an error.
    public init(_ code: Code, _ reason: String, underlying: H264Error? = nil, file: String = #fileID, line: Int = #line) {
        detail = ErrorDetail(code, reason, underlying: underlying, file: file, line: line)
    }

    public var description: String { "X264Error.\(code): \(reason)" }

    public static func == (lhs: X264Error, rhs: X264Error) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension X264Error {
    @inline(never)
    static func invalid(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) -> X264Error {
        X264Error(code, reason, file: file, line: line)
    }

    /// Wraps an error of the core.
    @inline(never)
    static func h264(_ error: H264Error, file: String = #fileID, line: Int = #line) -> X264Error {
        X264Error(.h264, "\(error.code): \(error.reason)", underlying: error, file: file, line: line)
    }

    /// Runs `body`, a call into the core, wrapping its error.
    static func core<R>(_ body: () throws(H264Error) -> R) throws(X264Error) -> R {
        do { return try body() } catch { throw .h264(error) }
    }
}
