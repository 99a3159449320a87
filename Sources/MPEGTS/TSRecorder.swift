import H264
import MediaSupport

/// Records a transport stream into a file as it comes: H.264 access units (any
/// `AccessUnitSample`: RTMP, RTP or RTSP input, a demuxed transport stream, an encoder's frames)
/// and the PES packets of the program's other streams (audio) as they are, so that a
/// recording keeps everything a demuxed source carried. The one-call path to a `.ts` file, as
/// `MP4Recorder` is to an MP4 file.
///
/// ```swift
/// let recorder = try TSRecorder(creatingAtPath: "cam1.ts")
/// var parser = TSParser()
/// parser.append(chunk)
/// while let event = parser.next() {
///     switch event {
///     case .programMap(let map): recorder.keepProgram(map)
///     case .accessUnit(let au): try recorder.write(au)
///     case .elementaryStreamPacket(let pes): try recorder.write(pes)
///     default: break
///     }
/// }
/// try recorder.finish()
/// ```
///
/// The file is written by a ``TSWriter`` made at the first write: with the default options, or,
/// once ``keepProgram(_:)`` was given the source's PMT, with the source's program number, PMT
/// PID, H.264 PID and other streams (`stream_type`, `stream_id`, descriptors), so that their
/// PES packets keep their PIDs and a player finds the streams the source described. A stream
/// that a later PMT adds is not in the recording's PMT: its packets are refused
/// (``TSError/Code/invalidArgument``) and counted in ``refusedPacketCount``. Bytes go to the file
/// after every access unit and packet, so a process that stops part-way leaves whole packets.
///
/// Memory: the ``TSWriter``'s (one access unit's packets) and the program map kept.
public final class TSRecorder {
    /// The file's name, as given.
    public let path: String
    /// The writer's options, once the first write has made it.
    public private(set) var options: TSWriter.Options?
    /// PES packets of other streams refused because the recording's PMT does not list them.
    public private(set) var refusedPacketCount = 0
    /// PES packets of other streams written.
    public private(set) var elementaryStreamPacketCount = 0
    /// Access units written.
    public var accessUnitCount: Int { writer?.accessUnitCount ?? 0 }
    /// Bytes written to the file.
    public private(set) var byteCount = 0

    /// SPS and PPS written after the delimiter of every random access point that carries none
    /// (a source that sends them out of band: an RTSP session's SDP, an encoder's).
    public let parameterSets: [NALUnit]
    private let file: SystemFile
    private var writer: TSWriter?
    private var program: TSProgramMap?
    private var finished = false

    /// Creates (or truncates) the file; nothing is written before the first access unit or packet.
    /// - Parameters:
    ///   - path: the file.
    ///   - parameterSets: SPS and PPS to write at every random access point that has none in
    ///     band (``TSWriter/write(_:parameterSets:)``); empty writes the samples as they are.
    /// - Throws: ``TSError/Code/io`` when the file cannot be created.
    public init(creatingAtPath path: String, parameterSets: [NALUnit] = []) throws(TSError) {
        self.path = path
        self.parameterSets = parameterSets
        do throws(FileError) { file = try SystemFile(creatingAtPath: path) } catch { throw Self.failure(error) }
    }

    /// Takes the source's program (its PMT, `TSEvent.programMap`) as the recording's: effective
    /// until the first write, ignored after it. The program's first H.264 stream (`stream_type`
    /// 0x1B) is the one the access units go to; without one, the default video PID is used
    /// unless a stream of the map holds it.
    public func keepProgram(_ map: TSProgramMap) {
        if writer == nil { program = map }
    }

    /// Writes one access unit (in decoding order, with timestamps).
    /// - Throws: the ``TSWriter/write(_:parameterSets:)``'s errors (nothing is written then);
    ///   ``TSError/Code/io`` when the file cannot be written (the recording is then finished
    ///   with what it had: later writes throw too).
    public func write(_ sample: some AccessUnitSample) throws(TSError) {
        try makeWriter()
        try writer!.write(sample, parameterSets: parameterSets)
        try flush()
    }

    /// Writes one PES packet of another stream of the kept program, as it is.
    /// - Throws: ``TSError/Code/invalidArgument`` for a PID the recording's PMT does not list
    ///   (counted in ``refusedPacketCount``); the writer's other errors; ``TSError/Code/io``.
    public func write(_ packet: TSElementaryStreamPacket) throws(TSError) {
        try makeWriter()
        guard options?.otherStreams.contains(where: { $0.pid == packet.pid }) == true else {
            refusedPacketCount += 1
            throw TSError.invalid(.invalidArgument, "PID \(packet.pid) is not a stream of the recording's program")
        }
        try writer!.write(packet)
        elementaryStreamPacketCount += 1
        try flush()
    }

    /// Writes what is left and closes the file. Later calls do nothing.
    /// - Throws: ``TSError/Code/io`` when the file cannot be written or closed.
    public func finish() throws(TSError) {
        guard !finished else { return }
        finished = true
        do throws(FileError) {
            if var writer {
                let rest = writer.takeBytes()
                self.writer = writer
                if !rest.isEmpty { try file.write(rest) }
            }
            try file.close()
        } catch {
            throw Self.failure(error)
        }
    }

    private func makeWriter() throws(TSError) {
        guard !finished else { throw TSError.invalid(.io, "the recording '\(path)' is finished") }
        guard writer == nil else { return }
        let made = Self.options(keeping: program)
        writer = try TSWriter(options: made)
        options = made
    }

    private func flush() throws(TSError) {
        let bytes = writer!.takeBytes()
        guard !bytes.isEmpty else { return }
        do throws(FileError) {
            try file.write(bytes)
            byteCount += bytes.count
        } catch {
            finished = true
            try? file.close()
            throw Self.failure(error)
        }
    }

    /// The writer's options for a source's program: its numbers and PIDs, H.264 on its first
    /// H.264 PID, the other streams as the map lists them (within the writer's PID range).
    static func options(keeping map: TSProgramMap?) -> TSWriter.Options {
        var options = TSWriter.Options()
        guard let map else { return options }
        let usable = map.streams.filter { (0x0010...0x1FFE).contains($0.pid) && $0.pid != map.pmtPID }
        let video = usable.first { $0.streamType == .h264 }
        if map.programNumber != 0 { options.programNumber = map.programNumber }
        if (0x0010...0x1FFE).contains(map.pmtPID) { options.pmtPID = map.pmtPID }
        if let video { options.videoPID = video.pid }
        var seen: Set<UInt16> = [options.pmtPID, options.videoPID]
        options.otherStreams = usable.filter { $0.streamType != .h264 && seen.insert($0.pid).inserted }
        // A map whose size the writer's one section cannot hold keeps the video alone.
        if (try? TSWriter(options: options)) == nil { options.otherStreams = [] }
        if (try? TSWriter(options: options)) == nil { options = TSWriter.Options() }
        return options
    }

    private static func failure(_ error: FileError) -> TSError {
        TSError.invalid(.io, error.description)
    }
}
