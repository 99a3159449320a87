import CommandLineSupport
import FLV
import Foundation
import H264
import MP4
import MediaSupport
import MPEGTS
import RTMP
import RTSP
import SRT

/// `h264 serve`: the library's `RTMPServer` as a command. Each published stream is recorded
/// (FLV with its audio and data tags, or MP4), packaged as HLS, and served to players; the
/// server, the recorders and the HLS writer are the library's, this file only wires them.
enum ServeCommand: CLICommand {
    static let name = "serve"
    static let finishesOnInterruption = true
    static let summary = "media server: streams in over RTMP, SRT, UDP or RTSP; record (FLV/MP4/TS), package HLS, restream"
    static let usage = """
    usage: h264 serve [--rtmp HOST:PORT] [--srt HOST:PORT] [--udp HOST:PORT|@GROUP:PORT]
                      [--rtsp URL]... [--key KEY] [--record DIR] [--record-format flv|mp4|ts]
                      [--hls DIR] [--hls-segment S] [--hls-window N] [--restream URL]
                      [--max-connections N]
                      [--passphrase P] [--srt-latency MS] [--interface IF]
                      [--rtsp-transport tcp|udp]

    Takes live H.264 streams in, from any of these sources at once (at least one):

      --rtmp HOST:PORT     an RTMP server. Publishers (OBS, FFmpeg, GStreamer rtmp2sink,
                           h264 encode --rtmp) send to rtmp://HOST:PORT/APP/NAME; the
                           stream is APP/NAME. Players (ffplay, FFmpeg, GStreamer rtmpsrc)
                           play the same URL while it is published, from its last keyframe.
      --srt HOST:PORT      an SRT listener for MPEG-TS (OBS, FFmpeg srt://, srt-live-transmit,
                           h264 ts-send). The caller's stream id names the stream: APP/NAME
                           ("live/cam1", or "#!::r=live/cam1,m=publish"); a name without '/'
                           is srt/NAME, no stream id is srt/stream.
      --udp HOST:PORT      MPEG-TS in UDP datagrams to HOST:PORT (:PORT for any address), or
                           --udp @GROUP:PORT to join a multicast group (on --interface): one
                           stream, named udp/PORT, from its first datagram until the server
                           stops (a sender that restarts continues the same recording).
      --rtsp URL           pull an RTSP camera or server (rtsp://[user:pass@]host[:port]/path,
                           may be repeated); its H.264 track is the stream named from the
                           URL's path (rtsp://cam/live/main: live/main; rtsp://cam/main:
                           rtsp/main). A pull that fails or ends is reported and not retried;
                           the server goes on (and exits when only pulls were asked and all
                           have ended). Credentials are never printed.

    Host addresses are numeric: 127.0.0.1, 0.0.0.0, [::1], [::]. For each stream:

      --record DIR         record it to DIR/APP/NAME.flv (the default format), .mp4 or .ts;
                           a name already taken gets -1, -2, ... added
      --record-format F    flv: from RTMP, the video, audio and data messages as they came;
                                from SRT, UDP and RTSP, the video only
                           mp4: fragmented MP4, the video only
                           ts:  MPEG-TS: from SRT and UDP, the video and every other stream
                                of the program (audio, data) as it came, on its PIDs; from
                                RTMP and RTSP, the video only
                           (what a format cannot hold is counted in the stream's last line)
      --hls DIR            package it as HLS: DIR/APP/NAME/index.m3u8, fragmented MP4
                           segments starting at IDR pictures (the video only)
      --hls-segment S      the target segment duration in seconds (default 2)
      --hls-window N       the playlist lists the last N segments and older ones are deleted
                           (default 6, at least 3); 0 keeps every segment (an EVENT playlist)
      --restream URL       publish it on to another RTMP server (a CDN, a second server):
                           --restream rtmp://HOST[:PORT] sends APP/NAME to
                           rtmp://HOST:PORT/APP/NAME; --restream rtmp://HOST[:PORT]/APP2 sends
                           it to rtmp://HOST:PORT/APP2/NAME. From RTMP: the video, audio and
                           data as they came; from SRT, UDP and RTSP: the video only (a
                           transport stream's audio and other streams are not restreamed).
                           The video starts at a keyframe. The restream reconnects on its own:
                           when its connection is lost (or cannot be made at the start) it
                           tries again after 0.5 s, 1 s, 2 s ... up to 10 s apart for a
                           minute, keeping up to 10 s (8 MiB) of whole groups of pictures
                           meanwhile, then gives up; a line on stderr for each change (lost,
                           retrying, connected again with the frames dropped, gave up). A
                           restream that gives up ends alone: the recording and the server go
                           on. When the stream ends, its restream gets 5 s to send what is
                           queued and say goodbye.

    Names from the network are made safe for paths: characters other than letters, digits,
    '.', '_' and '-' become '_'. One source per stream name: an SRT caller whose name is live
    is refused, and so is an RTMP publish of a name another source holds.

      --key KEY            RTMP: accept a publish only when its stream name is KEY or its
                           query has key=KEY (rtmp://HOST:PORT/live/cam1?key=KEY), else it is
                           refused with NetStream.Publish.Denied. SRT: accept a caller only
                           when its stream id's name is KEY or the id has key=KEY
                           ("#!::r=live/cam1,key=KEY" or "live/cam1?key=KEY"), else it is
                           refused (rejection 1403). Without --key every publish and caller
                           is accepted: bind to a loopback address or give a key.
      --passphrase P       SRT encryption (AES), 10...79 characters: callers need the same
      --srt-latency MS     SRT latency in milliseconds (default 120)
      --interface IF       UDP multicast: the interface to join on (name or IPv4 address)
      --rtsp-transport T   RTSP media over tcp (interleaved, the default) or udp
      --max-connections N  RTMP connections and SRT callers at once, each (default 256)

    Bounds (message size, bytes per connection, handshake and idle deadlines, demuxer and
    depacketiser limits) are the libraries' defaults (Docs/Limits.md). A line on stderr for
    each stream that starts and ends. SIGINT or SIGTERM stops every source and finishes
    every output (the recordings, the playlists with EXT-X-ENDLIST, the restreams within
    5 s), then exits 0.
    """

    /// The recording's container.
    enum RecordFormat: String, Sendable { case flv, mp4, ts }

    /// What to do with each stream.
    struct Settings: Sendable {
        var recordDirectory: String?
        var recordFormat = RecordFormat.flv
        var hlsDirectory: String?
        var segmentDuration: Duration = .seconds(2)
        var hlsWindow: Int? = 6
        /// `--restream`: where each stream is published on.
        var restream: RestreamTarget?
    }

    static func run(_ args: inout Arguments) throws {
        let rtmpAddress = try args.option("--rtmp")
        let srtAddress = try args.option("--srt")
        let udpAddress = try args.option("--udp")
        let rtspURLs = try args.values("--rtsp")
        let key = try args.option("--key")
        var settings = Settings()
        settings.recordDirectory = try args.option("--record")
        let format = try args.option("--record-format") ?? "flv"
        guard let recordFormat = RecordFormat(rawValue: format) else { throw CLIError("--record-format: '\(format)' is not flv, mp4 or ts") }
        settings.recordFormat = recordFormat
        settings.hlsDirectory = try args.option("--hls")
        if let s = try args.secondsOption("--hls-segment", in: 0.1...600) { settings.segmentDuration = .milliseconds(Int64(s * 1000)) }
        if let n = try args.intOption("--hls-window", in: 0...100_000) {
            guard n == 0 || n >= 3 else { throw CLIError("--hls-window: \(n) is below 3 (0 keeps every segment)") }
            settings.hlsWindow = n == 0 ? nil : n
        }
        let maximumConnections = try args.intOption("--max-connections", in: 1...100_000) ?? 256
        var srtOptions = SRTOptions(timestampBasedDelivery: false)  // arrivals in order: a recording keeps what came
        srtOptions.passphrase = try args.option("--passphrase")
        if let ms = try args.intOption("--srt-latency", in: 0...60_000) { srtOptions.latency = .milliseconds(ms) }
        let interface = try args.option("--interface")
        let restreamURL = try args.option("--restream")
        let transportName = try args.option("--rtsp-transport") ?? "tcp"
        guard let rtspTransport = ["tcp": RTSPClient.Transport.tcp, "udp": .udp][transportName] else {
            throw CLIError("--rtsp-transport: '\(transportName)' is neither tcp nor udp")
        }
        _ = try args.positionals(min: 0, max: 0)
        guard rtmpAddress != nil || srtAddress != nil || udpAddress != nil || !rtspURLs.isEmpty else {
            throw CLIError("give at least one source: --rtmp HOST:PORT, --srt HOST:PORT, --udp HOST:PORT or --rtsp URL")
        }
        if srtOptions.passphrase != nil && srtAddress == nil { throw CLIError("--passphrase is for --srt") }
        if interface != nil && udpAddress == nil { throw CLIError("--interface is for --udp") }
        let rtmp = try rtmpAddress.map { try hostAndPort($0, option: "--rtmp") }
        let srt = try srtAddress.map { try hostAndPort($0, option: "--srt") }
        let udp = try udpAddress.map { try udpEndpoint($0) }
        for text in rtspURLs {
            do throws(RTSPError) { _ = try RTSPURL(text) } catch {
                throw CLIError("--rtsp: not an rtsp:// URL (\(error.reason))")
            }
        }
        for (address, host) in [(rtmpAddress, rtmp?.0), (srtAddress, srt?.0)] {
            if let address, let host, key == nil && !["127.0.0.1", "::1"].contains(host) {
                Output.error("warning: no --key: anyone who reaches \(address) may publish")
            }
        }

        let live = LiveStreams()
        settings.restream = try restreamURL.map { try RestreamTarget($0, live: live) }
        let chosen = settings
        var stops: [() -> Void] = []
        var report: [() -> String] = []

        if let (host, port) = rtmp {
            var options = RTMPServer.Options()
            options.maximumConnections = maximumConnections
            options.authorize = { request in
                if let key, request.streamName != key && request.query["key"] != key {
                    Output.error("refused publish \(request.application)/\(request.streamName) from \(request.peerHost): wrong key")
                    return .reject(reason: "wrong stream key")
                }
                if live.isHeldByOtherSource(safeName(request.application) + "/" + safeName(request.streamName)) {
                    Output.error("refused publish \(request.application)/\(request.streamName) from \(request.peerHost): another source holds the name")
                    return .reject(reason: "the stream name is taken")
                }
                return .allow
            }
            let server: RTMPServer
            do throws(RTMPError) { server = try RTMPServer(host: host, port: port, options: options) } catch {
                throw CLIError("cannot listen on \(rtmpAddress!): \(error.code): \(error.reason)")
            }
            Output.error("listening on rtmp://\(shown(host)):\(server.localPort)/APP/NAME")
            // The published streams are handled by tasks.
            live.started()
            Task {
                await withTaskGroup(of: Void.self) { group in
                    do {
                        for try await ingest in server.publishedStreams {
                            group.addTask { await handle(ingest, settings: chosen, live: live) }
                        }
                    } catch {
                        Output.error("warning: the server stopped taking publishes: \(error)")
                    }
                    await group.waitForAll()
                }
                live.ended()
            }
            stops.append { server.close() }  // every publish ends; each task finishes its outputs
            report.append {
                let s = server.statistics
                return "\(s.publishesAccepted) RTMP publishes (\(s.publishesRefused) refused), \(s.connectionsAccepted) connections"
            }
        }
        if let (host, port) = srt {
            let listener = try ServeSources.listenSRT(host: host, port: port, options: srtOptions, key: key,
                                                      maximumConnections: maximumConnections, live: live)
            Output.error("listening on srt://\(shown(host)):\(listener.localPort) (the stream id names the stream)")
            try live.spawn { ServeSources.acceptCallers(listener, settings: chosen, live: live) }
            stops.append { listener.cancel() }
            report.append {
                let s = listener.statistics
                return "\(s.accepted) SRT callers (\(s.refused + s.refusedAtLimit) refused)"
            }
        }
        if let udp {
            let socket = try TSUDPSocket(receivingOn: udp.port, address: udp.address, multicastGroup: udp.group, interface: interface)
            Output.error("receiving MPEG-TS on udp://\(udp.group.map { "@" + $0 } ?? shown(udp.address)):\(socket.localPort) as udp/\(udp.port)")
            try live.spawn { ServeSources.receiveUDP(socket, name: "\(udp.port)", settings: chosen, live: live) }
            // Not cancelled at a stop: its loop sees the stop, takes what the socket holds and ends.
        }
        for url in rtspURLs {
            try live.spawn { ServeSources.pull(url, transport: rtspTransport, settings: chosen, live: live) }
        }
        stops.append { live.cancelClients() }

        // This thread waits for a signal (or, with pulls alone, for them to end).
        let pullsOnly = rtmp == nil && srt == nil && udp == nil
        while !Interruption.isRequested && !(pullsOnly && live.running == 0) { usleep(50_000) }
        for stop in stops { stop() }
        let deadline = Deadline.after(.seconds(30))
        while live.running > 0 && !deadline.hasPassed { usleep(10_000) }
        if !report.isEmpty { Output.error("served " + report.map { $0() }.joined(separator: ", ")) }
        guard live.running == 0 else { throw CLIError("the outputs did not finish in 30 s") }
    }

    /// A host as it goes in a URL: IPv6 in brackets.
    static func shown(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    /// `--udp`'s value as `h264 ts-receive` reads `udp://...`: `HOST:PORT`, `:PORT` or
    /// `@GROUP:PORT`; the address to bind and the group to join.
    static func udpEndpoint(_ text: String) throws -> (address: String, port: Int, group: String?) {
        guard case .udp(let host, let port, let group) = try TSEndpoint("udp://" + text) else {
            throw CLIError("--udp: '\(text)' is not HOST:PORT or @GROUP:PORT")
        }
        if group { return (host.contains(":") ? "::" : "0.0.0.0", port, host) }
        return (host.isEmpty ? "0.0.0.0" : host, port, nil)
    }

    /// `HOST:PORT` or `[IPv6]:PORT`.
    static func hostAndPort(_ text: String, option: String = "--rtmp") throws -> (String, Int) {
        let bad = CLIError("\(option): '\(text)' is not HOST:PORT (a numeric address and a port, [::1]:1935 for IPv6)")
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
    static func handle(_ ingest: RTMPIngestStream, settings: Settings, live: LiveStreams) async {
        let request = ingest.request
        let label = "\(request.application)/\(request.streamName)"
        let app = safeName(request.application)
        let stream = safeName(request.streamName)
        guard live.claim(app + "/" + stream, by: .rtmp) else {
            Output.error("refused publish \(label) from \(request.peerHost): another source holds the name")
            ingest.cancel()
            return
        }
        defer { live.release(app + "/" + stream) }
        Output.error("publish \(label) from \(request.peerHost):\(request.peerPort)")
        var outputs: StreamOutputs
        do {
            outputs = try StreamOutputs(label: label, app: app, name: stream, settings: settings, hasAudio: true)
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

/// One stream's outputs: the FLV, MP4 or TS recording and the HLS packaging, fed with RTMP
/// events, access units from any source, or a transport stream's events. An input an output
/// cannot take (a time going backwards in FLV, a frame before any SPS and PPS in HLS) is
/// skipped with a warning (the first five of each output); an output that fails to write is
/// closed with what it had, and the others go on. What the recording's format cannot hold
/// (audio and data outside FLV-from-RTMP and TS-from-TS) is counted and said at the end.
struct StreamOutputs {
    let label: String
    var flvFile: OutputFile?
    var flv: FLVWriter?
    /// FLV samples made from access units of a source other than RTMP.
    var flvBuilder = FLVSampleBuilder()
    var mp4File: MP4File?
    var mp4: MP4Recorder?
    var ts: TSRecorder?
    var hls: HLSRecorder?
    /// The restream (`--restream`).
    var restream: RestreamOutput?
    /// The recording's file name.
    var recordingPath: String?
    /// Access units taken.
    private(set) var accessUnits = 0
    /// Audio and data (RTMP tags, other PES, access units of a second H.264 stream) that no
    /// output holds.
    private(set) var notRecorded = 0
    /// The H.264 PID of a transport stream source: the first one's access units are taken.
    private var videoPID: UInt16?
    private var skipped: [String: Int] = [:]

    init(label: String) { self.label = label }

    /// Opens the outputs `settings` asks for: `DIR/app/name.EXT` and `HLS/app/name/`.
    /// - Parameters:
    ///   - parameterSets: SPS and PPS the source gave out of band (an RTSP session's SDP).
    ///   - hasAudio: the FLV header's audio flag (RTMP sources).
    init(label: String, app: String, name: String, settings: ServeCommand.Settings, parameterSets: [NALUnit] = [],
         hasAudio: Bool = false) throws {
        self.label = label
        flvBuilder = FLVSampleBuilder(parameterSets: parameterSets)
        if let dir = settings.recordDirectory {
            try openRecording(directory: dir + "/" + app, name: name, format: settings.recordFormat, parameterSets: parameterSets,
                              hasAudio: hasAudio)
        }
        if let dir = settings.hlsDirectory {
            // The writer makes its own directory, not the ones above it.
            try FileManager.default.createDirectory(atPath: dir + "/" + app, withIntermediateDirectories: true)
            hls = HLSRecorder(directory: dir + "/" + app + "/" + name, targetDuration: settings.segmentDuration,
                              window: settings.hlsWindow, parameterSets: parameterSets)
        }
        if let target = settings.restream {
            restream = RestreamOutput(label: label, url: target.url(app: app, name: name), parameterSets: parameterSets, target: target)
        }
    }

    /// Opens `directory/name.flv` (`.mp4`, `.ts`), or `name-1`, `name-2`... when taken.
    mutating func openRecording(directory: String, name: String, format: ServeCommand.RecordFormat, parameterSets: [NALUnit] = [],
                                hasAudio: Bool = true) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ext = "." + format.rawValue
        var path = directory + "/" + name + ext
        var n = 0
        while FileManager.default.fileExists(atPath: path) {
            n += 1
            path = directory + "/" + name + "-\(n)" + ext
        }
        recordingPath = path
        switch format {
        case .mp4:
            let file = try MP4File(creatingAtPath: path)
            mp4File = file
            mp4 = MP4Recorder(file: file, mode: .fragmented(), parameterSets: parameterSets)
        case .ts:
            ts = try TSRecorder(creatingAtPath: path, parameterSets: parameterSets)
        case .flv:
            flvFile = try OutputFile(path, staged: false)  // a recording keeps what it got
            flv = FLVWriter(header: FLVHeader(hasAudio: hasAudio, hasVideo: true))
        }
    }

    /// Hands one RTMP event to every output.
    mutating func take(_ event: RTMPIngestStream.Event) {
        restream?.take(event)
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
            writeFLVBytes()
        } else if case .tag = event {
            notRecorded += 1
        }
        guard case .video(let au) = event else { return }
        takeVideo(au)
    }

    /// Hands one access unit (of a source other than RTMP) to every output.
    mutating func take(_ sample: some AccessUnitSample) {
        restream?.take(sample)
        if flv != nil {
            do { try flv!.write(flvBuilder.sample(sample)) } catch { skip("FLV", error) }
            writeFLVBytes()
        }
        takeVideo(sample)
    }

    /// Hands one event of a transport stream to the outputs: its access units (of the first
    /// H.264 stream), its program map and other streams' PES packets to a TS recording.
    mutating func take(_ event: TSEvent) {
        switch event {
        case .programMap(let map): ts?.keepProgram(map)
        case .accessUnit(let au):
            if videoPID == nil { videoPID = au.pid }
            if au.pid == videoPID { take(au) } else { notRecorded += 1 }
        case .elementaryStreamPacket(let packet):
            guard let ts else { notRecorded += 1; return }
            do { try ts.write(packet) } catch where error.code == .io { fail("TS", error) } catch {
                notRecorded += 1
            }
        default: break
        }
    }

    private mutating func takeVideo(_ au: some AccessUnitSample) {
        accessUnits += 1
        if let mp4 {
            do { try mp4.write(au) } catch where error.code == .invalidDecoderConfiguration || error.code == .h264 || error.code == .invalidArgument {
                skip("MP4", error)
            } catch {
                fail("MP4", error)
            }
        }
        if let ts {
            do { try ts.write(au) } catch where error.code == .io { fail("TS", error) } catch {
                skip("TS", error)
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

    private mutating func writeFLVBytes() {
        if let bytes = flv?.takeBytes(), !bytes.isEmpty {
            do { try flvFile?.write(bytes) } catch { fail("FLV", error) }
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
        case "TS": try? ts?.finish(); ts = nil
        default: try? hls?.finish(); hls = nil
        }
    }

    /// Finishes every output; returns what was written, for the stream's last line.
    mutating func finish() -> String {
        restream?.finish()
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
        if let ts {
            do {
                try ts.finish()
                parts.append("recorded \(ts.path) (\(ts.accessUnitCount) access units, \(ts.elementaryStreamPacketCount) other PES)")
            } catch {
                Output.error("\(label): TS not finished: \(CLI.message(for: error))")
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
        if notRecorded > 0 && (recordingPath != nil || hls != nil) {
            parts.append("\(notRecorded) audio/data messages not recorded (not held by the format)")
        }
        let total = skipped.values.reduce(0, +)
        if total > 5 { parts.append("\(total) messages skipped by the outputs") }
        return parts.isEmpty ? "" : "; " + parts.joined(separator: ", ")
    }
}
