import CommandLineSupport
import FLV
import Foundation
import H264
import MP4
import MediaSupport
import RTMP

/// `h264 serve`: the library's `RTMPServer` as a command. Each published stream is recorded
/// (FLV with its audio and data tags, or MP4), packaged as HLS, and served to players; the
/// server, the recorders and the HLS writer are the library's, this file only wires them.
enum ServeCommand: CLICommand {
    static let name = "serve"
    static let finishesOnInterruption = true
    static let summary = "RTMP server: take published streams in, record them (FLV/MP4), package HLS, serve players"
    static let usage = """
    usage: h264 serve --rtmp HOST:PORT [--key KEY] [--record DIR] [--record-format flv|mp4]
                      [--hls DIR] [--hls-segment S] [--hls-window N] [--max-connections N]

    Runs an RTMP server on HOST:PORT (a numeric address: 127.0.0.1, 0.0.0.0, [::1], [::]).
    Publishers (OBS, FFmpeg, GStreamer rtmp2sink, phone apps, h264 encode --publish) send to
    rtmp://HOST:PORT/APP/NAME; players (ffplay, FFmpeg, GStreamer rtmpsrc) play the same URL
    while it is published, starting at its last keyframe. For each published stream:

      --record DIR         record it to DIR/APP/NAME.flv: the video, audio and data messages
                           as they came (--record-format mp4: DIR/APP/NAME.mp4, fragmented,
                           the video only); a name already taken gets -1, -2, ... added
      --hls DIR            package it as HLS: DIR/APP/NAME/index.m3u8, fragmented MP4
                           segments starting at IDR pictures (the video only)
      --hls-segment S      the target segment duration in seconds (default 2)
      --hls-window N       the playlist lists the last N segments and older ones are deleted
                           (default 6, at least 3); 0 keeps every segment (an EVENT playlist)

    Names from the network are made safe for paths: characters other than letters, digits,
    '.', '_' and '-' become '_'.

      --key KEY            accept a publish only when its stream name is KEY or its query has
                           key=KEY (rtmp://HOST:PORT/live/cam1?key=KEY); others are refused
                           with NetStream.Publish.Denied and nothing is recorded. Without
                           --key every publish is accepted: bind to a loopback address or
                           give a key.
      --max-connections N  connections at once (default 256)

    One publisher per stream name: a second is refused. The server's bounds (message size,
    bytes per connection and in total, handshake and idle deadlines) are the library's
    defaults (Docs/Limits.md). A line on stderr for each publish that starts and ends. SIGINT
    or SIGTERM closes the server and finishes every output (the FLV and MP4 files, the
    playlists with EXT-X-ENDLIST), then exits 0.
    """

    /// What to do with each published stream.
    struct Settings: Sendable {
        var recordDirectory: String?
        var recordsMP4 = false
        var hlsDirectory: String?
        var segmentDuration: Duration = .seconds(2)
        var hlsWindow: Int? = 6
    }

    static func run(_ args: inout Arguments) throws {
        guard let address = try args.option("--rtmp") else { throw CLIError("--rtmp HOST:PORT is required") }
        let (host, port) = try hostAndPort(address)
        let key = try args.option("--key")
        var settings = Settings()
        settings.recordDirectory = try args.option("--record")
        switch try args.option("--record-format") ?? "flv" {
        case "flv": settings.recordsMP4 = false
        case "mp4": settings.recordsMP4 = true
        case let other: throw CLIError("--record-format: '\(other)' is not flv or mp4")
        }
        settings.hlsDirectory = try args.option("--hls")
        if let s = try args.secondsOption("--hls-segment", in: 0.1...600) { settings.segmentDuration = .milliseconds(Int64(s * 1000)) }
        if let n = try args.intOption("--hls-window", in: 0...100_000) {
            guard n == 0 || n >= 3 else { throw CLIError("--hls-window: \(n) is below 3 (0 keeps every segment)") }
            settings.hlsWindow = n == 0 ? nil : n
        }
        let maximumConnections = try args.intOption("--max-connections", in: 1...100_000) ?? 256
        _ = try args.positionals(min: 0, max: 0)
        if key == nil && !["127.0.0.1", "::1"].contains(host) {
            Output.error("warning: no --key: anyone who reaches \(address) may publish")
        }

        var options = RTMPServer.Options()
        options.maximumConnections = maximumConnections
        options.authorize = { request in
            guard let key else { return .allow }
            if request.streamName == key || request.query["key"] == key { return .allow }
            Output.error("refused publish \(request.application)/\(request.streamName) from \(request.peerHost): wrong key")
            return .reject(reason: "wrong stream key")
        }
        let server: RTMPServer
        do throws(RTMPError) { server = try RTMPServer(host: host, port: port, options: options) } catch {
            throw CLIError("cannot listen on \(address): \(error.code): \(error.reason)")
        }
        let shown = host.contains(":") ? "[\(host)]" : host
        Output.error("listening on rtmp://\(shown):\(server.localPort)/APP/NAME")

        // The published streams are handled by tasks; this thread waits for a signal.
        let ended = ThreadLock(false)
        let chosen = settings
        Task {
            await withTaskGroup(of: Void.self) { group in
                do {
                    for try await ingest in server.publishedStreams {
                        group.addTask { await handle(ingest, settings: chosen) }
                    }
                } catch {
                    Output.error("warning: the server stopped taking publishes: \(error)")
                }
                await group.waitForAll()
            }
            ended.withLock { $0 = true }
        }
        while !Interruption.isRequested && !ended.withLock({ $0 }) { usleep(50_000) }
        server.close()  // every publish ends; each task finishes its outputs
        let deadline = Deadline.after(.seconds(30))
        while !ended.withLock({ $0 }) && !deadline.hasPassed { usleep(10_000) }
        let s = server.statistics
        Output.error("served \(s.publishesAccepted) publishes (\(s.publishesRefused) refused), \(s.connectionsAccepted) connections")
        guard ended.withLock({ $0 }) else { throw CLIError("the outputs did not finish in 30 s") }
    }

    /// `HOST:PORT` or `[IPv6]:PORT`.
    static func hostAndPort(_ text: String) throws -> (String, Int) {
        let bad = CLIError("--rtmp: '\(text)' is not HOST:PORT (a numeric address and a port, [::1]:1935 for IPv6)")
        var host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { throw bad }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw bad }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        if host.isEmpty { host = "0.0.0.0" }
        guard let port = Int(portText), (0...65535).contains(port) else { throw bad }
        return (String(host), port)
    }

    /// A name from the network as one path component: letters, digits, `.`, `_` and `-` kept,
    /// anything else `_`; never empty, never starting with a dot.
    static func safeName(_ name: String) -> String {
        var out = String(name.unicodeScalars.prefix(200).map { c -> Character in
            c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "." || c == "_" || c == "-") ? Character(c) : "_"
        })
        if out.isEmpty || out.hasPrefix(".") { out = "_" + out }
        return out
    }

    /// Records, packages and reports one published stream until it ends.
    static func handle(_ ingest: RTMPIngestStream, settings: Settings) async {
        let request = ingest.request
        let label = "\(request.application)/\(request.streamName)"
        let app = safeName(request.application)
        let stream = safeName(request.streamName)
        Output.error("publish \(label) from \(request.peerHost):\(request.peerPort)")
        var outputs = StreamOutputs(label: label)
        do {
            if let dir = settings.recordDirectory {
                try outputs.openRecording(directory: dir + "/" + app, name: stream, mp4: settings.recordsMP4)
            }
            if let dir = settings.hlsDirectory {
                // The writer makes its own directory, not the ones above it.
                try FileManager.default.createDirectory(atPath: dir + "/" + app, withIntermediateDirectories: true)
                outputs.hls = HLSRecorder(directory: dir + "/" + app + "/" + stream, targetDuration: settings.segmentDuration,
                                          window: settings.hlsWindow)
            }
        } catch {
            Output.error("\(label): \(CLI.message(for: error)); the stream is not recorded")
            ingest.cancel()
            return
        }
        var ending = "ended"
        do {
            for try await event in ingest { outputs.take(event) }
        } catch let error as RTMPError where error.code == .cancelled {
            ending = "ended (\(Interruption.isRequested ? "server stopped" : error.reason))"
        } catch {
            ending = "ended: \(CLI.message(for: error))"
        }
        let written = outputs.finish()
        let s = ingest.statistics
        Output.error("\(label) \(ending): \(s.accessUnits) access units, \(s.tags) audio/data tags, \(s.bytes) bytes"
                     + (s.eventsDropped > 0 ? ", \(s.eventsDropped) dropped for a slow disk" : "") + written)
    }
}

/// One published stream's outputs: the FLV or MP4 recording and the HLS packaging. An event an
/// output cannot take (a time going backwards in FLV, a frame before any SPS and PPS in HLS) is
/// skipped with a warning (the first five of each output); an output that fails to write is
/// closed with what it had, and the others go on.
struct StreamOutputs {
    let label: String
    var flvFile: OutputFile?
    var flv: FLVWriter?
    var mp4File: MP4File?
    var mp4: MP4Recorder?
    var hls: HLSRecorder?
    /// The recording's file name.
    var recordingPath: String?
    private var skipped: [String: Int] = [:]

    init(label: String) { self.label = label }

    /// Opens `directory/name.flv` (or `.mp4`), or `name-1`, `name-2`... when taken.
    mutating func openRecording(directory: String, name: String, mp4: Bool) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ext = mp4 ? ".mp4" : ".flv"
        var path = directory + "/" + name + ext
        var n = 0
        while FileManager.default.fileExists(atPath: path) {
            n += 1
            path = directory + "/" + name + "-\(n)" + ext
        }
        recordingPath = path
        if mp4 {
            let file = try MP4File(creatingAtPath: path)
            mp4File = file
            self.mp4 = MP4Recorder(file: file, mode: .fragmented())
        } else {
            flvFile = try OutputFile(path, staged: false)  // a recording keeps what it got
            flv = FLVWriter(header: FLVHeader(hasAudio: true, hasVideo: true))
        }
    }

    /// Hands one event to every output.
    mutating func take(_ event: RTMPIngestStream.Event) {
        if flv != nil {
            do {
                switch event {
                case .metadata(let m): try flv!.writeMetadata(m)
                case .decoderConfiguration(let avcC, let t): try flv!.writeDecoderConfiguration(avcC, timestamp: t)
                case .video(let au): try flv!.writeSample(au.flvSample)
                case .endOfSequence(let t): try flv!.writeEndOfSequence(timestamp: t)
                case .tag(let tag, _): try flv!.writeTag(tag)
                }
            } catch {
                skip("FLV", error)
            }
            if let bytes = flv?.takeBytes(), !bytes.isEmpty {
                do { try flvFile?.write(bytes) } catch { fail("FLV", error) }
            }
        }
        guard case .video(let au) = event else { return }
        if let mp4 {
            do { try mp4.write(au) } catch where error.code == .invalidDecoderConfiguration || error.code == .h264 || error.code == .invalidArgument {
                skip("MP4", error)
            } catch {
                fail("MP4", error)
            }
        }
        if let hls {
            do { try hls.write(au) } catch where error.code == .invalidDecoderConfiguration || error.code == .h264 || error.code == .invalidArgument {
                skip("HLS", error)
            } catch {
                fail("HLS", error)
            }
        }
    }

    private mutating func skip(_ output: String, _ error: any Error) {
        skipped[output, default: 0] += 1
        if skipped[output]! <= 5 { Output.error("warning: \(label): \(output) skipped a message: \(CLI.message(for: error))") }
    }

    /// Stops an output after a write failure, keeping what it wrote.
    private mutating func fail(_ output: String, _ error: any Error) {
        Output.error("\(label): \(output) output failed, closed with what it had: \(CLI.message(for: error))")
        switch output {
        case "FLV": try? flvFile?.close(); flvFile = nil; flv = nil
        case "MP4": try? mp4?.finish(); mp4File?.close(); mp4 = nil
        default: try? hls?.finish(); hls = nil
        }
    }

    /// Finishes every output; returns what was written, for the stream's last line.
    mutating func finish() -> String {
        var parts: [String] = []
        if let flvFile {
            if let flv { try? flvFile.write(flv.bytes) }
            do {
                try flvFile.close()
                parts.append("recorded \(flvFile.path)")
            } catch {
                Output.error("\(label): \(CLI.message(for: error))")
            }
        }
        if let mp4, let mp4File {
            defer { mp4File.close() }
            do {
                try mp4.finish()
                parts.append("recorded \(recordingPath ?? "") (\(mp4.frameCount) frames)")
            } catch {
                Output.error("\(label): MP4 not finished: \(CLI.message(for: error))")
            }
        }
        if let hls {
            do {
                try hls.finish()
                parts.append("HLS in \(hls.directory)")
            } catch {
                Output.error("\(label): HLS not finished: \(CLI.message(for: error))")
            }
        }
        let total = skipped.values.reduce(0, +)
        if total > 5 { parts.append("\(total) messages skipped by the outputs") }
        return parts.isEmpty ? "" : "; " + parts.joined(separator: ", ")
    }
}
