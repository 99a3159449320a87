import CommandLineSupport
import FLV
import H264
import MP4

/// MP4 conversions for `h264 convert` (Annex-B -> MP4, MP4 -> Annex-B or FLV), `h264 segment`
/// and `h264 encode -o out.mp4`: file plumbing over the MP4 library.
enum MP4Conversion {
    /// True when the file at `path` (not `-`) starts like an MP4 file.
    static func isMP4(path: String) -> Bool {
        guard path != "-", let file = try? MP4File(readingAtPath: path) else { return false }
        defer { file.close() }
        guard let head = try? file.read(at: 0, count: Int(min(file.byteCount, 16))) else { return false }
        return MP4Reader.looksLikeMP4(head)
    }

    /// True for an output name that asks for MP4.
    static func isMP4Name(_ path: String) -> Bool { path.hasSuffix(".mp4") || path.hasSuffix(".m4v") }

    /// Annex-B in (a file or stdin, read in 1 MiB chunks), MP4 out.
    static func annexBToMP4(inputPath: String, outputPath: String, mode: MP4Recorder.Mode,
                            timing: TimestampOptions) throws {
        guard outputPath != "-" else { throw CLIError("an MP4 file cannot go to stdout (its header is written last)") }
        let input = try ChunkedInput(inputPath)
        try OutputFile.refuseOverwriting(input.fileIdentity, with: outputPath)
        let staging = StagedPath(outputPath)
        let file = try MP4File(creatingAtPath: staging.writingPath)
        defer { file.close() }
        try mux(input, timing: timing) { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
            try mode.makeWriter(file: file, timescale: timescale)
        }
        file.close()
        try staging.commit()
    }

    /// Muxes Annex-B read in chunks into what `makeWriter` makes (memory: the recorder's, one
    /// chunk, and the output's), then prints the first problems met. An interruption ends the
    /// input after the last whole NAL unit read, and the output is finished with it.
    static func mux(_ input: ChunkedInput, timing: TimestampOptions,
                    makeWriter: @escaping (Int64) throws -> any MP4SampleWriting) throws {
        input.framing = .annexB
        var recorder = MP4AnnexBRecorder(timing: timing, makeWriter: makeWriter)
        while let chunk = try input.read() { try recorder.append(chunk) }
        let summary = try recorder.finish()
        for e in summary.problems.prefix(5) { Output.error("warning: \(e.code): \(e.reason)") }
        if summary.problemCount > 5 { Output.error("warning: \(summary.problemCount) problems in all") }
    }

    /// The first H.264 track of an MP4 file, or an error that says what the file holds.
    static func open(_ path: String) throws -> (reader: MP4Reader, track: MP4Track) {
        let reader = try MP4Reader(try MP4File(readingAtPath: path))
        guard let track = reader.videoTrack else {
            let kinds = reader.tracks.map { "\($0.handlerType) \($0.descriptions.map(\.format.description).joined(separator: ","))" }
            throw CLIError("no H.264 video track in '\(path)' (tracks: \(kinds.isEmpty ? "none" : kinds.joined(separator: "; ")))")
        }
        return (reader, track)
    }

    /// The reason of the error that ends ``mp4ToAnnexB(inputPath:outputPath:)``'s samples at
    /// an interruption.
    private static let interruptedReason = "interrupted"

    /// MP4 in, Annex-B out, one sample at a time.
    static func mp4ToAnnexB(inputPath: String, outputPath: String) throws {
        let (reader, track) = try open(inputPath)
        let output = try OutputFile(outputPath)
        do {
            try writeAnnexB(of: track, from: reader, to: output)
        } catch let error as MP4Error where error.reason == interruptedReason {}  // the output ends with the last sample written
        try output.close()
    }

    /// The samples of `track` as Annex-B into `output`; an interruption ends them with an error
    /// of reason ``interruptedReason``.
    private static func writeAnnexB(of track: MP4Track, from reader: MP4Reader, to output: OutputFile) throws {
        try reader.writeAnnexB(of: track) { (bytes: ArraySlice<UInt8>) throws(MP4Error) in
            if Interruption.isRequested { throw MP4Error(.io, interruptedReason) }
            do { try output.write(Array(bytes)) } catch { throw MP4Error(.io, "\(error)") }
        }
    }

    /// MP4 in, FLV out: the track's access units (``MP4AccessUnitIterator``: the parameter sets
    /// of each description that a sample uses, in band where they change) through ``FLVConversion``.
    static func mp4ToFLV(inputPath: String, outputPath: String) throws {
        let (reader, track) = try open(inputPath)
        let output = try OutputFile(outputPath)
        let metadata = FLVMetadata(decoderConfiguration: track.descriptions.first?.decoderConfiguration, duration: track.duration)
        var accessUnits = reader.accessUnits(of: track)
        try FLVConversion.accessUnitsToFLV(metadata: metadata, next: { Interruption.isRequested ? nil : try accessUnits.next() },
                                           write: { try output.write($0) })
        try output.close()
    }
}

extension MP4Conversion {
    /// `h264 convert` with an MP4 on either side: true when it handled the conversion (an MP4
    /// input, recognised by its first bytes, or `--to mp4` / an output named `.mp4`).
    static func convertIfMP4(input: String, output: String, to: String?, mode: MP4Recorder.Mode,
                             timing: TimestampOptions) throws -> Bool {
        if isMP4(path: input) {
            try OutputFile.refuseOverwriting(OutputFile.fileIdentity(input), with: output)
            switch to ?? (output.hasSuffix(".flv") ? "flv" : "annexb") {
            case "annexb": try mp4ToAnnexB(inputPath: input, outputPath: output)
            case "flv": try mp4ToFLV(inputPath: input, outputPath: output)
            case let other: throw CLIError("an MP4 input converts to annexb or flv, not '\(other)'")
            }
            return true
        }
        guard to == "mp4" || (to == nil && isMP4Name(output)) else { return false }
        try annexBToMP4(inputPath: input, outputPath: output, mode: mode, timing: timing)
        return true
    }

    /// Parses `--mp4-layout fast-start|media-first|fragmented`: the library's recording mode
    /// (fragments of one second).
    static func layout(_ text: String?, default fallback: MP4Recorder.Mode) throws -> MP4Recorder.Mode {
        switch text {
        case nil: return fallback
        case "fast-start": return .progressive(.fastStart)
        case "media-first": return .progressive(.mediaFirst)
        case "fragmented": return .fragmented()
        case let text?: throw CLIError("--mp4-layout must be fast-start, media-first or fragmented, not '\(text)'")
        }
    }
}
