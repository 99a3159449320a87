import CommandLineSupport
import FLV
import MP4
import H264
import RTMP

/// Where `h264 encode` sends its access units: a file in some framing, or an RTMP server.
protocol EncodeOutput: AnyObject {
    /// Takes one access unit, in decoding order.
    func write(_ frame: EncodedFrame) throws
    /// Ends the output (trailers, end of sequence, closing) and gives a file its name.
    func close() throws
    /// After an error: finishes what was written as far as it can and leaves it under its
    /// temporary name (``StagedPath``).
    /// - Returns: the names kept, nil when nothing was kept.
    func closeKeepingPartial() -> String?
}

/// The outputs `h264 encode` knows, chosen from `-o OUT` (and `--format`) and `--rtmp URL`.
enum EncodeOutputs {
    /// The framing of a file output.
    enum Format: String {
        case annexB = "annexb"
        case avcc
        case flv
        case mp4

        /// From OUT's extension: `.avcc`, `.flv`, `.mp4` (or `.m4v`); anything else (`.h264`, `-`,
        /// `/dev/null`) Annex-B.
        init(path: String) {
            if path.hasSuffix(".avcc") { self = .avcc } else if path.hasSuffix(".flv") { self = .flv }
            else if MP4Conversion.isMP4Name(path) { self = .mp4 } else { self = .annexB }
        }
    }

    /// The avcC record file written next to an AVCC output: `OUT-config` (`out.avcc-config`).
    static func defaultConfigurationPath(for path: String) -> String { path + "-config" }

    /// Opens the output for `path` in `format`.
    /// - Parameters:
    ///   - configurationPath: the avcC record file for AVCC (default ``defaultConfigurationPath(for:)``,
    ///     which needs `path` to be a regular file's, not `-` or a device).
    ///   - lengthSize: the NAL unit length size for AVCC.
    ///   - mp4Layout: the MP4 file's layout.
    static func open(_ path: String, format: Format, encoder: any FrameEncoder, metadata: FLVMetadata,
                     configurationPath: String?, lengthSize: AVCC.LengthSize,
                     mp4Layout: MP4Recorder.Mode = .fragmented()) throws -> any EncodeOutput {
        switch format {
        case .mp4:
            return try MP4EncodeOutput(path: path, encoder: encoder, mode: mp4Layout)
        case .avcc:
            guard let config = configurationPath ?? (OutputFile.isRegularFilePath(path) ? defaultConfigurationPath(for: path) : nil) else {
                throw CLIError("--avcc-config FILE is needed when OUT ('\(path)') is not a regular file")
            }
            return try AVCCEncodeOutput(path: path, configurationPath: config, encoder: encoder, lengthSize: lengthSize)
        case .flv:
            return try FLVEncodeOutput(path: path, encoder: encoder, metadata: metadata)
        case .annexB:
            return try AnnexBEncodeOutput(path: path, encoder: encoder)
        }
    }
}

/// An Annex-B stream (4-byte start codes, the encoder's current SPS and PPS before each IDR).
final class AnnexBEncodeOutput: EncodeOutput {
    private let sink: OutputFile
    private let encoder: any FrameEncoder
    init(path: String, encoder: any FrameEncoder) throws {
        sink = try OutputFile(path)
        self.encoder = encoder
    }
    func write(_ frame: EncodedFrame) throws { try sink.write(frame.annexBSample(parameterSets: encoder.parameterSets)) }
    func close() throws { try sink.close() }
    func closeKeepingPartial() -> String? { sink.closeKeepingPartial() }
}

/// AVCC samples (parameter sets out of band) and the avcC record in a second file, as
/// `h264 convert --to avcc` writes them.
final class AVCCEncodeOutput: EncodeOutput {
    private let sink: OutputFile
    private let configuration: OutputFile
    private let record: AVCDecoderConfigurationRecord

    /// Writes the record at once: the encoder knows its parameter sets when it opens.
    /// - Throws: ``H264Error/Code/missingParameterSet`` when the encoder has none.
    init(path: String, configurationPath: String, encoder: any FrameEncoder, lengthSize: AVCC.LengthSize) throws {
        guard let record = try encoder.decoderConfiguration(lengthSize: lengthSize) else {
            throw H264Error.invalid(.missingParameterSet, "the encoder has no SPS/PPS for an avcC record")
        }
        configuration = try OutputFile(configurationPath)
        try configuration.write(record.serialized())
        self.record = record
        sink = try OutputFile(path)
    }

    func write(_ frame: EncodedFrame) throws {
        try sink.write(try record.avccSample(frame.nalUnits, includeParameterSets: false))
    }

    func close() throws {
        try configuration.close()
        try sink.close()
    }

    func closeKeepingPartial() -> String? {
        guard let samples = sink.closeKeepingPartial() else { return nil }
        return configuration.closeKeepingPartial().map { samples + "' and '" + $0 } ?? samples
    }
}

/// An FLV file: `onMetaData`, the AVC sequence header, one tag per frame, end of sequence;
/// written as the frames come.
final class FLVEncodeOutput: EncodeOutput {
    private let sink: OutputFile
    private var writer = FLVWriter()
    private var builder: FLVSampleBuilder

    init(path: String, encoder: any FrameEncoder, metadata: FLVMetadata) throws {
        sink = try OutputFile(path)
        builder = FLVSampleBuilder(parameterSets: encoder.parameterSets)
        try writer.writeMetadata(metadata)
    }

    func write(_ frame: EncodedFrame) throws {
        try writer.write(builder.sample(frame))
        try sink.write(writer.takeBytes())
    }

    func close() throws {
        try writer.writeEndOfSequence()
        try sink.write(writer.takeBytes())
        try sink.close()
    }

    /// Keeps the tags written (each whole).
    func closeKeepingPartial() -> String? { sink.closeKeepingPartial() }
}

/// Live publishing to `rtmp://host[:port]/app/stream`: each frame is queued as soon as the
/// encoder returns it, so the pace is the source's (the encoding loop's).
final class RTMPEncodeOutput: EncodeOutput {
    private let session: RTMPVideoPublisher

    init(url: String, encoder: any FrameEncoder, metadata: FLVMetadata, options: RTMPPublisher.Options) throws {
        session = try RTMPVideoPublisher(url: url, metadata: metadata, parameterSets: encoder.parameterSets, options: options,
                                         events: { Self.note($0) })
    }

    /// One line on stderr per change of the connection (with `--rtmp-reconnect`).
    private static func note(_ event: RTMPPublisher.ConnectionEvent) {
        switch event {
        case .lost(let error): Output.note("rtmp: connection lost: \(error)")
        case .retrying(let attempt, let delay): Output.note("rtmp: attempt \(attempt) in \(delay)")
        case .connected(let attempt, let dropped): Output.note("rtmp: published again (attempt \(attempt), \(dropped) frames dropped)")
        case .gaveUp(let error, let dropped): Output.note("rtmp: gave up (\(dropped) frames dropped): \(error)")
        }
    }

    func write(_ frame: EncodedFrame) throws { try session.send(frame) }

    /// Sends the end of sequence and unpublishes; reports dropped frames on stderr.
    func close() throws {
        let stats = try session.finish()
        if stats.framesDropped > 0 { Output.note("rtmp: \(stats.framesDropped) frames dropped (queue full)") }
        if stats.reconnections > 0 {
            Output.note("rtmp: \(stats.reconnections) reconnections, \(stats.framesDroppedWhileDisconnected) frames dropped while disconnected")
        }
    }

    /// Nothing is kept: the server has what was sent.
    func closeKeepingPartial() -> String? { nil }
}
