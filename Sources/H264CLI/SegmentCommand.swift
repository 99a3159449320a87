import Glibc
import H264
import MP4

/// `h264 segment`: HLS with fragmented MP4 (CMAF) segments, from an Annex-B stream or an MP4
/// file, through the library's `HLSSegmentWriter`.
enum SegmentCommand: CLICommand {
    static let name = "segment"
    static let finishesOnInterruption = true
    static let summary = "cut a stream into CMAF segments with an HLS playlist"
    static let usage = """
    usage: h264 segment IN -o DIR [--duration S] [--fps R] [--sidx] [--cut-anywhere] [--edit-list]

    IN is an Annex-B stream (a file or -) or an MP4 file (recognised by its first bytes). DIR
    (created when missing) gets init.mp4 (ftyp + moov, no samples), segment-00001.m4s, ...
    (styp + moof + mdat, each starting with a sync sample) and index.m3u8 (HLS version 7 with
    EXT-X-MAP, EXTINF, EXT-X-TARGETDURATION, EXT-X-ENDLIST). A change of parameter sets writes
    init-2.mp4 and an EXT-X-DISCONTINUITY before the segment that needs it.

      --duration S        target segment duration in seconds (default 2): a segment ends at
                          the first sync sample at or after it
      --fps R             frame rate for Annex-B streams without VUI timing
      --sidx              a segment index (sidx) in each segment
      --cut-anywhere      end segments at the target duration even between sync samples
      --edit-list         an edit list in the init segment starts the presentation at 0
                          (the default shifts the composition offsets instead: trun version 1)
    """

    static func run(_ args: inout Arguments) throws {
        guard let dir = try args.option("-o") ?? args.option("--output") else { throw CLIError("segment needs -o DIR") }
        let durationText = try args.option("--duration") ?? "2"
        let fps = try args.rateOption("--fps", limit: 1000)
        let sidx = args.flag("--sidx")
        let anywhere = args.flag("--cut-anywhere")
        let editList = args.flag("--edit-list")
        let input = try args.positionals(min: 1, max: 1)[0]
        guard let seconds = Double(durationText), seconds > 0, seconds < 86_400 else {
            throw CLIError("--duration: '\(durationText)' is not a number of seconds")
        }
        func options(_ timescale: Int64) -> MP4FragmentWriter.Options {
            var o = MP4FragmentWriter.Options(timescale: timescale, targetDuration: max(1, Int64((seconds * Double(timescale)).rounded())))
            o.writesSegmentIndex = sidx
            if anywhere { o.cutting = .anySample }
            if editList { o.compositionTimes = .editList }
            return o
        }
        var writer: HLSSegmentWriter?
        var finished = false
        defer { if !finished, let writer { removePlaylist(of: writer) } }
        if MP4Conversion.isMP4(path: input) {
            let (reader, track) = try MP4Conversion.open(input)
            let hls = try HLSSegmentWriter(directory: dir, options: options(Int64(track.timescale)),
                                           updatesPlaylistAfterEachSegment: false)
            writer = hls
            var samples = reader.samples(of: track)
            while !Interruption.isRequested, let info = try samples.next() {  // SIGINT, SIGTERM: finished with what was read
                try hls.append(try reader.sample(info), description: track.descriptions[info.descriptionIndex])
            }
            try hls.finish()
        } else {
            var timing = TimestampAssigner.Configuration()
            if let fps { timing.frameRate = fps }
            try MP4Conversion.mux(try ChunkedInput(input), timing: timing) { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
                let hls = try HLSSegmentWriter(directory: dir, options: options(timescale), updatesPlaylistAfterEachSegment: false)
                writer = hls
                return hls
            }
        }
        finished = true
        if let playlist = writer?.playlist, let playlistName = writer?.naming.playlist {
            let segments = playlist.entries.filter { if case .segment = $0 { true } else { false } }.count
            let maps = playlist.entries.filter { if case .map = $0 { true } else { false } }.count
            Output.note("wrote \(segments) segments, \(maps) init segment\(maps == 1 ? "" : "s") and \(playlistName) in \(dir)")
        }
    }

    /// After a failure: no playlist in the directory claims its segments are complete (one
    /// there is an earlier run's, whose segments this run has begun to overwrite).
    private static func removePlaylist(of writer: HLSSegmentWriter) {
        let path = writer.directory + "/" + writer.naming.playlist
        if unlink(path) == 0 { Output.error("removed '\(path)': the segments in '\(writer.directory)' are this failed run's") }
    }
}
