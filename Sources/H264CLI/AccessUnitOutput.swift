import CommandLineSupport
import FLV
import Glibc
import H264
import MP4
import MPEGTS

/// The one place where commands that end with access units write them, chosen by OUT's name:
/// `rtp-receive`, `rtsp-pull`, `ts-receive` (all but a `.ts` recording, kept as received) and
/// `convert` from or to MPEG-TS. Every format is written by the library's writer for it, as the
/// access units come:
///
/// | OUT | written |
/// |---|---|
/// | `.mp4`, `.m4v` | MP4 through `MP4Recorder` (fragmented for a recording, else as asked) |
/// | `.ts`, `.m2ts`, `.mts` | MPEG-TS through `TSWriter` (one program, PAT/PMT, PCR, an AUD per access unit) |
/// | `.flv` | FLV through `FLVSampleBuilder` and `FLVWriter` |
/// | a directory (one that exists, or a path ending in `/`), or `NAME.m3u8` | HLS with MPEG-TS segments through `HLSTSSegmentWriter`: `segment-00001.ts`, ... and the playlist (`index.m3u8`, or NAME.m3u8 in its directory), rewritten after each segment |
/// | anything else (`.h264`, `.264`, `-`, `/dev/null`) | Annex-B, 4-byte start codes |
///
/// Times: every format but Annex-B needs them; an access unit without (a second access unit
/// in one PES packet of a transport stream) is skipped with a warning, as are access units a
/// writer refuses (no SPS and PPS known yet for MP4, a decoding time that goes back): the
/// stream goes on. Memory: one access unit's output, and the writer's (Docs/Limits.md).
final class AccessUnitOutput {
    /// The format, from OUT's name.
    enum Format: Equatable {
        case annexB, mp4, transportStream, flv
        /// HLS with TS segments into `directory`, the playlist named `playlist`.
        case hls(directory: String, playlist: String)

        init(path: String) {
            if path.hasSuffix(".m3u8") {
                let slash = path.lastIndex(of: "/")
                let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
                self = .hls(directory: directory, playlist: String(path[(slash.map(path.index(after:)) ?? path.startIndex)...]))
            } else if path.hasSuffix("/") || Self.isDirectory(path) {
                self = .hls(directory: path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path, playlist: "index.m3u8")
            } else if MP4Conversion.isMP4Name(path) {
                self = .mp4
            } else if Self.isTransportStreamName(path) {
                self = .transportStream
            } else if path.hasSuffix(".flv") {
                self = .flv
            } else {
                self = .annexB
            }
        }

        /// True for a name that asks for a transport stream.
        static func isTransportStreamName(_ path: String) -> Bool {
            path.hasSuffix(".ts") || path.hasSuffix(".m2ts") || path.hasSuffix(".mts")
        }

        private static func isDirectory(_ path: String) -> Bool {
            var info = stat()
            return path != "-" && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
        }

        /// True when the format needs every access unit's times.
        var needsTimestamps: Bool { self != .annexB }
    }

    /// The HLS segment duration when none is given.
    static let defaultSegmentDuration: Duration = .seconds(2)

    let path: String
    let format: Format
    private let parameterSets: [NALUnit]
    // One of these, by format.
    private var file: OutputFile?
    private var mp4File: MP4File?
    private var mp4Staging: StagedPath?
    private var recorder: MP4Recorder?
    private var tsWriter: TSWriter?
    private var flvWriter: FLVWriter?
    private var flvBuilder: FLVSampleBuilder?
    private var hls: HLSTSSegmentWriter?
    private var bytes: [UInt8] = []
    /// Access units written, and those skipped (no times, refused by the writer).
    private(set) var written = 0
    private(set) var skipped = 0

    /// Opens OUT.
    /// - Parameters:
    ///   - path: OUT; its name chooses the format (see the type's table).
    ///   - parameterSets: SPS and PPS known before the stream (an SDP's), written where a random
    ///     access point lacks them (MP4, TS, HLS, FLV).
    ///   - staged: true for a conversion (OUT written under a temporary name and renamed by
    ///     ``close()``, ``StagedPath``), false for a recording that keeps what it got.
    ///   - mp4Mode: the MP4 layout (fragmented for a recording: a recording cut short keeps
    ///     its whole fragments).
    ///   - segmentDuration: the HLS target segment duration.
    ///   - input: the input file, which OUT must not be.
    init(path: String, parameterSets: [NALUnit] = [], staged: Bool, mp4Mode: MP4Recorder.Mode = .fragmented(),
         segmentDuration: Duration = defaultSegmentDuration, notSameAs input: ChunkedInput? = nil) throws {
        self.path = path
        format = Format(path: path)
        self.parameterSets = parameterSets
        switch format {
        case .mp4:
            guard path != "-" else { throw CLIError("an MP4 file cannot go to stdout") }
            try OutputFile.refuseOverwriting(input?.fileIdentity, with: path)
            let staging = StagedPath(path, staged: staged)
            let f = try MP4File(creatingAtPath: staging.writingPath)
            mp4Staging = staging
            mp4File = f
            recorder = MP4Recorder(file: f, mode: mp4Mode, parameterSets: parameterSets)
        case .hls(let directory, let playlist):
            hls = try HLSTSSegmentWriter(directory: directory, options: .init(targetDuration: segmentDuration),
                                         naming: HLSSegmentWriter.Naming(playlist: playlist, segmentSuffix: ".ts"),
                                         playlistType: .event, updatesPlaylistAfterEachSegment: true)
        case .transportStream:
            file = try OutputFile(path, notSameAs: input, staged: staged)
            tsWriter = try TSWriter()
        case .flv:
            file = try OutputFile(path, notSameAs: input, staged: staged)
            var writer = FLVWriter()
            try writer.writeMetadata(FLVMetadata())
            flvWriter = writer
            flvBuilder = FLVSampleBuilder(parameterSets: parameterSets)
        case .annexB:
            file = try OutputFile(path, notSameAs: input, staged: staged)
        }
    }

    /// Writes one access unit (in decoding order).
    /// - Throws: what the output's file throws (a full disk); access units a writer refuses are
    ///   skipped, not thrown.
    func write(_ au: some AccessUnitSample) throws {
        if format == .annexB {
            bytes.removeAll(keepingCapacity: true)
            for unit in au.nalUnits { AnnexB.append(unit, to: &bytes) }
            try file?.write(bytes)
            written += 1
            return
        }
        guard au.timestamps != nil else { return skip("an access unit without timestamps (not first in its PES packet)") }
        switch format {
        case .mp4:
            do { try recorder?.write(au) } catch {
                guard error.code == .invalidDecoderConfiguration || error.code == .h264 || error.code == .invalidArgument else { throw error }
                return skip("\(error.code): \(error.reason)")
            }
        case .hls:
            do { try hls?.append(au, parameterSets: parameterSets) } catch {
                guard error.code == .invalidArgument else { throw error }
                return skip("\(error.code): \(error.reason)")
            }
        case .transportStream:
            do { try tsWriter?.write(au, parameterSets: parameterSets) } catch {
                guard error.code == .invalidArgument else { throw error }
                return skip("\(error.code): \(error.reason)")
            }
            if let b = tsWriter?.takeBytes(), !b.isEmpty { try file?.write(b) }
        case .flv:
            guard !au.flags.hasNoPicture else { return }
            do { try flvWriter?.write(flvBuilder!.sample(au)) } catch {
                return skip("\(error.code): \(error.reason)")
            }
            if let b = flvWriter?.takeBytes(), !b.isEmpty { try file?.write(b) }
        case .annexB:
            break
        }
        written += 1
    }

    /// Writes a transport stream's access unit: with its times set in the core's access unit,
    /// so that a picture-format change reaches the HLS segmenter (`EXT-X-DISCONTINUITY`).
    func write(_ au: TSAccessUnit) throws {
        try write(au.timedAccessUnit)
    }

    private func skip(_ reason: String) {
        skipped += 1
        if skipped <= 5 { Output.error("warning: access unit \(written + skipped) not written: \(reason)") }
    }

    /// Ends the output: the MP4 file's last fragment or `moov`, the last HLS segment and the
    /// playlist with `EXT-X-ENDLIST`, the FLV end of sequence; gives a staged file its name.
    func close() throws {
        if skipped > 5 { Output.error("warning: \(skipped) access units not written in all") }
        switch format {
        case .mp4:
            defer { mp4File?.close() }
            try recorder?.finish()  // an error when nothing was recorded
            mp4File?.close()
            try mp4Staging?.commit()
        case .hls:
            try hls?.finish()
            if let hls, hls.droppedLeadingSampleCount > 0 {
                Output.error("warning: skipped \(hls.droppedLeadingSampleCount) access units before the first point where decoding can start")
            }
        case .flv:
            try flvWriter?.writeEndOfSequence()
            if let b = flvWriter?.takeBytes(), !b.isEmpty { try file?.write(b) }
            try file?.close()
        case .transportStream, .annexB:
            try file?.close()
        }
    }

    /// What was written, for a command's last line: `segments and the playlist in DIR` or OUT.
    var writtenDescription: String {
        if let hls { return "\(hls.segmentCount) segments and \(hls.naming.playlist) in \(hls.directory)" }
        return path
    }
}
