import H264

/// Records samples as HLS as they come: fragmented MP4 segments and a media playlist in a
/// directory, from an encoder's output (`EncodedFrame`s), received RTP access units, parsed
/// access units: any `AccessUnitSample` with timestamps. The one-call path to HLS, as
/// ``MP4Recorder`` is to a file.
///
/// ```swift
/// let hls = HLSRecorder(directory: "live", targetDuration: .seconds(2), parameterSets: encoder.parameterSets)
/// for frame in try encoder.encode(picture) { try hls.write(frame) }
/// for frame in try encoder.flush() { try hls.write(frame) }
/// try hls.finish()   // live/index.m3u8 ends with EXT-X-ENDLIST
/// ```
///
/// The samples' times are their own (`SampleTimestamps`), on a track timescale their time base
/// suggests (``MP4SampleBuilder/suggestedTimescale(for:)``: 90,000 for RTP's clock); the
/// durations asked for are `Duration`s, so `EXTINF` and `EXT-X-TARGETDURATION` are in seconds
/// whatever the clock. Segments start at IDR access units (every segment decodes alone:
/// `EXT-X-INDEPENDENT-SEGMENTS`); the files, the playlist's live updates and what a process
/// that stops part-way leaves are ``HLSSegmentWriter``'s, which writes them.
///
/// Memory: the ``HLSSegmentWriter``'s (one fragment, the playlist) and the parameter sets by id.
public final class HLSRecorder {
    /// The directory.
    public let directory: String
    /// How segments are cut; the timescale is the first sample's, the orientation as given or
    /// the first sample's.
    public let options: MP4FragmentWriter.Options
    /// The live sliding window: the number of segments the playlist lists, nil for all.
    public let window: Int?
    private var path: RecordingPath

    /// Creates a recorder; the directory (made when missing) is written from the first frame on.
    /// - Parameters:
    ///   - directory: where the init segment, the media segments and `index.m3u8` go.
    ///   - targetDuration: the target segment duration: a segment ends at the first IDR access
    ///     unit at or after it, or at ten times it (at least 30 s) when none comes.
    ///   - window: list only the last `window` segments (at least 3) and delete older ones: a
    ///     live playlist; nil (the default) keeps every segment, an `EVENT` playlist that
    ///     becomes `VOD` at the end.
    ///   - parameterSets: the encoder's SPS and PPS (`FrameEncoder.parameterSets`), for
    ///     encoders that do not repeat them before the first frame.
    ///   - orientation: how the pictures are turned for display (`tkhd`'s matrix in the init
    ///     segments); nil takes the first sample's display orientation SEI, if any.
    public convenience init(directory: String, targetDuration: Duration = .seconds(2), window: Int? = nil,
                            parameterSets: [NALUnit] = [], orientation: Orientation? = nil) {
        self.init(directory: directory, options: MP4FragmentWriter.Options(targetDuration: targetDuration), window: window,
                  parameterSets: parameterSets, orientation: orientation)
    }

    /// Creates a recorder with all the segmenting options (``MP4FragmentWriter/Options``):
    /// where segments may start, `sidx`, composition times. Their timescale is used when given
    /// (samples are converted to it), else the one the first sample's time base suggests; their
    /// orientation is replaced by `orientation` or the first sample's.
    public init(directory: String, options: MP4FragmentWriter.Options, window: Int? = nil,
                parameterSets: [NALUnit] = [], orientation: Orientation? = nil) {
        self.directory = directory
        self.options = options
        self.window = window
        path = RecordingPath(parameterSets: parameterSets, orientation: orientation)
    }

    /// The segment writer, once the first frame has made it: its playlist and its counts.
    public var segmentWriter: HLSSegmentWriter? { path.writer as? HLSSegmentWriter }

    /// The number of samples written.
    public var frameCount: Int { path.frameCount }

    /// Writes one sample (in decoding order). An access unit without a picture (parameter sets
    /// or SEI alone) is skipped.
    /// - Throws: ``MP4Error/Code/invalidArgument`` for a sample without timestamps or a window
    ///   below 3, ``MP4Error/Code/invalidDecoderConfiguration`` when no SPS and PPS are known,
    ///   ``MP4Error/Code/io`` when the directory or a file cannot be written, and the
    ///   ``MP4FragmentWriter``'s errors.
    public func write(_ sample: some AccessUnitSample) throws(MP4Error) {
        try path.write(sample) { (timescale, orientation) throws(MP4Error) in
            var options = options
            if options.timescale == nil { options.timescale = timescale }
            options.orientation = orientation
            return try HLSSegmentWriter(directory: directory, options: options, playlistType: .event, window: window)
        }
    }

    /// Writes the last segment and the playlist with `EXT-X-ENDLIST`.
    /// - Throws: ``MP4Error/Code/invalidArgument`` when no frame was written; the writer's errors.
    public func finish() throws(MP4Error) {
        try path.finish()
    }
}
