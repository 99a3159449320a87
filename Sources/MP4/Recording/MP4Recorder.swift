import H264

/// Records an encoder's output (`EncodedFrame`s, from any `FrameEncoder`) to an MP4 file as the
/// frames come, the way `FLVWriter` records to FLV: what a live service uses to keep a copy
/// of what it encodes.
///
/// ```swift
/// let recorder = MP4Recorder(file: try MP4File(creatingAtPath: "rec.mp4"), mode: .fragmented(),
///                            parameterSets: encoder.parameterSets)
/// for frame in try encoder.encode(picture) { try recorder.write(frame) }
/// for frame in try encoder.flush() { try recorder.write(frame) }
/// try recorder.finish()
/// ```
///
/// Modes, and what a process killed mid-recording (SIGKILL, power loss) leaves:
///
/// | mode | file | after a kill |
/// |---|---|---|
/// | ``Mode-swift.enum/fragmented(fragmentDuration:synchronizes:)`` | `moov` first, then a `moof` + `mdat` per fragment | every complete fragment plays (at most one fragment lost, plus what the encoder held) |
/// | ``Mode-swift.enum/progressive(_:)`` `.mediaFirst` | `mdat` first, `moov` written at the end | not playable (no `moov`) |
/// | ``Mode-swift.enum/progressive(_:)`` `.fastStart` | `moov` moved before `mdat` at the end | not playable |
///
/// The track's timescale is the frames' (raised to at least 10,000, see
/// ``MP4SampleBuilder/suggestedTimescale(for:)``); the first frame's decoding time is 0 in
/// the file, and the presentation starts at 0 through an edit list when the encoder reorders
/// frames.
public final class MP4Recorder {
    /// The kind of file.
    public enum Mode: Sendable, Hashable {
        /// One progressive file, playable once ``MP4Recorder/finish()`` has run.
        case progressive(MP4Writer.Options.Layout)
        /// One fragmented file, playable up to its last complete fragment at any moment.
        /// Fragments end every `fragmentDuration` seconds (at any frame, not only at
        /// keyframes); `synchronizes` calls `fsync` after each one.
        case fragmented(fragmentDuration: Double = 1, synchronizes: Bool = false)
    }

    /// The file.
    public let file: any MP4WritableFile
    /// The mode.
    public let mode: Mode
    private var builder: MP4SampleBuilder?
    private var writer: (any MP4SampleWriting)?
    private let parameterSets: [NALUnit]
    /// The number of frames written.
    public private(set) var frameCount = 0
    /// How the pictures are turned for display (`tkhd`'s matrix): as given, else the display
    /// orientation SEI of the first frame (what ``X264Encoder`` writes for a frame with an
    /// orientation), else none.
    public private(set) var orientation: Orientation?

    /// Creates a recorder; the file is written from the first frame on.
    /// - Parameters:
    ///   - file: where the recording goes (normally empty).
    ///   - mode: progressive or fragmented.
    ///   - parameterSets: the encoder's SPS and PPS (`FrameEncoder.parameterSets`), for
    ///     encoders that do not repeat them before the first frame.
    ///   - orientation: how the pictures are turned for display, written as the track's
    ///     transformation matrix (browsers, MSE and AVPlayer apply it; most ignore the SEI);
    ///     nil takes it from the first frame's display orientation SEI, if any.
    public init(file: any MP4WritableFile, mode: Mode = .fragmented(), parameterSets: [NALUnit] = [],
                orientation: Orientation? = nil) {
        self.file = file
        self.mode = mode
        self.parameterSets = parameterSets
        self.orientation = orientation
    }

    /// Writes one encoded frame (in decoding order).
    /// - Throws: ``MP4Error/Code/invalidDecoderConfiguration`` when no SPS and PPS are known,
    ///   and the writer's and file's errors.
    public func write(_ frame: EncodedFrame) throws(MP4Error) {
        if builder == nil {
            let timescale = MP4SampleBuilder.suggestedTimescale(
                for: TimeBase(numerator: 1, denominator: Int64(max(1, frame.timescale))))
            builder = MP4SampleBuilder(timescale: timescale, parameterSets: parameterSets)
            if orientation == nil { orientation = Orientation.displayOrientation(in: frame.nalUnits) }
            switch mode {
            case .progressive(let layout):
                var options = MP4Writer.Options(timescale: timescale, layout: layout)
                options.orientation = orientation ?? .identity
                writer = try MP4Writer(file: file, options: options)
            case .fragmented(let seconds, let synchronizes):
                let target = max(1, Int64((seconds * Double(timescale)).rounded()))
                var options = MP4FragmentWriter.Options(timescale: timescale, targetDuration: target, cutting: .anySample,
                                                        compositionTimes: .editList)
                options.writesSegmentType = false
                options.orientation = orientation ?? .identity
                writer = try MP4FragmentedFileWriter(file: file, options: options, synchronizesFragments: synchronizes)
            }
        }
        guard var b = builder, let writer else { return }
        let (description, sample) = try b.sample(frame)
        builder = b
        try writer.append(sample, description: description)
        frameCount &+= 1
    }

    /// Ends the recording (writes the last fragment, or the progressive file's `moov`).
    /// - Throws: ``MP4Error/Code/invalidArgument`` when no frame was written; the writer's errors.
    public func finish() throws(MP4Error) {
        guard let writer else { throw MP4Error.invalid(.invalidArgument, "no frame was recorded") }
        try writer.finish()
    }
}
