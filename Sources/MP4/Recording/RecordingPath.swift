import H264

/// The one path of the recorders (``MP4Recorder``, ``HLSRecorder``) from access-unit samples
/// to an ``MP4SampleWriting`` output: the output is made at the first sample with a picture,
/// on the timescale its time base suggests (``MP4SampleBuilder/suggestedTimescale(for:)``),
/// and every sample goes through one ``MP4SampleBuilder``.
struct RecordingPath {
    private var builder: MP4SampleBuilder?
    /// The output, once the first sample has made it.
    private(set) var writer: (any MP4SampleWriting)?
    private let parameterSets: [NALUnit]
    /// As given, else the first sample's display orientation SEI once it has come.
    private(set) var orientation: Orientation?
    /// The number of samples written.
    private(set) var frameCount = 0

    init(parameterSets: [NALUnit], orientation: Orientation?) {
        self.parameterSets = parameterSets
        self.orientation = orientation
    }

    /// Writes one sample; the first with a picture makes the output with `makeWriter` (given
    /// the track's timescale and orientation). Samples without a picture are skipped.
    /// - Throws: ``MP4Error/Code/invalidArgument`` for a sample without timestamps,
    ///   ``MP4Error/Code/invalidDecoderConfiguration`` when no SPS and PPS are known, and the
    ///   output's errors.
    mutating func write(_ sample: some AccessUnitSample,
                        makeWriter: (Int64, Orientation) throws(MP4Error) -> any MP4SampleWriting) throws(MP4Error) {
        guard !sample.flags.hasNoPicture else { return }
        if builder == nil {
            guard let timeBase = sample.timestamps?.timeBase else {
                throw MP4Error.invalid(.invalidArgument, "a sample without timestamps cannot go into MP4")
            }
            let timescale = MP4SampleBuilder.suggestedTimescale(for: timeBase)
            if orientation == nil { orientation = Orientation.displayOrientation(in: sample.nalUnits) }
            writer = try makeWriter(timescale, orientation ?? .identity)
            builder = MP4SampleBuilder(timescale: timescale, parameterSets: parameterSets)
        }
        guard var b = builder, let writer else { return }
        let (description, made) = try b.sample(sample)
        builder = b
        try writer.append(made, description: description)
        frameCount &+= 1
    }

    /// Ends the output.
    /// - Throws: ``MP4Error/Code/invalidArgument`` when no frame was written; the output's errors.
    func finish() throws(MP4Error) {
        guard let writer else { throw MP4Error.invalid(.invalidArgument, "no frame was recorded") }
        try writer.finish()
    }
}
