import H264
import MPEGTS

/// Writes HLS with MPEG-TS segments into a directory as access units come: media segments
/// (`segment-00001.ts`, ...) made by `TSWriter`, and the media playlist
/// (`index.m3u8`, `EXT-X-VERSION` 3, no `EXT-X-MAP`) — the form every HLS player accepts,
/// smart TVs that cannot play fragmented MP4 included.
///
/// It follows the same rules as ``HLSSegmentWriter``, with the same code: where decoding can
/// start is judged from each access unit's NAL units (`AccessUnitFlags(accessUnit:)`), a
/// segment ends at the first start point whose decoding time reaches the target (less half a
/// frame) or, without one, at the maximum segment duration; access units before the first
/// start point are dropped; `EXT-X-INDEPENDENT-SEGMENTS` holds while every segment starts at
/// an IDR access unit; a live window lists the last segments and deletes older files; the
/// playlist is rewritten through a temporary file and a rename. A change of picture format
/// (an `AccessUnit` with a `formatChange`) starts a new segment after
/// `EXT-X-DISCONTINUITY` when it comes at a start point. Each segment begins with a PAT and
/// a PMT (the TS writer puts them before every random access point; a segment cut elsewhere
/// gets them too), and continuity counters run on across segments.
///
/// Memory: the `TSWriter`'s (one access unit's packets), and the playlist as
/// ``HLSSegmentWriter``'s.
///
/// ```swift
/// let hls = try HLSTSSegmentWriter(directory: "out", options: .init(targetDuration: .seconds(2)))
/// for au in accessUnits { try hls.append(au) }
/// try hls.finish()
/// // ffmpeg -i out/index.m3u8 ...
/// ```
public final class HLSTSSegmentWriter {
    /// How segments are cut and the transport stream written.
    public struct Options: Sendable, Hashable {
        /// The target segment duration.
        public var targetDuration: Duration
        /// Where segments may start (as ``MP4FragmentWriter/Options/cutting-swift.property``).
        public var cutting: MP4FragmentWriter.Options.Cutting
        /// The longest segment without a start point (nil: ten times the target, at least 30 s).
        public var maximumSegmentDuration: Duration?
        /// The program, PIDs and table and PCR intervals of the segments.
        public var transportStream: TSWriter.Options

        /// Segments of `targetDuration` that start at IDR access units.
        public init(targetDuration: Duration, cutting: MP4FragmentWriter.Options.Cutting = .atSyncSamples,
                    maximumSegmentDuration: Duration? = nil, transportStream: TSWriter.Options = TSWriter.Options()) {
            self.targetDuration = targetDuration
            self.cutting = cutting
            self.maximumSegmentDuration = maximumSegmentDuration
            self.transportStream = transportStream
        }
    }

    /// The directory.
    public let directory: String
    /// The options in force.
    public let options: Options
    /// The file names (the init segment's name is not used).
    public let naming: HLSSegmentWriter.Naming
    /// The playlist as written so far.
    public var playlist: HLSMediaPlaylist { files.playlist }
    /// Access units dropped before the first one a segment could start at.
    public private(set) var droppedLeadingSampleCount = 0
    /// Segments begun where decoding cannot start, because the maximum segment duration passed.
    public private(set) var segmentsCutWithoutStartPoint = 0
    /// Media segments begun.
    public private(set) var segmentCount: UInt32 = 0

    private var writer: TSWriter
    private let files: HLSPlaylistFiles
    private let limits: (target: Int64, segmentLimit: Int64)
    private var segmentStart: Int64?
    private var lastDTS: Int64?
    private var lastStep: Int64?

    /// Creates the directory when it does not exist; nothing else is written before the first
    /// access unit.
    /// - Parameters:
    ///   - directory: where the files go.
    ///   - options: how segments are cut and written.
    ///   - naming: the files' names (by default `index.m3u8` and `segment-00001.ts`...).
    ///   - playlistType: `EXT-X-PLAYLIST-TYPE` (`EVENT` becomes `VOD` at the end); none with a
    ///     window.
    ///   - updatesPlaylistAfterEachSegment: rewrite the playlist as segments come (live), or
    ///     only at the end.
    ///   - window: list only the last `window` segments (at least 3) and delete older ones.
    /// - Throws: ``MP4Error/Code/io`` when the directory cannot be made,
    ///   ``MP4Error/Code/invalidArgument`` for a window below 3, a target duration that is not
    ///   positive, or transport-stream options the `TSWriter` refuses (its error in
    ///   `underlying`).
    public init(directory: String, options: Options, naming: HLSSegmentWriter.Naming = HLSSegmentWriter.Naming(segmentSuffix: ".ts"),
                playlistType: HLSMediaPlaylist.PlaylistType? = .event, updatesPlaylistAfterEachSegment: Bool = true,
                window: Int? = nil) throws(MP4Error) {
        guard options.targetDuration > .zero else {
            throw MP4Error.invalid(.invalidArgument, "target duration \(options.targetDuration) is not positive")
        }
        do throws(TSError) {
            writer = try TSWriter(options: options.transportStream)
        } catch {
            throw MP4Error.wrapping(error, as: .invalidArgument, "transport stream options")
        }
        let playlist = HLSMediaPlaylist(timescale: 90_000, playlistType: window == nil ? playlistType : nil,
                                        independentSegments: options.cutting != .anySample, version: 3)
        files = try HLSPlaylistFiles(directory: directory, playlistName: naming.playlist, playlist: playlist,
                                     updatesPlaylistAfterEachSegment: updatesPlaylistAfterEachSegment, window: window)
        limits = SegmentCutRule.limits(target: options.targetDuration, maximum: options.maximumSegmentDuration, timescale: 90_000)
        self.directory = directory
        self.options = options
        self.naming = naming
    }

    /// Adds the next access unit in decoding order.
    /// - Parameters:
    ///   - sample: the access unit, with timestamps on any clock.
    ///   - parameterSets: SPS and PPS to write at random access points that lack them (see
    ///     `TSWriter.write(_:parameterSets:)`).
    /// - Throws: ``MP4Error/Code/invalidArgument`` for an access unit the TS writer refuses
    ///   (no timestamps, a decoding time that goes back: its error in `underlying`; nothing is
    ///   written for it), ``MP4Error/Code/io``.
    public func append(_ sample: some AccessUnitSample, parameterSets: [NALUnit] = []) throws(MP4Error) {
        if let failure { throw failure }
        do throws(MP4Error) { try write(sample, parameterSets: parameterSets) } catch { throw failed(error) }
    }

    /// The write that failed (a full disk, a file-size limit, a removed directory), once one
    /// has: every later call throws it again. As ``HLSSegmentWriter/failure``: the segment being
    /// written is removed and the playlist written once more with the whole segments, ended.
    public private(set) var failure: MP4Error?

    /// Whether this writer has written its playlist at least once (a playlist in the directory
    /// before that is another run's).
    public var hasWrittenPlaylist: Bool { files.hasWrittenPlaylist }

    private func failed(_ error: MP4Error) -> MP4Error {
        guard error.code == .io else { return error }
        let result = files.failed(error)
        failure = result
        return result
    }

    private func write(_ sample: some AccessUnitSample, parameterSets: [NALUnit]) throws(MP4Error) {
        guard let t = sample.timestamps?.rescaled(to: 90_000) else {
            throw MP4Error.invalid(.invalidArgument, "an access unit without timestamps")
        }
        if let lastDTS, t.dts < lastDTS {
            throw MP4Error.invalid(.invalidArgument, "DTS \(t.dts) goes back from \(lastDTS) (90 kHz)")
        }
        let flags = AccessUnitFlags(accessUnit: sample.nalUnits)  // judged from the NAL units
        let isStartPoint = flags.isSync || (flags.isRandomAccess && options.cutting == .atRandomAccessPoints)
        let canCut = isStartPoint || options.cutting == .anySample
        var startsSegment = false
        var forced = false
        if let segmentStart {
            let step = t.dts &- (lastDTS ?? t.dts)  // both within ±2^62: checked by the TS writer
            files.addDuration(step)
            if step > 0 { lastStep = step }
            let formatChange = (sample as? AccessUnit)?.formatChange != nil
            switch SegmentCutRule.decide(elapsed: t.dts &- segmentStart, canCut: canCut, lastStep: lastStep,
                                         target: limits.target, limit: limits.segmentLimit) {
            case .atStartPoint: startsSegment = true
            case .forced: startsSegment = true; forced = true
            case .none: startsSegment = formatChange && canCut
            }
            if startsSegment {
                try files.closeSegment()
                try files.segmentsClosed()
                if formatChange && canCut { files.add(.discontinuity) }
            }
        } else {
            guard canCut else {
                droppedLeadingSampleCount &+= 1
                return
            }
            startsSegment = true
        }
        if startsSegment {
            segmentCount &+= 1
            segmentStart = t.dts
            if forced { segmentsCutWithoutStartPoint &+= 1 }
            try files.openSegment(naming.segment(segmentCount), isIndependent: flags.isSync)
            if !sample.isRandomAccessPoint { writer.writeTables() }
        }
        do throws(TSError) {
            try writer.write(sample, parameterSets: parameterSets)
        } catch {
            throw MP4Error.wrapping(error, as: .invalidArgument, "access unit")
        }
        lastDTS = t.dts
        try files.appendToSegment(writer.takeBytes(), duration: 0)
    }

    /// Writes the last segment and the playlist with `EXT-X-ENDLIST` (type VOD if it was EVENT).
    /// - Throws: ``MP4Error/Code/noStartPoint`` when access units came but none could start a
    ///   segment; ``MP4Error/Code/io``.
    public func finish() throws(MP4Error) {
        if segmentStart == nil && droppedLeadingSampleCount > 0 {
            throw MP4Error.invalid(.noStartPoint, "none of the \(droppedLeadingSampleCount) access units is a point where decoding can start")
        }
        if let failure { throw failure }
        files.addDuration(lastStep ?? 0)
        do throws(MP4Error) { try files.finish() } catch { throw failed(error) }
    }
}
