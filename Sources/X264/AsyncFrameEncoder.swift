import H264
import MediaSupport

/// A `FrameEncoder` for Swift concurrency: every call runs on a thread of the wrapper's own, one
/// at a time, so an encode (milliseconds of x264 work) never occupies a thread of the
/// cooperative pool, and the caller's task suspends until it is done.
///
/// ```swift
/// let encoder = AsyncFrameEncoder(try X264Encoder(options: config))
/// for try await au in encoder.encodedFrames(from: frames) {   // frames: any AsyncSequence of VideoFrame
///     try await sink.write(au)
/// }
/// ```
///
/// Calls are served in the order they reach the wrapper; the wrapped encoder's own rules
/// (timestamps, no frames after flush) and errors are unchanged, typed as `Encoder.Failure`.
///
/// - Complexity: each call adds one thread hop and one continuation to the encoder's own cost;
///   memory is the encoder's plus the output of the call in flight, and a thread (started with
///   the first call, ended when the wrapper is released).
public final class AsyncFrameEncoder<Encoder: FrameEncoder>: Sendable {
    /// The wrapped encoder, for what is its own (an `X264Encoder`'s ``X264Encoder/options``
    /// and ``X264Encoder/activeSettings``); its blocking methods are better called through
    /// this wrapper from async code.
    public let base: Encoder
    private let worker = BlockingWorker()

    /// Wraps `encoder`; its calls run on a thread of the wrapper's own.
    public init(_ encoder: Encoder) {
        self.base = encoder
    }

    /// The wrapped encoder, now ``base``; its parameter sets and decoder configuration are the
    /// wrapper's own (``parameterSets``, ``decoderConfiguration``).
    @available(*, deprecated, renamed: "base")
    public var encoder: Encoder { base }

    /// The encoder's current SPS and PPS NAL units (`FrameEncoder.parameterSets`).
    public var parameterSets: [NALUnit] { base.parameterSets }

    /// The encoder's current decoder configuration (avcC) with 4-byte NAL unit lengths; nil
    /// while it has no SPS yet (`FrameEncoder.decoderConfiguration`).
    /// - Throws: the errors of `AVCDecoderConfigurationRecord.init(parameterSets:lengthSize:)`.
    public var decoderConfiguration: AVCDecoderConfigurationRecord? {
        get throws(H264Error) { try base.decoderConfiguration }
    }

    /// The encoder's current decoder configuration with NAL unit lengths of `lengthSize` bytes
    /// (`FrameEncoder.decoderConfiguration(lengthSize:)`).
    public func decoderConfiguration(lengthSize: AVCC.LengthSize) throws(H264Error) -> AVCDecoderConfigurationRecord? {
        try base.decoderConfiguration(lengthSize: lengthSize)
    }

    /// Wraps `encoder`; `label` named the Dispatch queue of earlier releases and is not used.
    @available(*, deprecated, renamed: "init(_:)", message: "the calls run on a thread of the wrapper's own; the label is not used")
    public convenience init(_ encoder: Encoder, label: String) {
        self.init(encoder)
    }

    /// Encodes one frame off the cooperative pool; see `FrameEncoder.encode(_:options:)`.
    ///
    /// An encode already started completes even if the calling task is cancelled (x264 cannot
    /// be interrupted mid-frame): cancellation is observed between frames.
    public func encode(_ frame: VideoFrame, options: FrameEncodeOptions = .none) async throws(Encoder.Failure) -> [EncodedFrame] {
        try await run { () throws(Encoder.Failure) in try self.base.encode(frame, options: options) }
    }

    /// Returns every access unit the encoder still holds; see `FrameEncoder.flush()`.
    public func flush() async throws(Encoder.Failure) -> [EncodedFrame] {
        try await run { () throws(Encoder.Failure) in try self.base.flush() }
    }

    /// Changes the target average bitrate for the frames that follow, off the cooperative pool.
    public func setAverageBitrate(_ bitsPerSecond: Int) async throws(Encoder.Failure) {
        try await run { () throws(Encoder.Failure) in try self.base.setAverageBitrate(bitsPerSecond) }
    }

    /// The encoded frames of `frames`, then of a flush at their end: see ``EncodedFrameSequence``.
    ///
    /// - Parameters:
    ///   - frames: the frames, in presentation order with increasing `pts`.
    ///   - options: per-frame options (a forced keyframe), asked once for each frame.
    public func encodedFrames<Frames: AsyncSequence>(
        from frames: Frames,
        options: @escaping @Sendable (VideoFrame) -> FrameEncodeOptions = { _ in .none }
    ) -> EncodedFrameSequence<Encoder, Frames> where Frames.Element == VideoFrame {
        EncodedFrameSequence(frames: frames, encoder: self, options: options)
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable () throws(Encoder.Failure) -> T) async throws(Encoder.Failure) -> T {
        try await worker.run(body)
    }
}

/// The access units of an ``AsyncFrameEncoder`` fed from an `AsyncSequence` of frames, in
/// decoding order, ending with the encoder's flush.
///
/// **Back-pressure.** Nothing runs ahead of the consumer: the iterator pulls the next frame
/// only when every access unit of the previous encode has been taken, so at most one frame is
/// being encoded and at most one call's output is buffered (besides the frames the encoder
/// itself holds for lookahead and reordering).
///
/// **Cancellation.** When the iterating task is cancelled, the next call to `next()` throws
/// `CancellationError` without pulling another frame or flushing, and a call suspended in an
/// encode throws it as soon as that frame's encode returns: the encoder stops within one
/// frame's encode time. The encoder is left as it was (frames it holds are not flushed).
///
/// - Complexity: one encode (or the flush) per frame; memory is one call's output.
public struct EncodedFrameSequence<Encoder: FrameEncoder, Frames: AsyncSequence>: AsyncSequence
where Frames.Element == VideoFrame {
    public typealias Element = EncodedFrame

    let frames: Frames
    let encoder: AsyncFrameEncoder<Encoder>
    let options: @Sendable (VideoFrame) -> FrameEncodeOptions

    /// Creates the iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(frames: frames.makeAsyncIterator(), encoder: encoder, options: options)
    }

    /// Pulls frames, encodes them and hands out the access units one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var frames: Frames.AsyncIterator
        let encoder: AsyncFrameEncoder<Encoder>
        let options: @Sendable (VideoFrame) -> FrameEncodeOptions
        var ready: [EncodedFrame] = []
        var readyHead = 0
        var finished = false

        /// The next access unit, nil after the flushed ones.
        ///
        /// - Throws: `CancellationError` when the task is cancelled; what the frame sequence
        ///   throws; the encoder's `Failure`.
        public mutating func next() async throws -> EncodedFrame? {
            while true {
                if readyHead < ready.count {
                    defer { readyHead &+= 1 }
                    return ready[readyHead]
                }
                if finished { return nil }
                try Task.checkCancellation()
                ready = []
                readyHead = 0
                if let frame = try await frames.next() {
                    ready = try await encoder.encode(frame, options: options(frame))
                } else {
                    // A frame sequence may end because the task was cancelled (AsyncStream does):
                    // that is not the end of the video, so no flush.
                    try Task.checkCancellation()
                    finished = true
                    ready = try await encoder.flush()
                }
                try Task.checkCancellation()
            }
        }
    }
}
