/// Writes one fragmented MP4 file as samples come: `ftyp` and a `moov` without samples first,
/// then each fragment (`moof` + `mdat`) as soon as it is complete.
///
/// Everything written is final: a process killed mid-recording leaves a file that players
/// read up to its last complete fragment (FFmpeg, GStreamer and this module's ``MP4Reader``
/// do), which a progressive ``MP4Writer`` cannot offer. With
/// ``MP4FragmentWriter/Options/Cutting-swift.enum/anySample`` fragments end every
/// ``MP4FragmentWriter/Options/targetDuration`` whatever the keyframe interval, which bounds
/// what a crash loses.
///
/// A file has one `moov`, so its sample entry cannot change: parameter sets that change
/// mid-stream (a new ``MP4SampleDescription``) are carried in band in the samples that use them
/// and in the first sample of each later fragment
/// (``MP4FragmentWriter/Options/ParameterSetChanges-swift.enum/inBand``, whatever the options
/// say), which FFmpeg, GStreamer and browsers decode. HLS segments (``HLSSegmentWriter``) or a
/// progressive file (``MP4Writer``) also describe a new picture size in the container.
///
/// Use ``MP4FragmentWriter/Options/CompositionTimes-swift.enum/editList`` for a file that
/// starts at the same presentation time as a progressive one (FFmpeg reports a fragmented file
/// with negative composition offsets as starting one reordered frame late).
public final class MP4FragmentedFileWriter: MP4SampleWriting {
    /// The file.
    public let file: any MP4WritableFile
    private var fragments: MP4FragmentWriter
    /// Calls ``MP4File/synchronize()`` after each fragment when the file is an ``MP4File``.
    public let synchronizesFragments: Bool

    /// Creates a writer; nothing is written before the first sample.
    /// - Parameters:
    ///   - file: where the file goes.
    ///   - options: the fragmenting options (a `styp` before each fragment is allowed inside
    ///     one file; ``MP4FragmentWriter/Options/writesSegmentType`` false leaves it out).
    ///   - synchronizesFragments: `fsync` after each fragment, so that a machine crash (not
    ///     only a process crash) keeps them.
    public init(file: any MP4WritableFile, options: MP4FragmentWriter.Options, synchronizesFragments: Bool = false) throws(MP4Error) {
        self.file = file
        var options = options
        options.parameterSetChanges = .inBand
        fragments = try MP4FragmentWriter(options: options)
        self.synchronizesFragments = synchronizesFragments
    }

    /// The number of fragments written.
    public var fragmentCount: UInt32 { fragments.fragmentCount }

    /// The fragment writer's counts: samples dropped before the first start point, and so on.
    public var fragmentWriter: MP4FragmentWriter { fragments }

    public func append(_ sample: MP4Sample, description: MP4SampleDescription) throws(MP4Error) {
        try write(try fragments.append(sample, description: description))
    }

    public func finish() throws(MP4Error) {
        try write(try fragments.finish())
    }

    private func write(_ segments: [MP4Segment]) throws(MP4Error) {
        for segment in segments { try file.append(segment.bytes) }
        if synchronizesFragments, !segments.isEmpty, let f = file as? MP4File { try f.synchronize() }
    }
}
