import H264

/// Records an Annex-B stream into MP4 as it arrives in chunks: the core's `AccessUnitParser`
/// finds access units (7.4.1.2.4) and their decoding and presentation times, an
/// ``MP4SampleBuilder`` turns them into samples, and any ``MP4SampleWriting`` output takes
/// them (a progressive file, a fragmented file, HLS segments).
///
/// The track's timescale follows the stream's time base (see
/// ``MP4SampleBuilder/suggestedTimescale(for:)``), known once the first access unit is timed,
/// so the output is made then, by `makeWriter`.
///
/// ```swift
/// var recorder = MP4AnnexBRecorder { timescale in
///     try MP4Writer(file: try MP4File(creatingAtPath: "out.mp4"), options: .init(timescale: timescale))
/// }
/// for chunk in chunks { try recorder.append(chunk) }
/// let summary = try recorder.finish()
/// ```
///
/// Memory: the parser's (one NAL unit, one access unit, the reorder window) and the output's.
/// Access units without a picture (parameter sets or SEI at the end) are left out; NAL units
/// the parser rejects are skipped and counted in ``Summary/problems``.
public struct MP4AnnexBRecorder {
    /// What a recording did.
    public struct Summary: Sendable {
        /// Samples written.
        public var sampleCount = 0
        /// Sync samples written.
        public var syncSampleCount = 0
        /// Sample descriptions used (more than one after parameter set changes).
        public var descriptionCount = 0
        /// The track's timescale, once known.
        public var timescale: Int64?
        /// The first problems met (at most 16), which did not stop the recording.
        public var problems: [H264Error] = []
        /// How many problems there were in all.
        public var problemCount = 0
    }

    private var parser: AccessUnitParser
    private var builder: MP4SampleBuilder?
    private var writer: (any MP4SampleWriting)?
    private let makeWriter: (Int64) throws -> any MP4SampleWriting
    private let format: MP4FourCC
    private var descriptions: [MP4SampleDescription] = []
    /// What has been done so far.
    public private(set) var summary = Summary()

    /// Creates a recorder.
    /// - Parameters:
    ///   - timing: frame rate for streams without VUI timing, reorder depth.
    ///   - leadingData: bytes before the first start code: rejected or skipped.
    ///   - format: `avc1` (parameter sets out of band) or `avc3`.
    ///   - makeWriter: makes the output for the track's timescale; an error it throws that is
    ///     not an ``MP4Error`` comes out of ``append(_:)-(ArraySlice<UInt8>)`` as
    ///     ``MP4Error/Code/io``.
    public init(timing: TimestampOptions = .init(), leadingData: AnnexB.LeadingDataPolicy = .skip,
                format: MP4FourCC = "avc1", makeWriter: @escaping (Int64) throws -> any MP4SampleWriting) {
        parser = AccessUnitParser(timing: timing, leadingData: leadingData)
        self.makeWriter = makeWriter
        self.format = format
    }

    /// Takes the next chunk of the stream and writes the samples it completes.
    /// - Throws: the output's errors and the sample builder's (no SPS and PPS before a picture).
    public mutating func append(_ chunk: ArraySlice<UInt8>) throws(MP4Error) {
        parser.append(chunk)
        try drain()
    }

    /// Takes the next chunk held in an array.
    public mutating func append(_ chunk: [UInt8]) throws(MP4Error) { try append(chunk[...]) }

    /// Ends the stream: writes the last samples and finishes the output.
    /// - Throws: ``MP4Error/Code/invalidArgument`` when the stream had no picture (and the
    ///   first problem met, if any, says why), and the output's errors.
    public mutating func finish() throws(MP4Error) -> Summary {
        parser.finish()
        try drain()
        guard let writer else {
            let why = summary.problems.first.map { ": \($0.code): \($0.reason)" } ?? ""
            throw MP4Error.invalid(.invalidArgument, "the stream has no picture to write\(why)")
        }
        try writer.finish()
        return summary
    }

    private mutating func drain() throws(MP4Error) {
        while true {
            let au: AccessUnit
            do {
                guard let next = try parser.next() else { return }
                au = next
            } catch {
                summary.problemCount &+= 1
                if summary.problems.count < 16 { summary.problems.append(error) }
                continue
            }
            guard !au.flags.hasNoPicture else { continue }
            if builder == nil {
                let timescale = MP4SampleBuilder.suggestedTimescale(
                    for: au.timeBase ?? parser.timeBase ?? TimeBase(numerator: 1, denominator: 90_000))
                builder = MP4SampleBuilder(timescale: timescale, format: format)
                do { writer = try makeWriter(timescale) } catch let error as MP4Error { throw error } catch {
                    throw MP4Error.invalid(.io, "making the MP4 output failed: \(error)")
                }
                summary.timescale = timescale
            }
            guard var b = builder, let writer else { return }
            let (description, sample) = try b.sample(au)
            builder = b
            try writer.append(sample, description: description)
            summary.sampleCount &+= 1
            if sample.flags.isSync { summary.syncSampleCount &+= 1 }
            if !descriptions.contains(description) {
                descriptions.append(description)
                summary.descriptionCount = descriptions.count
            }
        }
    }
}

/// The former name of ``MP4AnnexBRecorder``.
@available(*, deprecated, renamed: "MP4AnnexBRecorder")
public typealias MP4AnnexBConverter = MP4AnnexBRecorder
