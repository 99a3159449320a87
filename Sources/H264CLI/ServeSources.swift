import CommandLineSupport
import Foundation
import H264
import MediaSupport
import MPEGTS
import RTSP
import SRT

/// The streams `h264 serve` is taking and the threads that take them: names held by a source
/// (one source per name), the SRT, UDP and RTSP loops running, the RTSP clients to cancel.
final class LiveStreams: Sendable {
    enum Source: Sendable { case rtmp, other }
    private let names = ThreadLock<[String: (source: Source, count: Int)]>([:])
    private let loops = ThreadLock(0)
    private let clients = ThreadLock<[ObjectIdentifier: RTSPClient]>([:])

    /// Takes `name` for a source; RTMP publishes share a name with each other (the server
    /// refuses a second publisher itself), any other source holds it alone.
    func claim(_ name: String, by source: Source) -> Bool {
        names.withLock { names in
            if let held = names[name], held.source != source || source != .rtmp { return false }
            names[name, default: (source, 0)].count += 1
            return true
        }
    }

    func isLive(_ name: String) -> Bool { names.withLock { $0[name] != nil } }

    /// True when a source other than RTMP holds `name`.
    func isHeldByOtherSource(_ name: String) -> Bool { names.withLock { $0[name]?.source == .other } }

    func release(_ name: String) {
        names.withLock { names in
            guard let held = names[name] else { return }
            names[name] = held.count > 1 ? (held.source, held.count - 1) : nil
        }
    }

    /// Loops and tasks not yet ended.
    var running: Int { loops.withLock { $0 } }
    func started() { loops.withLock { $0 += 1 } }
    func ended() { loops.withLock { $0 -= 1 } }

    /// Runs `body` on a thread of its own (a blocking receive loop), counted in ``running``.
    func spawn(_ body: @escaping @Sendable () -> Void) throws {
        started()
        Thread.detachNewThread { [self] in
            body()
            ended()
        }
    }

    func add(_ client: RTSPClient) { clients.withLock { $0[ObjectIdentifier(client)] = client } }
    func remove(_ client: RTSPClient) { clients.withLock { $0[ObjectIdentifier(client)] = nil } }
    /// Ends every RTSP client's wait (each then sends TEARDOWN and finishes its outputs).
    func cancelClients() { for client in clients.withLock({ Array($0.values) }) { client.cancel() } }
}

/// The sources of `h264 serve` other than RTMP: each a loop on its own thread that hands a
/// stream's access units (and a transport stream's other PES) to its `StreamOutputs`.
enum ServeSources {
    /// `APP/NAME` of a stream named by text from the network (an SRT stream id's resource, an
    /// RTSP URL's path): its first component and the rest when it has two or more, else
    /// `defaultApp` and it; `defaultApp/stream` when empty. Each made safe for a path.
    static func streamPath(_ text: String, defaultApp: String) -> (app: String, name: String) {
        let parts = text.split(separator: "/").map(String.init)
        switch parts.count {
        case 0: return (defaultApp, "stream")
        case 1: return (defaultApp, ServeCommand.safeName(parts[0]))
        default: return (ServeCommand.safeName(parts[0]), ServeCommand.safeName(parts.dropFirst().joined(separator: "/")))
        }
    }

    /// The SRT listener: callers admitted by `key` (the stream id's name or its `key` value) and
    /// only under a name no source holds.
    static func listenSRT(host: String, port: Int, options: SRTOptions, key: String?, maximumConnections: Int,
                          live: LiveStreams) throws -> SRTListener {
        let accept: @Sendable (SRTListener.ConnectionRequest) -> SRTListener.Decision = { request in
            let id = SRTStreamID(request.streamID)
            let (app, name) = streamPath(id.resource, defaultApp: "srt")
            if let key, id.resource != key && id.values["key"] != key {
                Output.error("refused SRT caller \(app)/\(name) from \(request.remoteHost): wrong key")
                return .reject
            }
            if live.isLive(app + "/" + name) {
                Output.error("refused SRT caller \(app)/\(name) from \(request.remoteHost): another source holds the name")
                return .reject
            }
            return .accept
        }
        do throws(SRTError) {
            return try SRTListener(address: host, port: port, options: .init(connection: options, maximumConnections: maximumConnections,
                                                                               accept: accept))
        } catch {
            throw CLIError("cannot listen on srt://\(ServeCommand.shown(host)):\(port): \(error.code): \(error.reason)")
        }
    }

    /// Accepts callers until the listener is cancelled, each on a thread of its own.
    static func acceptCallers(_ listener: SRTListener, settings: ServeCommand.Settings, live: LiveStreams) {
        defer { listener.close() }
        while !Interruption.isRequested {
            let socket: SRTSocket
            do throws(SRTError) { socket = try listener.accept(timeout: .milliseconds(250)) } catch {
                if error.code == .timedOut { continue }
                if error.code != .cancelled { Output.error("warning: the SRT listener stopped taking callers: \(error.reason)") }
                return
            }
            do {
                try live.spawn { receiveCaller(socket, settings: settings, live: live) }
            } catch {
                socket.close()
            }
        }
    }

    /// One SRT caller's transport stream, until it closes or the server stops.
    static func receiveCaller(_ socket: SRTSocket, settings: ServeCommand.Settings, live: LiveStreams) {
        defer { socket.close() }
        let (app, name) = streamPath(SRTStreamID(socket.streamID ?? "").resource, defaultApp: "srt")
        let label = app + "/" + name
        guard live.claim(label, by: .other) else {
            Output.error("refused SRT caller \(label) from \(socket.remoteHost): another source holds the name")
            return
        }
        defer { live.release(label) }
        Output.error("SRT caller \(label) from \(socket.remoteHost):\(socket.remotePort)")
        var ending = "ended"
        receiveTransportStream(label: label, app: app, name: name, settings: settings) { parser, timeout throws(SRTError) in
            do throws(SRTError) {
                return try socket.receive(into: &parser, timeout: timeout) != nil
            } catch {
                if error.code != .connectionClosed {
                    ending = "ended: \(error.reason)"
                }
                throw error
            }
        } ending: { ending }
    }

    /// The UDP stream, from its first datagram until the server stops.
    static func receiveUDP(_ socket: TSUDPSocket, name: String, settings: ServeCommand.Settings, live: LiveStreams) {
        let label = "udp/" + name
        guard live.claim(label, by: .other) else { return }
        defer { live.release(label) }
        var ending = "ended (server stopped)"
        var first = true
        receiveTransportStream(label: label, app: "udp", name: name, settings: settings, waitsForData: true) { parser, timeout throws(TSError) in
            do throws(TSError) {
                guard try socket.receive(into: &parser, timeout: timeout) != nil else { return false }
                if first { Output.error("UDP stream \(label): first datagram"); first = false }
                return true
            } catch {
                if error.code != .cancelled { ending = "ended: \(error.reason)" }
                throw error
            }
        } ending: { ending }
    }

    /// Receives one transport stream into its outputs: `receive` appends the next chunk to the
    /// parser (false when none came within the timeout) and throws when the stream ends; the
    /// outputs are opened at once, or with `waitsForData` at the first chunk. At a stop, what
    /// the socket already holds is taken (at most `drainLimit` chunks, without waiting).
    static func receiveTransportStream<E: Error>(label: String, app: String, name: String, settings: ServeCommand.Settings,
                                                 waitsForData: Bool = false,
                                                 receive: (inout TSParser, Duration) throws(E) -> Bool, ending: () -> String) {
        var outputs: StreamOutputs?
        func open() -> Bool {
            do {
                outputs = try StreamOutputs(label: label, app: app, name: name, settings: settings)
                return true
            } catch {
                Output.error("\(label): \(CLI.message(for: error)); the stream is not recorded")
                return false
            }
        }
        if !waitsForData && !open() { return }
        var parser = TSParser(options: .init(programs: .first))
        var drained = 0
        while drained < drainLimit {
            let stopping = Interruption.isRequested
            do throws(E) {
                guard try receive(&parser, stopping ? .zero : .milliseconds(250)) else {
                    if stopping { break } else { continue }
                }
            } catch {
                break
            }
            if stopping { drained += 1 }
            if outputs == nil && !open() { return }
            while let event = parser.next() { outputs!.take(event) }
        }
        guard outputs != nil else { return }
        parser.finish()
        while let event = parser.next() { outputs!.take(event) }
        let written = outputs!.finish()
        let s = parser.statistics
        Output.error("\(label) \(Interruption.isRequested ? "ended (server stopped)" : ending()): \(outputs!.accessUnits) access units, "
                     + "\(s.packets) TS packets, \(s.continuityErrors) continuity errors" + written)
    }

    /// The most chunks (SRT messages, datagrams: 1,316 bytes each) taken from a socket after a stop.
    static let drainLimit = 4096

    /// Pulls one RTSP presentation's H.264 track into its outputs until it ends or the server
    /// stops; a failure is one line on stderr.
    static func pull(_ text: String, transport: RTSPClient.Transport, settings: ServeCommand.Settings, live: LiveStreams) {
        guard let url = try? RTSPURL(text) else { return }  // checked before the server started
        let (app, name) = streamPath(url.path, defaultApp: "rtsp")
        let label = app + "/" + name
        let shown = "rtsp://\(url.host):\(url.port)\(url.path)"  // no credentials
        guard live.claim(label, by: .other) else {
            Output.error("\(shown): not pulled: another source holds the name \(label)")
            return
        }
        defer { live.release(label) }
        let options = RTSPClient.Options(transport: transport, videoOnly: true, skipsUntilDecodable: true)
        let client: RTSPClient
        do throws(RTSPError) { client = try RTSPClient(url: text, options: options) } catch {
            Output.error("\(shown): pull failed: \(error.code): \(error.reason)")
            return
        }
        live.add(client)
        defer { live.remove(client); client.close() }
        var outputs: StreamOutputs?
        var ending = "ended"
        do {
            try client.start()
            let video = client.setUpTracks.first { $0.isH264 }
            let parameterSets = (try? video?.h264?.parameterSetNALUnits() ?? []) ?? []
            outputs = try StreamOutputs(label: label, app: app, name: name, settings: settings, parameterSets: parameterSets)
            Output.error("pulling \(shown) as \(label)")
            let stop = try client.receive(until: { Interruption.isRequested }) { event in
                if case .video(let au) = event { outputs!.take(au) }
            }
            ending = Interruption.isRequested ? "ended (server stopped)" : "ended (\(stop))"
        } catch let error as RTSPError where error.code == .cancelled {
            ending = "ended (server stopped)"
        } catch {
            ending = "failed: \(CLI.message(for: error))"
        }
        guard outputs != nil else {
            Output.error("\(shown): pull \(ending)")
            return
        }
        let written = outputs!.finish()
        let r = client.report
        Output.error("\(label) \(ending): \(outputs!.accessUnits) access units, \(r.packetsReceived) RTP packets, "
                     + "\(r.packetsLost) lost" + written)
    }
}
