import H264

/// Records samples to an MP4 file as they come, the way `FLVWriter` records to FLV: an
/// encoder's output (`EncodedFrame`s, from any `FrameEncoder`), received RTP access units
/// (`RTPReceivedAccessUnit`, timed by the sender's RTP timestamps), parsed access units: any
/// `AccessUnitSample` with timestamps. What a live service uses to keep a copy of what it
/// encodes or receives.
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
/// | ``Mode-swift.enum/fragmented(fragmentDuration:synchronizes:)-swift.enum.case`` | `moov` first, then a `moof` + `mdat` per fragment | every complete fragment plays (at most one fragment lost, plus what the encoder held) |
/// | ``Mode-swift.enum/progressive(_:)`` `.mediaFirst` | `mdat` first, `moov` written at the end | not playable (no `moov`) |
/// | ``Mode-swift.enum/progressive(_:)`` `.fastStart` | `moov` moved before `mdat` at the end | not playable |
///
/// The track's timescale is the first sample's (raised to at least 10,000, see
/// ``MP4SampleBuilder/suggestedTimescale(for:)``: 90,000 for RTP's clock); the first sample's
/// decoding time is 0 in the file, and the presentation starts at 0 through an edit list when
/// the encoder reorders frames. A sample's times are its own, converted (nearest tick): a
/// recording of received RTP keeps the sender's timestamps.
public final class MP4Recorder {
    /// The kind of file.
    public enum Mode: Sendable, Hashable {
        /// One progressive file, playable once ``MP4Recorder/finish()`` has run.
        case progressive(MP4Writer.Options.Layout)
        /// One fragmented file, playable up to its last complete fragment at any moment.
        /// Fragments end every `fragmentDuration` (at any frame, not only at keyframes; at
        /// least one tick); `synchronizes` calls `fsync` after each one.
        case fragmented(fragmentDuration: Duration = .seconds(1), synchronizes: Bool = false)

        /// A fragmented file whose fragments end every `fragmentDuration` seconds.
        @available(*, deprecated, message: "give the fragment duration as a Duration: .fragmented(fragmentDuration: .milliseconds(500))")
        public static func fragmented(fragmentDuration: Double, synchronizes: Bool = false) -> Mode {
            .fragmented(fragmentDuration: fragmentDuration > 0 && fragmentDuration.isFinite
                            ? Duration.seconds(min(fragmentDuration, 1e9)) : .zero,
                        synchronizes: synchronizes)
        }
    }

    /// The file being written (the last one given to ``continueRecording(in:)``).
    public private(set) var file: any MP4WritableFile
    /// The mode.
    public let mode: Mode
    private var path: RecordingPath
    /// The number of samples written, in every file.
    public var frameCount: Int { path.frameCount }
    /// Samples left out after ``continueRecording(in:)`` while waiting for a random access point.
    public var skippedFrameCount: Int { path.skippedCount }
    /// How the pictures are turned for display (`tkhd`'s matrix): as given, else the display
    /// orientation SEI of the first sample (what `X264Encoder` writes for a frame with an
    /// orientation), else none.
    public var orientation: Orientation? { path.orientation }

    /// Creates a recorder; the file is written from the first frame on.
    /// - Parameters:
    ///   - file: where the recording goes (normally empty).
    ///   - mode: progressive or fragmented.
    ///   - parameterSets: the encoder's SPS and PPS (`FrameEncoder.parameterSets`), for
    ///     encoders that do not repeat them before the first frame.
    ///   - orientation: how the pictures are turned for display, written as the track's
    ///     transformation matrix (browsers, MSE and AVPlayer apply it; most ignore the SEI);
    ///     nil takes it from the first sample's display orientation SEI, if any.
    public init(file: any MP4WritableFile, mode: Mode = .fragmented(), parameterSets: [NALUnit] = [],
                orientation: Orientation? = nil) {
        self.file = file
        self.mode = mode
        path = RecordingPath(parameterSets: parameterSets, orientation: orientation)
    }

    /// Writes one sample (in decoding order): an encoded frame, a received or parsed access
    /// unit. An access unit without a picture (parameter sets or SEI alone) is not a sample of
    /// the file: it is skipped.
    /// - Throws: ``MP4Error/Code/invalidArgument`` for a sample without timestamps,
    ///   ``MP4Error/Code/invalidDecoderConfiguration`` when no SPS and PPS are known, and the
    ///   writer's and file's errors.
    public func write(_ sample: some AccessUnitSample) throws(MP4Error) {
        try path.write(sample) { (timescale, orientation) throws(MP4Error) in
            try mode.makeWriter(file: file, timescale: timescale, orientation: orientation)
        }
    }

    /// Goes on in `file` (a full disk has space again, a file-size limit was met, or a long
    /// recording is cut in parts): the next sample that is a random access point (an IDR
    /// picture or a recovery point) starts `file` as a new recording of the same mode, with the
    /// parameter sets and timescale known so far and its own timeline from 0; samples before it
    /// are skipped (``skippedFrameCount``).
    ///
    /// The former file is finished first (its last fragment, or a progressive file's `moov`),
    /// unless a write to it failed: a fragmented one then keeps its whole fragments
    /// (``MP4FragmentedFileWriter`` cut it back), a progressive one has no `moov`.
    ///
    /// ```swift
    /// do { try recorder.write(frame) } catch let error where error.code == .io {
    ///     log(error)                                   // names the file, the bytes, what is kept
    ///     try recorder.continueRecording(in: try MP4File(creatingAtPath: "part2.mp4"))
    /// }
    /// ```
    /// - Throws: the former file's finishing errors; the recorder goes on in `file` all the same.
    public func continueRecording(in file: any MP4WritableFile) throws(MP4Error) {
        self.file = file
        try path.continueRecording()
    }

    /// Ends the recording (writes the last fragment, or the progressive file's `moov`).
    /// - Throws: ``MP4Error/Code/invalidArgument`` when no frame was written; the writer's errors.
    public func finish() throws(MP4Error) {
        try path.finish()
    }
}

extension MP4Recorder.Mode {
    /// The writer of this mode for a track of `timescale` units per second in `file`: what an
    /// ``MP4Recorder`` writes with, and what an ``MP4AnnexBRecorder`` can be given to make
    /// (its `makeWriter`), so that a conversion writes the file a recording of the same mode does.
    ///
    /// Progressive: an ``MP4Writer`` with the layout. Fragmented: an ``MP4FragmentedFileWriter``
    /// whose fragments end after `fragmentDuration` at any sample (a recording cut
    /// short keeps all but its last fragment), without `styp`, the presentation started at 0 by
    /// an edit list as the progressive layouts' is.
    /// `orientation` is written as the track's transformation matrix.
    /// - Throws: the writers' errors (a timescale outside 1...2^32-1).
    public func makeWriter(file: any MP4WritableFile, timescale: Int64,
                           orientation: Orientation = .identity) throws(MP4Error) -> any MP4SampleWriting {
        switch self {
        case .progressive(let layout):
            var options = MP4Writer.Options(timescale: timescale, layout: layout)
            options.orientation = orientation
            return try MP4Writer(file: file, options: options)
        case .fragmented(let duration, let synchronizes):
            let target = duration > .zero ? duration : Duration(ticks: 1, timescale: timescale)
            var options = MP4FragmentWriter.Options(timescale: timescale, targetDuration: target, cutting: .anySample,
                                                    compositionTimes: .editList)
            options.writesSegmentType = false
            options.orientation = orientation
            return try MP4FragmentedFileWriter(file: file, options: options, synchronizesFragments: synchronizes)
        }
    }
}
