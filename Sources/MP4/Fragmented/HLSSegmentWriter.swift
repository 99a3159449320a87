#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes HLS with fragmented MP4 segments into a directory as samples come: init segments
/// (`init.mp4`, then `init-2.mp4`... after a format change), media segments
/// (`segment-00001.m4s`, ...) and the media playlist (`index.m3u8`), rewritten after each
/// segment for live players (through a temporary file and a rename, so a reader never sees
/// half a playlist) or only at the end, and ended with `EXT-X-ENDLIST` by ``finish()``. The
/// playlist's lines are rendered once each.
///
/// A rewrite costs the playlist's size, which grows with the segments: a live rewrite waits
/// until the segments written since the last one hold at least a quarter of the playlist's
/// bytes, so that rewriting never writes more than four times the media. Real segments (tens of
/// kilobytes and more, against about 60 bytes per playlist entry) meet that after every
/// segment for tens of thousands of segments; a stream of tiny segments gets its playlist
/// less often.
///
/// ```swift
/// let hls = try HLSSegmentWriter(directory: "out", options: .init(timescale: 90_000, targetDuration: 180_000))
/// for (description, sample) in samples { try hls.append(sample, description: description) }
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
    public private(set) var playlist: HLSMediaPlaylist
    /// The playlist is rewritten after each segment (else only by ``finish()``).
    public let updatesPlaylistAfterEachSegment: Bool
    private var fragments: MP4FragmentWriter
    /// The entries' lines, rendered as they come, and the longest segment so far.
    private var body = ""
    private var longest: Int64 = 0
    /// The bytes of the segments written since the playlist was.
    private var bytesSincePlaylist = 0

    /// Creates the directory when it does not exist; nothing else is written before the first
    /// sample.
    /// - Throws: ``MP4Error/Code/io`` when the directory cannot be made, and the options'
    ///   errors (see ``MP4FragmentWriter/init(options:)``).
    public init(directory: String, options: MP4FragmentWriter.Options, naming: Naming = Naming(),
                playlistType: HLSMediaPlaylist.PlaylistType? = .event,
                updatesPlaylistAfterEachSegment: Bool = true) throws(MP4Error) {
        self.updatesPlaylistAfterEachSegment = updatesPlaylistAfterEachSegment
        fragments = try MP4FragmentWriter(options: options)
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw MP4Error.invalid(.io, "cannot create directory '\(directory)': \(String(cString: strerror(errno)))")
        }
        self.directory = directory
        self.naming = naming
        playlist = HLSMediaPlaylist(timescale: options.timescale, playlistType: playlistType,
                                    independentSegments: options.cutting == .atSyncSamples)
    }

    public func append(_ sample: MP4Sample, description: MP4SampleDescription) throws(MP4Error) {
        try store(try fragments.append(sample, description: description))
    }

    /// Writes the last segment and the playlist with `EXT-X-ENDLIST` (type VOD if it was EVENT).
    public func finish() throws(MP4Error) {
        let last = try fragments.finish()
        playlist.hasEnded = true
        if playlist.playlistType == .event { playlist.playlistType = .vod }
        try store(last, force: true)
    }

    private func store(_ segments: [MP4Segment], force: Bool = false) throws(MP4Error) {
        for segment in segments {
            switch segment.kind {
            case .initialization:
                let name = naming.initialization(segment.sequenceNumber)
                try Self.write(segment.bytes, to: directory + "/" + name)
                if segment.sequenceNumber > 1 { add(.discontinuity) }
                add(.map(uri: name))
            case .media:
                let name = naming.segment(segment.sequenceNumber)
                try Self.write(segment.bytes, to: directory + "/" + name)
                bytesSincePlaylist &+= segment.bytes.count  // each in memory: no overflow
                add(.segment(uri: name, duration: segment.duration))
                longest = max(longest, segment.duration)
            }
        }
        let due = updatesPlaylistAfterEachSegment && segments.contains { $0.kind == .media }
            && bytesSincePlaylist >= body.utf8.count / 4
        if force || due {
            let path = directory + "/" + naming.playlist
            var text = playlist.header(targetDuration: HLSMediaPlaylist.targetDuration(longest: longest, timescale: playlist.timescale))
            text += body
            bytesSincePlaylist = 0
            if playlist.hasEnded { text += HLSMediaPlaylist.endList }
            try Self.write(Array(text.utf8), to: path + ".tmp")
            guard rename(path + ".tmp", path) == 0 else {
                throw MP4Error.invalid(.io, "cannot rename to '\(path)': \(String(cString: strerror(errno)))")
            }
        }
    }

    private func add(_ entry: HLSMediaPlaylist.Entry) {
        playlist.entries.append(entry)
        body += HLSMediaPlaylist.text(of: entry, timescale: playlist.timescale)
    }

    private static func write(_ bytes: [UInt8], to path: String) throws(MP4Error) {
        let file = try MP4File(creatingAtPath: path)
        defer { file.close() }
        try file.append(bytes)
    }
}
