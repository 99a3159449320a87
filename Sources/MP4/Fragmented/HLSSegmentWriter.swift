#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes HLS with fragmented MP4 segments into a directory as samples come: init segments
/// (`init.mp4`, then `init-2.mp4`... after a format change), media segments
/// (`segment-00001.m4s`, ...) and the media playlist (`index.m3u8`), rewritten after each
/// segment for live players (through a temporary file and a rename, so a reader never sees
/// half a playlist) or only at the end, and ended with `EXT-X-ENDLIST` by ``finish()``.
///
/// Each segment's fragments go to its file as the ``MP4FragmentWriter`` makes them, and the
/// playlist names a segment only once its file is whole: a process that stops part-way leaves
/// a playlist that lists only complete segments. `EXT-X-INDEPENDENT-SEGMENTS` is written while
/// every segment listed starts with an IDR access unit (``MP4Segment/isIndependent``), and
/// dropped from the playlist from the first one that does not (a recovery point, with
/// ``MP4FragmentWriter/Options/Cutting-swift.enum/atRandomAccessPoints``, or a cut forced by
/// ``MP4FragmentWriter/Options/maximumSegmentDuration``). `EXT-X-DISCONTINUITY` goes before an
/// init segment that changes the decoder's configuration (``MP4Segment/isDiscontinuity``),
/// not before one that only moves parameter sets in band.
///
/// With a ``window`` the playlist is a live sliding window: it lists the last `window`
/// segments (`EXT-X-MEDIA-SEQUENCE` and `EXT-X-DISCONTINUITY-SEQUENCE` count those removed,
/// the `EXT-X-MAP` in force is kept at the top), and a segment file is deleted once `window`
/// more segments have left the playlist after it (RFC 8216 6.2.2 keeps a removed segment
/// available for about a playlist's duration), with the init segments nothing refers to any
/// more. Without one every segment stays listed.
///
/// A rewrite costs the playlist's size. Without a window the playlist grows with the segments,
/// and a live rewrite waits until the segments written since the last one hold at least a
/// quarter of the playlist's bytes, so that rewriting never writes more than four times the
/// media; real segments (tens of kilobytes and more, against about 60 bytes per playlist
/// entry) meet that after every segment for tens of thousands of segments.
///
/// Memory: the ``MP4FragmentWriter``'s (one fragment), one fragment's output while it is
/// written, and the playlist: one entry per segment, or with a window at most `window` entries
/// and their maps, and `window` names of removed segments waiting for deletion.
///
/// Times: the track's timescale is the options' ``MP4FragmentWriter/Options/timescale``, else
/// the first sample's (``MP4Sample/timescale``, set by ``MP4SampleBuilder``); samples on
/// another timescale are converted, so `EXTINF` durations are the samples' real ones whatever
/// the timescales. From encoded frames or parsed access units, ``HLSRecorder`` builds the
/// samples itself.
///
/// ```swift
/// var builder = MP4SampleBuilder(timescale: 90_000)
/// let hls = try HLSSegmentWriter(directory: "out", options: .init(targetDuration: .seconds(2)))
/// for au in accessUnits where !au.flags.hasNoPicture {
///     let (description, sample) = try builder.sample(au)
///     try hls.append(sample, description: description)
/// }
/// try hls.finish()
/// // ffmpeg -i out/index.m3u8 ...
/// ```
public final class HLSSegmentWriter: MP4SampleWriting {
    /// File names in the directory.
    public struct Naming: Sendable, Hashable {
        /// The playlist's name.
        public var playlist: String
        /// The first init segment's name; later ones get `-2`, `-3`... before the extension.
        public var initialization: String
        /// Media segment names: the prefix, five digits of the sequence number, the suffix.
        public var segmentPrefix: String
        /// See ``segmentPrefix``.
        public var segmentSuffix: String

        /// `index.m3u8`, `init.mp4`, `segment-00001.m4s`.
        public init(playlist: String = "index.m3u8", initialization: String = "init.mp4",
                    segmentPrefix: String = "segment-", segmentSuffix: String = ".m4s") {
            self.playlist = playlist
            self.initialization = initialization
            self.segmentPrefix = segmentPrefix
            self.segmentSuffix = segmentSuffix
        }

        /// The name of init segment `number` (from 1).
        public func initialization(_ number: UInt32) -> String {
            guard number > 1 else { return initialization }
            guard let dot = initialization.lastIndex(of: ".") else { return initialization + "-\(number)" }
            return String(initialization[..<dot]) + "-\(number)" + String(initialization[dot...])
        }

        /// The name of media segment `number` (from 1).
        public func segment(_ number: UInt32) -> String {
            var digits = String(number)
            while digits.count < 5 { digits = "0" + digits }
            return segmentPrefix + digits + segmentSuffix
        }
    }

    /// The directory.
    public let directory: String
    /// The file names.
    public let naming: Naming
    /// The playlist as written so far.
    public var playlist: HLSMediaPlaylist { files.playlist }
    /// The playlist is rewritten after each segment (else only by ``finish()``).
    public let updatesPlaylistAfterEachSegment: Bool
    /// The live sliding window: the number of segments the playlist lists, nil for all.
    public let window: Int?
    private var fragments: MP4FragmentWriter
    /// The playlist, the segment being written, the window: what both HLS writers keep.
    private let files: HLSPlaylistFiles

    /// Creates the directory when it does not exist; nothing else is written before the first
    /// sample.
    /// - Parameters:
    ///   - directory: where the files go.
    ///   - options: how segments are cut (see ``MP4FragmentWriter``).
    ///   - naming: the files' names.
    ///   - playlistType: `EXT-X-PLAYLIST-TYPE` (`EVENT` becomes `VOD` at the end); none with a
    ///     window.
    ///   - updatesPlaylistAfterEachSegment: rewrite the playlist as segments come (live), or
    ///     only at the end.
    ///   - window: list only the last `window` segments (at least 3, as RFC 8216 6.2.2 asks of
    ///     a live playlist) and delete older ones; nil keeps every segment.
    /// - Throws: ``MP4Error/Code/io`` when the directory cannot be made,
    ///   ``MP4Error/Code/invalidArgument`` for a window below 3, and the options' errors (see
    ///   ``MP4FragmentWriter/init(options:)``).
    public init(directory: String, options: MP4FragmentWriter.Options, naming: Naming = Naming(),
                playlistType: HLSMediaPlaylist.PlaylistType? = .event,
                updatesPlaylistAfterEachSegment: Bool = true, window: Int? = nil) throws(MP4Error) {
        self.updatesPlaylistAfterEachSegment = updatesPlaylistAfterEachSegment
        self.window = window
        fragments = try MP4FragmentWriter(options: options)
        let playlist = HLSMediaPlaylist(timescale: options.timescale ?? 90_000, playlistType: window == nil ? playlistType : nil,
                                        independentSegments: options.cutting != .anySample)
        files = try HLSPlaylistFiles(directory: directory, playlistName: naming.playlist, playlist: playlist,
                                     updatesPlaylistAfterEachSegment: updatesPlaylistAfterEachSegment, window: window)
        self.directory = directory
        self.naming = naming
    }

    /// The fragment writer's state: its counts of dropped leading samples, forced cuts and
    /// format changes carried in band.
    public var fragmentWriter: MP4FragmentWriter { fragments }

    /// Adds the next sample in decoding order, converted to the track's timescale.
    /// - Throws: the ``MP4FragmentWriter``'s errors (``MP4Error/Code/timescaleMismatch`` for a
    ///   sample without a timescale when the options gave none), and ``MP4Error/Code/io``.
    public func append(_ sample: MP4Sample, description: MP4SampleDescription) throws(MP4Error) {
        if let failure { throw failure }
        let pieces = try fragments.append(sample, description: description)
        if let timescale = fragments.timescale, files.playlist.timescale != timescale { files.playlist.timescale = timescale }
        do throws(MP4Error) { try store(pieces) } catch { throw failed(error) }
    }

    /// Writes the last segment and the playlist with `EXT-X-ENDLIST` (type VOD if it was EVENT).
    public func finish() throws(MP4Error) {
        if let failure { throw failure }
        let pieces = try fragments.finish()
        do throws(MP4Error) {
            try store(pieces)
            try files.finish()
        } catch {
            throw failed(error)
        }
    }

    /// The write that failed (a full disk, a file-size limit, a removed directory), once one
    /// has: every later call throws it again. The segment being written then is removed, and
    /// the playlist is written once more listing the whole segments, ended (`EXT-X-ENDLIST`:
    /// the recording stops there); if that fails too, the playlist on disk is the last one
    /// written whole (it is replaced by a rename). Either way every segment a playlist on disk
    /// lists is whole on disk.
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

    private func store(_ pieces: [MP4Segment]) throws(MP4Error) {
        var closed = false
        for piece in pieces {
            switch piece.kind {
            case .initialization:
                closed = try files.closeSegment() || closed
                let name = naming.initialization(piece.sequenceNumber)
                try HLSPlaylistFiles.write(piece.bytes, to: directory + "/" + name)
                if piece.isDiscontinuity { files.add(.discontinuity) }
                files.add(.map(uri: name))
            case .media:
                closed = try files.closeSegment() || closed
                try files.openSegment(naming.segment(piece.sequenceNumber), isIndependent: piece.isIndependent)
                try files.appendToSegment(piece.bytes, duration: piece.duration)
            case .fragment:
                guard files.hasOpenSegment else { throw MP4Error.invalid(.invalidArgument, "a fragment without its segment") }
                try files.appendToSegment(piece.bytes, duration: piece.duration)
            }
        }
        if closed { try files.segmentsClosed() }
    }
}

/// What both HLS writers (``HLSSegmentWriter``, ``HLSTSSegmentWriter``) keep: the media
/// playlist and its file (rewritten through a temporary file and a rename), the segment being
/// written, and the live window (old segments deleted once out of it long enough, init
/// segments nothing refers to any more).
final class HLSPlaylistFiles {
    let directory: String
    let playlistName: String
    var playlist: HLSMediaPlaylist
    let updatesPlaylistAfterEachSegment: Bool
    let window: Int?
    /// Without a window, the entries' lines, rendered as they come.
    private var body = ""
    /// The longest segment so far.
    private var longest: Int64 = 0
    /// The bytes of the segments written since the playlist was.
    private var bytesSincePlaylist = 0
    /// The media segment being written: its file and what its playlist entry needs.
    private var current: (file: MP4File, name: String, duration: Int64, isIndependent: Bool)?
    /// With a window: segments removed from the playlist, deleted once `window` more have been.
    private var removed: [String] = []
    private var removedStart = 0
    /// With a window: how many playlist entries refer to each init segment.
    private var mapUses: [String: Int] = [:]

    /// Creates the directory when it does not exist.
    /// - Throws: ``MP4Error/Code/invalidArgument`` for a window below 3, ``MP4Error/Code/io``.
    init(directory: String, playlistName: String, playlist: HLSMediaPlaylist, updatesPlaylistAfterEachSegment: Bool,
         window: Int?) throws(MP4Error) {
        if let window, window < 3 {
            throw MP4Error.invalid(.invalidArgument, "a live playlist window of \(window) segments is below 3")
        }
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw MP4Error.invalid(.io, "cannot create directory '\(directory)': \(String(cString: strerror(errno)))")
        }
        self.directory = directory
        self.playlistName = playlistName
        self.playlist = playlist
        self.updatesPlaylistAfterEachSegment = updatesPlaylistAfterEachSegment
        self.window = window
    }

    var hasOpenSegment: Bool { current != nil }

    /// Starts a media segment file.
    func openSegment(_ name: String, isIndependent: Bool) throws(MP4Error) {
        let file = try MP4File(creatingAtPath: directory + "/" + name)
        current = (file, name, 0, isIndependent)
    }

    /// Adds `duration` (playlist timescale units) to the open segment.
    func addDuration(_ duration: Int64) {
        current?.duration &+= duration  // steps below 2^62, checked by the caller
    }

    /// Appends bytes lasting `duration` (playlist timescale units) to the open segment.
    func appendToSegment(_ bytes: [UInt8], duration: Int64) throws(MP4Error) {
        guard let file = current?.file else { return }
        try file.append(bytes[...])
        current?.duration &+= duration  // each below 2^32, far fewer than 2^31 pieces
        bytesSincePlaylist &+= bytes.count  // each in memory: no overflow
    }

    /// After segments were closed: rewrites the playlist when it is due (live, and the
    /// segments since the last rewrite hold at least a quarter of its bytes, or with a window).
    func segmentsClosed() throws(MP4Error) {
        if updatesPlaylistAfterEachSegment && (window != nil || bytesSincePlaylist >= body.utf8.count / 4) {
            try writePlaylist()
        }
    }

    /// Closes the last segment and writes the playlist with `EXT-X-ENDLIST`.
    func finish() throws(MP4Error) {
        try closeSegment()
        playlist.hasEnded = true
        if playlist.playlistType == .event { playlist.playlistType = .vod }
        try writePlaylist()
    }

    /// Closes the segment being written and lists it; false when there was none.
    @discardableResult
    func closeSegment() throws(MP4Error) -> Bool {
        guard let segment = current else { return false }
        current = nil
        segment.file.close()
        add(.segment(uri: segment.name, duration: segment.duration))
        longest = max(longest, segment.duration)
        if !segment.isIndependent { playlist.independentSegments = false }
        if let window { slide(to: window) }
        return true
    }

    func add(_ entry: HLSMediaPlaylist.Entry) {
        playlist.entries.append(entry)
        if window == nil {
            body += HLSMediaPlaylist.text(of: entry, timescale: playlist.timescale)
        } else if case .map(let uri) = entry {
            mapUses[uri, default: 0] &+= 1
        }
    }

    /// Removes the oldest segments past the window, keeps the map in force at the top, and
    /// deletes the files that have been out of the playlist long enough.
    func slide(to window: Int) {
        var segments = 0
        for entry in playlist.entries { if case .segment = entry { segments &+= 1 } }
        guard segments > window else { return }
        var lastMap: String?
        var cut = 0
        var excess = segments &- window
        while excess > 0 {
            switch playlist.entries[cut] {
            case .map(let uri):
                lastMap = uri
                mapUses[uri, default: 1] &-= 1
            case .discontinuity:
                playlist.discontinuitySequence &+= 1
            case .segment(let uri, _):
                excess &-= 1
                playlist.mediaSequence &+= 1
                removed.append(uri)
            }
            cut &+= 1
        }
        playlist.entries.removeFirst(cut)
        var mapped = false
        for entry in playlist.entries {
            if case .map = entry { mapped = true }
            if case .segment = entry { break }
        }
        if let lastMap, !mapped {
            playlist.entries.insert(.map(uri: lastMap), at: 0)
            mapUses[lastMap, default: 0] &+= 1
        }
        // Delete what left the playlist more than `window` segments ago, and unused init segments.
        while removed.count &- removedStart > window {
            unlink(directory + "/" + removed[removedStart])
            removedStart &+= 1
        }
        if removedStart > window { removed.removeFirst(removedStart); removedStart = 0 }
        for (uri, uses) in mapUses where uses <= 0 {
            unlink(directory + "/" + uri)
            mapUses[uri] = nil
        }
    }

    func writePlaylist() throws(MP4Error) {
        let path = directory + "/" + playlistName
        var text = playlist.header(targetDuration: HLSMediaPlaylist.targetDuration(longest: longest, timescale: playlist.timescale))
        if window == nil {
            text += body
        } else {
            for entry in playlist.entries { text += HLSMediaPlaylist.text(of: entry, timescale: playlist.timescale) }
        }
        if playlist.hasEnded { text += HLSMediaPlaylist.endList }
        bytesSincePlaylist = 0
        try Self.write(Array(text.utf8), to: path + ".tmp")
        guard rename(path + ".tmp", path) == 0 else {
            throw MP4Error.invalid(.io, "cannot rename to '\(path)': \(String(cString: strerror(errno)))")
        }
        hasWrittenPlaylist = true
    }

    /// Whether the playlist has been written at least once.
    private(set) var hasWrittenPlaylist = false

    /// After a failed write: removes the segment being written (never listed) and writes the
    /// playlist once more with the whole segments, ended; returns the error to throw, which
    /// says what is on disk.
    func failed(_ error: MP4Error) -> MP4Error {
        var told = error.reason
        if let segment = current {
            current = nil
            segment.file.close()
            unlink(directory + "/" + segment.name)
            told += "; the segment being written ('\(segment.name)') was removed"
        }
        unlink(directory + "/" + playlistName + ".tmp")
        let segments = playlist.entries.reduce(0) { n, entry in if case .segment = entry { n + 1 } else { n } }
        playlist.hasEnded = true
        if playlist.playlistType == .event { playlist.playlistType = .vod }
        do throws(MP4Error) {
            try writePlaylist()
            told += "; '\(playlistName)' lists the \(segments) whole segments, ended"
        } catch {
            told += "; '\(playlistName)' was not rewritten (\(error.reason)): it lists only whole segments"
        }
        return MP4Error.invalid(.io, told)
    }

    /// Writes a whole file (an init segment, the playlist's temporary file), or removes what a
    /// failed write left of it.
    static func write(_ bytes: [UInt8], to path: String) throws(MP4Error) {
        let file = try MP4File(creatingAtPath: path)
        defer { file.close() }
        do throws(MP4Error) { try file.append(bytes) } catch {
            unlink(path)
            throw error
        }
    }
}
