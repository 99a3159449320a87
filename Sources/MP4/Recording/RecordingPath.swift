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
    /// After ``continueRecording()``: samples are left out until the next random access point.
    private var waitsForStartPoint = false
    /// Samples with a picture left out while waiting for a random access point.
    private(set) var skippedCount = 0
    /// The output threw while writing a sample: it is not finished when dropped.
    private var outputFailed = false

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
        guard var b = builder else { return }
        let (description, made) = try b.sample(sample)  // parameter sets followed, skipped or not
        builder = b
        if waitsForStartPoint {
            guard sample.isRandomAccessPoint else { skippedCount &+= 1; return }
            waitsForStartPoint = false
        }
        if writer == nil { writer = try makeWriter(b.timescale, orientation ?? .identity) }
        do throws(MP4Error) { try writer!.append(made, description: description) } catch {
            outputFailed = true
            throw error
        }
        frameCount &+= 1
    }

    /// Ends the output (finished unless a write to it failed) and goes on: the next sample that
    /// is a random access point makes a new one with `makeWriter`, on the same timescale, with
    /// the parameter sets and description known so far; the samples before it are skipped.
    /// - Throws: the former output's `finish()` error (the path goes on all the same).
    mutating func continueRecording() throws(MP4Error) {
        let former = outputFailed ? nil : writer
        writer = nil
        outputFailed = false
        waitsForStartPoint = true
        try former?.finish()
    }

    /// Ends the output.
    /// - Throws: ``MP4Error/Code/invalidArgument`` when no frame was written; the output's errors.
    func finish() throws(MP4Error) {
        guard let writer else { throw MP4Error.invalid(.invalidArgument, "no frame was recorded") }
        try writer.finish()
    }
}
