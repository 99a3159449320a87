import MediaSupport

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
/// A write that fails (a full disk, a file-size limit, an I/O error) throws
/// ``MP4Error/Code/io`` naming the file, the bytes written and what is kept: a truncatable
/// file (``MP4TruncatableFile``: ``MP4File``, ``MP4MemoryFile``) is cut back to its last whole
/// fragment (``wholeByteCount``), so it plays to its end; the writer then refuses further
/// samples (``MP4Recorder/continueRecording(in:)`` goes on in a new file).
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

    /// The bytes of the file up to the end of its last whole fragment (the init segment's end
    /// before the first): what a failed write leaves when the file is truncatable.
    public private(set) var wholeByteCount: UInt64 = 0

    /// The write that failed, once one has: every later call throws it again.
    public private(set) var failure: MP4Error?

    /// The fragment writer's counts: samples dropped before the first start point, and so on.
    public var fragmentWriter: MP4FragmentWriter { fragments }

    public func append(_ sample: MP4Sample, description: MP4SampleDescription) throws(MP4Error) {
        if let failure { throw failure }
        try write(try fragments.append(sample, description: description))
    }

    /// Writes the last fragment. With an edit list, when a picture is presented before the
    /// first one (it follows it in decoding order), the edit's `media_time` in the `moov` is
    /// lowered to that picture's time, so that no picture is cut off and the file starts where a
    /// progressive one would.
    public func finish() throws(MP4Error) {
        if let failure { throw failure }
        try write(try fragments.finish())
        if let position = editMediaTimePosition, let media = fragments.editMediaTime,
           let earliest = fragments.earliestPresentationTime, earliest < media {
            let value = UInt64(max(0, earliest))  // below media_time, which fits the field
            var bytes: [UInt8] = []
            if position.width == 8 { bytes.writeUInt64(value) } else { bytes.writeUInt32(UInt32(truncatingIfNeeded: value)) }
            do throws(MP4Error) { try file.write(bytes[...], at: position.offset) } catch { throw failed(error) }
        }
    }

    /// Where the init segment's edit `media_time` is in the file, and its width in bytes.
    private var editMediaTimePosition: (offset: UInt64, width: Int)?

    private func write(_ segments: [MP4Segment]) throws(MP4Error) {
        do throws(MP4Error) {
            for segment in segments {
                if segment.kind == .initialization && editMediaTimePosition == nil {
                    editMediaTimePosition = try Self.editMediaTime(in: segment.bytes).map { (file.byteCount &+ UInt64($0.offset), $0.width) }
                }
                try file.append(segment.bytes)
                wholeByteCount = file.byteCount
            }
            if synchronizesFragments, !segments.isEmpty, let f = file as? MP4File { try f.synchronize() }
        } catch {
            throw failed(error)
        }
    }

    /// Records a failed write: cuts a truncatable file back to its last whole fragment and
    /// returns the error to throw, which says what the file keeps.
    private func failed(_ error: MP4Error) -> MP4Error {
        guard error.code == .io else { return error }  // not a write: the writer's own refusal
        var kept = "it keeps \(fragments.fragmentCount > 0 ? "its whole fragments" : "no fragment")"
        if let cut = file as? any MP4TruncatableFile {
            do throws(MP4Error) {
                try cut.truncate(to: wholeByteCount)
                kept += ", \(wholeByteCount) bytes"
            } catch {
                kept += " and the failed write's bytes after \(wholeByteCount) (cutting them failed: \(error.reason))"
            }
        } else {
            kept += " and the failed write's bytes after \(wholeByteCount) (the file cannot be cut back)"
        }
        let result = MP4Error.invalid(.io, "\(error.reason); \(kept)")
        failure = result
        return result
    }

    /// The offset of the first edit's `media_time` in an init segment, and its width (4 bytes
    /// for `elst` version 0, 8 for version 1); nil without an edit list.
    static func editMediaTime(in bytes: [UInt8]) throws(MP4Error) -> (offset: Int, width: Int)? {
        guard let elst = try MP4BoxTree.nodes(in: bytes).first(where: { $0.header.type == .elst }) else { return nil }
        let payload = Int(elst.offset) &+ Int(elst.header.headerSize)  // within `bytes`
        guard payload &+ 24 <= bytes.count else { return nil }
        let long = bytes[payload] == 1
        return (payload &+ 8 &+ (long ? 8 : 4), long ? 8 : 4)
    }
}
