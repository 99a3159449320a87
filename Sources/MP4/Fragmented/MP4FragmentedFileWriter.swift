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
/// A file has one `moov`, so its sample description cannot change: a sample with another
/// description (new parameter sets) is ``MP4Error/Code/unsupported`` (write segments with
/// ``HLSSegmentWriter``, or a progressive file, for streams that change).
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
        fragments = try MP4FragmentWriter(options: options)
        self.synchronizesFragments = synchronizesFragments
    }

    /// The number of fragments written.
    public var fragmentCount: UInt32 { fragments.segmentCount }

    public func append(_ sample: MP4Sample, description: MP4SampleDescription) throws(MP4Error) {
        if let current = fragments.description, current != description {
            throw MP4Error.invalid(.unsupported, "the sample description changed; a fragmented file has one moov")
        }
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
