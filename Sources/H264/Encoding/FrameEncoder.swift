/// Options for one frame passed to ``FrameEncoder/encode(_:options:)``.
public struct FrameEncodeOptions: Hashable, Sendable {
    /// Code this frame as an IDR picture (VideoToolbox's `ForceKeyFrame`).
    public var forceKeyframe: Bool
    /// SEI messages for this frame's access unit: captions (``SEIMessage/captions(_:)``), user
    /// data, a recovery point, a pic_timing with a time code (``SMPTETimecode``). An encoder puts
    /// them in the access unit of this frame's picture, whenever it comes out.
    public var seiMessages: [SEIMessage]

    /// Creates options.
    public init(forceKeyframe: Bool = false, seiMessages: [SEIMessage] = []) {
        self.forceKeyframe = forceKeyframe
        self.seiMessages = seiMessages
    }

    /// No per-frame options.
    public static let none = FrameEncodeOptions()
}

/// A limit on the bytes produced in any window of a given duration (VideoToolbox's
/// `DataRateLimits` pair: bytes, seconds).
public struct DataRateLimit: Hashable, Sendable {
    /// The most bytes allowed in the window.
    public var bytes: Int
    /// The window's length in seconds.
    public var seconds: Double

    /// Creates a limit of `bytes` per `seconds`.
    public init(bytes: Int, seconds: Double) {
        self.bytes = bytes
        self.seconds = seconds
    }

    /// The limit's average rate in bits per second (0 for a degenerate limit).
    public var bitsPerSecond: Double { seconds > 0 ? Double(bytes) * 8 / seconds : 0 }
}

/// Something that turns ``VideoFrame``s into H.264 access units: the library's equivalent of
/// a `VTCompressionSession`.
///
/// An encoder may hold frames back (lookahead, frame reordering): ``encode(_:options:)``
/// returns zero or more access units, in decoding order, and ``flush()`` returns the rest at
/// the end. Output is made of core types only, so any encoder (libx264, a hardware codec, a
/// test double) can conform.
///
/// ## The frames an encoder takes
///
/// Every frame of one encoder keeps the first frame's ``VideoFrame/timescale`` and has a
/// ``VideoFrame/pts`` strictly after the previous frame's (VideoToolbox refuses frames that do
/// not). An encoder refuses any other frame with an error, without encoding it and without
/// changing its state, so the caller can go on with a correct frame.
///
/// ## Errors
///
/// Each encoder throws its own error type, ``Failure``, as the containers do (`X264Encoder`
/// throws `X264Error`, with a code for a refused timestamp, one for a failure of libx264, ...).
/// Code that holds a concrete encoder, or is generic over `some FrameEncoder`, catches that type;
/// code that holds `any FrameEncoder` catches `any Error`, the same errors unchanged.
/// ``Failure`` defaults to `any Error`, so an encoder that declares plain `throws` conforms too.
///
/// ## Threads and Swift concurrency
///
/// An encoder is `Sendable`: it may be captured by a `Task` or a capture thread's closure, and
/// its methods may be called from any thread, one call at a time or serialised by the encoder
/// itself (`X264Encoder` holds a lock for each call). The methods block for the time an encode
/// takes: from async code, call them through `AsyncFrameEncoder` (module `X264`), which runs
/// them on a dedicated serial queue instead of a thread of the cooperative pool.
public protocol FrameEncoder: AnyObject, Sendable {
    /// The error the encoder throws.
    associatedtype Failure: Error = any Error

    /// Submits one frame; returns the access units that became ready, in decoding order.
    func encode(_ frame: VideoFrame, options: FrameEncodeOptions) throws(Failure) -> [EncodedFrame]

    /// Returns every access unit still held back, in decoding order (VideoToolbox's
    /// `CompleteFrames`). The encoder may not be used for more frames afterwards.
    func flush() throws(Failure) -> [EncodedFrame]

    /// Changes the target average bitrate, in bits per second, for the frames that follow.
    func setAverageBitrate(_ bitsPerSecond: Int) throws(Failure)

    /// Changes the hard limits on the data rate for the frames that follow.
    func setDataRateLimits(_ limits: [DataRateLimit]) throws(Failure)

    /// The current sequence and picture parameter sets (the decoder configuration).
    var parameterSets: [NALUnit] { get }
}

extension FrameEncoder {
    /// Submits one frame with no per-frame options.
    public func encode(_ frame: VideoFrame) throws(Failure) -> [EncodedFrame] {
        try encode(frame, options: .none)
    }
}
