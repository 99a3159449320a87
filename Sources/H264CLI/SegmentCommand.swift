import CommandLineSupport
import Glibc
import H264
import MP4
import MPEGTS

/// `h264 segment`: HLS with fragmented MP4 (CMAF) segments, or MPEG-TS segments, from an
/// Annex-B stream or an MP4 file, through the library's `HLSSegmentWriter` or
/// `HLSTSSegmentWriter`.
enum SegmentCommand: CLICommand {
    static let name = "segment"
    static let finishesOnInterruption = true
    static let summary = "cut a stream into HLS segments (CMAF or MPEG-TS) with a playlist"
    static let usage = """
    usage: h264 segment IN -o DIR [--format fmp4|ts] [--duration S] [--fps R] [--start-at idr|random-access|any]
                       [--max-segment-duration S] [--parameter-sets auto|new-init|in-band]
                       [--window N] [--sidx] [--edit-list]

    IN is an Annex-B stream (a file or -) or an MP4 file (recognised by its first bytes). DIR
    (created when missing) gets init.mp4 (ftyp + moov, no samples), segment-00001.m4s, ...
    (styp + moof + mdat) and index.m3u8 (HLS version 7 with EXT-X-MAP, EXTINF,
    EXT-X-TARGETDURATION, EXT-X-ENDLIST). Where decoding can start is read from each access
    unit's NAL units, not from an MP4's sync flags. Access units before the first start point
    cannot be decoded and are skipped (the count is printed); a stream with none is an error.

      --format F          fmp4 (default: CMAF segments as above) or ts: MPEG-TS segments
                          (segment-00001.ts, ...: PAT and PMT, then the access units with an
                          AUD each) and index.m3u8 of HLS version 3 without EXT-X-MAP, for
                          players that cannot play fMP4; a picture-size change starts a segment
                          after EXT-X-DISCONTINUITY (--parameter-sets, --sidx and --edit-list
                          are fMP4's)
      --duration S        target segment duration in seconds (default 2): a segment ends at
                          the first start point at or after it (less half a frame duration)
      --fps R             frame rate for Annex-B streams without VUI timing
      --start-at WHERE    where segments may start: idr (default; each segment decodes alone
                          and the playlist says EXT-X-INDEPENDENT-SEGMENTS), random-access
                          (also recovery points: open GOP, intra refresh; the playlist then
                          does not claim independence), any (any access unit; --cut-anywhere)
      --max-segment-duration S
                          cut a segment that reaches S seconds without a start point (default:
                          10 times --duration, at least 30); the playlist then drops
                          EXT-X-INDEPENDENT-SEGMENTS
      --parameter-sets M  parameter sets that change mid-stream: auto (default: in band under
                          an avc3 sample entry while the picture size stays, a new init segment
                          and EXT-X-DISCONTINUITY when it changes), new-init (a new init segment
                          for every change), in-band (never a new init segment)
      --window N          a live playlist rewritten after each segment, listing the last N
                          segments (older segment files are deleted)
      --sidx              a segment index (sidx) before each fragment
      --edit-list         an edit list in the init segment starts the presentation at 0
                          (the default shifts the composition offsets instead: trun version 1)
    """

    static func run(_ args: inout Arguments) throws {
        guard let dir = try args.option("-o") ?? args.option("--output") else { throw CLIError("segment needs -o DIR") }
        let seconds = try args.secondsOption("--duration", in: 0.001...86_400) ?? 2
        let maximum = try args.secondsOption("--max-segment-duration", in: 0.001...864_000)
        let fps = try args.rateOption("--fps", limit: 1000)
        let sidx = args.flag("--sidx")
        let anywhere = args.flag("--cut-anywhere")
        let editList = args.flag("--edit-list")
        let window = try args.intOption("--window", in: 3...1_000_000)
        let cutting: MP4FragmentWriter.Options.Cutting
        switch try args.option("--start-at") ?? (anywhere ? "any" : "idr") {
        case "idr": cutting = .atSyncSamples
        case "random-access": cutting = .atRandomAccessPoints
        case "any": cutting = .anySample
        case let other: throw CLIError("--start-at must be idr, random-access or any, not '\(other)'")
        }
        let changes: MP4FragmentWriter.Options.ParameterSetChanges
        switch try args.option("--parameter-sets") ?? "auto" {
        case "auto": changes = .inBandWherePossible
        case "new-init": changes = .newInitializationSegment
        case "in-band": changes = .inBand
        case let other: throw CLIError("--parameter-sets must be auto, new-init or in-band, not '\(other)'")
        }
        let format = try args.option("--format") ?? "fmp4"
        guard format == "fmp4" || format == "ts" else { throw CLIError("--format must be fmp4 or ts, not '\(format)'") }
        let input = try args.positionals(min: 1, max: 1)[0]
        if format == "ts" {
            guard !sidx, !editList, changes == .inBandWherePossible else {
                throw CLIError("--sidx, --edit-list and --parameter-sets are for --format fmp4")
            }
            let options = HLSTSSegmentWriter.Options(targetDuration: .seconds(seconds), cutting: cutting,
                                                     maximumSegmentDuration: maximum.map { .seconds($0) })
            let hls = try HLSTSSegmentWriter(directory: dir, options: options, playlistType: window == nil ? .event : nil,
                                             updatesPlaylistAfterEachSegment: window != nil, window: window)
            var finished = false
            defer {
                if !finished, hls.failure == nil || !hls.hasWrittenPlaylist {
                    removePlaylist(directory: hls.directory, name: hls.naming.playlist)
                }
            }
            try segmentTS(input, fps: fps, into: hls)
            finished = true
            return
        }
        func options(_ timescale: Int64) -> MP4FragmentWriter.Options {
            var o = MP4FragmentWriter.Options(timescale: timescale, targetDuration: .seconds(seconds), cutting: cutting,
                                              parameterSetChanges: changes)
            o.maximumSegmentDuration = maximum.map { .seconds($0) }
            o.writesSegmentIndex = sidx
            if editList { o.compositionTimes = .editList }
            return o
        }
        func makeWriter(_ timescale: Int64) throws(MP4Error) -> HLSSegmentWriter {
            try HLSSegmentWriter(directory: dir, options: options(timescale), playlistType: window == nil ? .event : nil,
                                 updatesPlaylistAfterEachSegment: window != nil, window: window)
        }
        var writer: HLSSegmentWriter?
        var finished = false
        // A failed write leaves the playlist the writer rewrote (its whole segments, ended);
        // any other failure, or a rewrite that failed too, leaves none.
        defer {
            if !finished, let writer, writer.failure == nil || !writer.hasWrittenPlaylist {
                removePlaylist(directory: writer.directory, name: writer.naming.playlist)
            }
        }
        do {
            try segment(input, fps: fps, makeWriter: makeWriter, writer: &writer)
        } catch let error as MP4Error where error.code == .noStartPoint {
            let hint = cutting == .atSyncSamples ? "; --start-at random-access starts segments at recovery points too" : ""
            throw CLIError("no segment written: \(error.reason)\(hint)")
        }
        finished = true
        guard let writer else { throw CLIError("no access unit to segment in '\(input)'") }
        try report(writer, dir: dir)
    }

    /// Reads `input` (MP4 or Annex-B) into the writer `makeWriter` makes.
    private static func segment(_ input: String, fps: (numerator: Int64, denominator: Int64)?,
                                makeWriter: @escaping (Int64) throws(MP4Error) -> HLSSegmentWriter, writer: inout HLSSegmentWriter?) throws {
        if MP4Conversion.isMP4(path: input) {
            let (reader, track) = try MP4Conversion.open(input)
            let hls = try makeWriter(Int64(track.timescale))
            writer = hls
            var samples = reader.samples(of: track)
            while !Interruption.isRequested, let info = try samples.next() {  // SIGINT, SIGTERM: finished with what was read
                try hls.append(try reader.sample(info), description: track.descriptions[info.descriptionIndex])
            }
            try hls.finish()
        } else {
            var timing = TimestampOptions()
            if let fps { timing.frameRate = fps }
            var made: HLSSegmentWriter?
            defer { writer = made }
            try MP4Conversion.mux(try ChunkedInput(input), timing: timing) { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
                let hls = try makeWriter(timescale)
                made = hls
                return hls
            }
        }
    }

    /// Reads `input` (MP4 or Annex-B) into MPEG-TS segments.
    /// (The caller removes the playlist after a failure, as for fMP4.)
    private static func segmentTS(_ input: String, fps: (numerator: Int64, denominator: Int64)?, into hls: HLSTSSegmentWriter) throws {
        if MP4Conversion.isMP4(path: input) {
            let (reader, track) = try MP4Conversion.open(input)
            var units = reader.accessUnits(of: track)
            while !Interruption.isRequested, let au = try units.next() { try hls.append(au) }
        } else {
            var timing = TimestampOptions()
            if let fps { timing.frameRate = fps }
            var parser = AccessUnitParser(timing: timing, leadingData: .skip)
            let chunks = try ChunkedInput(input)
            chunks.framing = .annexB
            var problems = 0
            var ended = false
            while true {
                if !ended && parser.needsInput {
                    if !Interruption.isRequested, let chunk = try chunks.read() {
                        parser.append(chunk)
                    } else {
                        parser.finish()
                        ended = true
                    }
                }
                do {
                    if let au = try parser.next() {
                        if !au.flags.hasNoPicture { try hls.append(au) }
                    } else if ended {
                        break
                    }
                } catch let error as H264Error {
                    problems += 1
                    if problems <= 5 { Output.error("warning: \(error.code): \(error.reason)") }
                }
            }
        }
        do throws(MP4Error) {
            try hls.finish()
        } catch {
            if error.code == .noStartPoint { throw CLIError("no segment written: \(error.reason)") }
            throw error
        }
        if hls.droppedLeadingSampleCount > 0 {
            Output.error("warning: skipped \(hls.droppedLeadingSampleCount) access units before the first point where decoding can start")
        }
        if hls.segmentsCutWithoutStartPoint > 0 {
            Output.error("warning: \(hls.segmentsCutWithoutStartPoint) segments cut at the maximum duration without a start point")
        }
        let discontinuities = hls.playlist.entries.filter { $0 == .discontinuity }.count
        Output.note("wrote \(hls.segmentCount) segment\(hls.segmentCount == 1 ? "" : "s")"
                    + "\(discontinuities > 0 ? " (\(discontinuities) discontinuities)" : "") and \(hls.naming.playlist) in \(hls.directory)")
    }

    /// Prints what was written and what the stream made the segmenter do.
    private static func report(_ writer: HLSSegmentWriter, dir: String) throws {
        let fragments = writer.fragmentWriter
        let skipped = fragments.droppedLeadingSampleCount
        if skipped > 0 {
            Output.error("warning: skipped \(skipped) access unit\(skipped == 1 ? "" : "s") before the first point where decoding can start")
        }
        if fragments.segmentsCutWithoutStartPoint > 0 {
            Output.error("warning: \(fragments.segmentsCutWithoutStartPoint) segment\(fragments.segmentsCutWithoutStartPoint == 1 ? "" : "s") "
                         + "cut at the maximum duration without a start point (they do not decode alone; "
                         + "the playlist does not claim EXT-X-INDEPENDENT-SEGMENTS)")
        }
        if fragments.formatChangesCarriedInBand > 0 {
            Output.error("warning: \(fragments.formatChangesCarriedInBand) format changes carried in band: "
                         + "new init segments would have outgrown the media")
        }
        var maps = 0
        var discontinuities = 0
        for entry in writer.playlist.entries {
            if case .map = entry { maps += 1 }
            if case .discontinuity = entry { discontinuities += 1 }
        }
        let segments = fragments.segmentCount
        Output.note("wrote \(segments) segment\(segments == 1 ? "" : "s"), \(fragments.initializationCount) init segment"
                    + "\(fragments.initializationCount == 1 ? "" : "s")\(discontinuities > 0 ? " (\(discontinuities) discontinuities)" : "")"
                    + " and \(writer.naming.playlist) in \(dir)")
    }

    /// After a failure other than a failed write: no playlist in the directory claims its
    /// segments are complete (one there is an earlier run's, whose segments this run has begun
    /// to overwrite).
    private static func removePlaylist(directory: String, name: String) {
        let path = directory + "/" + name
        if unlink(path) == 0 { Output.error("removed '\(path)': the segments in '\(directory)' are this failed run's") }
    }
}
