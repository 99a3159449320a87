import CommandLineSupport
import Foundation
import H264
import MediaSupport
import MPEGTS
import SRT

/// Where `ts-send` and `ts-receive` connect: `srt://HOST:PORT` (caller), `srt://:PORT`
/// (listener), `udp://HOST:PORT` (unicast or multicast), `udp://@GROUP:PORT` or `udp://:PORT`
/// (receiving).
enum TSEndpoint {
    case srtCaller(host: String, port: Int)
    case srtListener(address: String, port: Int)
    case udp(host: String, port: Int, group: Bool)

    init(_ text: String) throws {
        let (scheme, rest): (String, Substring)
        if text.hasPrefix("srt://") { (scheme, rest) = ("srt", text.dropFirst(6)) }
        else if text.hasPrefix("udp://") { (scheme, rest) = ("udp", text.dropFirst(6)) }
        else { throw CLIError("'\(text)' is not srt://HOST:PORT, srt://:PORT, udp://HOST:PORT or udp://@GROUP:PORT") }
        let group = rest.hasPrefix("@")
        let hostPort = group ? rest.dropFirst() : rest
        guard let colon = hostPort.lastIndex(of: ":"), let port = Int(hostPort[hostPort.index(after: colon)...]),
              (0...65535).contains(port) else { throw CLIError("'\(text)' has no :PORT") }
        var host = String(hostPort[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if scheme == "srt" {
            self = host.isEmpty ? .srtListener(address: "0.0.0.0", port: port) : .srtCaller(host: host, port: port)
        } else {
            self = .udp(host: host, port: port, group: group)
        }
    }

    /// Accepts one caller, waiting in slices so that SIGINT ends the wait.
    static func acceptOne(_ listener: SRTListener) throws -> SRTSocket? {
        while !Interruption.isRequested {
            switch Result(catching: { () throws(SRTError) in try listener.accept(timeout: .milliseconds(250)) }) {
            case .success(let socket): return socket
            case .failure(let error) where error.code == .timedOut: continue
            case .failure(let error): throw error
            }
        }
        return nil
    }
}

/// The SRT options both commands take.
private func srtOptions(_ args: inout Arguments) throws -> SRTOptions {
    var options = SRTOptions()
    if let latency = try args.intOption("--latency", in: 0...60_000) { options.latency = .milliseconds(latency) }
    options.passphrase = try args.option("--passphrase")
    options.streamID = try args.option("--streamid")
    if let key = try args.intOption("--key-length") { options.keyLength = key }
    return options
}

/// `h264 ts-send`: sends a stream as MPEG-TS over SRT or UDP.
enum TSSendCommand: CLICommand {
    static let name = "ts-send"
    static let summary = "send a stream as MPEG-TS over SRT (caller or listener) or UDP (unicast, multicast)"
    static let finishesOnInterruption = true
    static let usage = """
    usage: h264 ts-send IN srt://HOST:PORT | srt://:PORT | udp://HOST:PORT
                        [--passphrase P] [--key-length 16|24|32] [--latency MS] [--streamid S]
                        [--interface IF] [--ttl N] [--speed X] [--fast] [--fps N[/D]]

    Reads IN (Annex-B H.264, or a transport stream: .ts, .m2ts), muxes its access units into
    one program of MPEG-TS (PAT/PMT, PCR, an AUD per access unit) and sends seven 188-byte
    packets per SRT message or UDP datagram, paced in real time by decoding time.

    srt://HOST:PORT connects to an SRT listener (FFmpeg's mode=listener, srt-live-transmit,
    a media server); srt://:PORT listens and sends to the first caller. At the end it waits
    for the receiver's acknowledgements and latency before closing. udp://HOST:PORT sends to a
    unicast or multicast address. Ctrl-C stops sending.

      --passphrase P        SRT encryption (AES), 10...79 characters; the peer needs the same
      --key-length N        AES key bytes: 16 (default), 24 or 32
      --latency MS          SRT latency in milliseconds (default 120)
      --streamid S          SRT stream id sent to the listener (e.g. #!::r=live/cam1,m=publish)
      --interface IF        multicast: the interface to send on (name or IPv4 address)
      --ttl N               multicast: time to live (default 1)
      --speed X             pace at X times real time (default 1)
      --fast                send as fast as the transport takes it
      --fps N[/D]           frame rate of an Annex-B input without timing (default 25)
    """

    static func run(_ args: inout Arguments) throws {
        var options = try srtOptions(&args)
        let interface = try args.option("--interface")
        let ttl = try args.intOption("--ttl", in: 0...255) ?? 1
        let fast = args.flag("--fast")
        let speed = try args.option("--speed").map { s -> Double in
            guard let v = Double(s), v > 0, v <= 1000 else { throw CLIError("--speed: '\(s)' is not a number in (0, 1000]") }
            return v
        } ?? 1
        let fps = try args.option("--fps").map(RTPSendCommand.frameRate) ?? (25, 1)
        let positionals = try args.positionals(min: 2, max: 2)
        let endpoint = try TSEndpoint(positionals[1])
        let units = try accessUnits(Input.readAll(positionals[0]), path: positionals[0], fps: fps)

        let send: (inout TSWriter) throws -> Void
        var finish: () throws -> Void = {}
        var peer = positionals[1]
        switch endpoint {
        case .srtCaller(let host, let port):
            let socket = try SRTSocket.connect(to: host, port: port, options: options)
            send = { try socket.send(packetsOf: &$0, timeout: .seconds(5)) }
            finish = { try socket.finish(timeout: .seconds(5)) }
        case .srtListener(let address, let port):
            options.streamID = nil
            let listener = try SRTListener(address: address, port: port, options: .init(connection: options, maximumConnections: 1))
            Output.line("listening on srt://\(address):\(listener.localPort)")
            try Output.flush()
            guard let socket = try TSEndpoint.acceptOne(listener) else { return }
            peer = "srt://\(socket.remoteHost):\(socket.remotePort)"
            send = { try socket.send(packetsOf: &$0, timeout: .seconds(5)) }
            finish = { try socket.finish(timeout: .seconds(5)) }
        case .udp(let host, let port, _):
            let socket = try TSUDPSocket(sendingTo: host, port: port, multicastInterface: interface, hops: ttl)
            send = { try socket.send(packetsOf: &$0) }
        }

        var writer = try TSWriter()
        let clock = ContinuousClock()
        let start = clock.now
        var firstDTS: Double?
        var sent = 0
        for au in units {
            if Interruption.isRequested { break }
            if !fast, let t = au.timestamps {
                let dts = Double(t.dts) * Double(t.timeBase.numerator) / Double(t.timeBase.denominator)
                let base = firstDTS ?? dts
                firstDTS = base
                let due = start + .nanoseconds(Int64((dts - base) / speed * 1e9))
                while clock.now < due && !Interruption.isRequested {
                    let left = clock.now.duration(to: due).components
                    usleep(left.seconds > 0 ? 250_000 : UInt32(min(left.attoseconds / 1_000_000_000_000, 250_000)))
                }
            }
            try writer.write(au)
            try send(&writer)
            sent += 1
        }
        try finish()
        Output.line("sent \(sent) access units in \(writer.packetCount) packets to \(peer) in \(clock.now - start)")
    }

    /// The access units of an Annex-B stream or a transport stream.
    static func accessUnits(_ bytes: [UInt8], path: String, fps: (Int64, Int64)) throws -> [any AccessUnitSample] {
        let isTS = path.hasSuffix(".ts") || path.hasSuffix(".m2ts") || path.hasSuffix(".mts")
            || (bytes.count >= 377 && bytes[0] == 0x47 && bytes[188] == 0x47 && bytes[376] == 0x47)
        if isTS {
            var parser = TSParser()
            var units: [any AccessUnitSample] = []
            parser.append(bytes)
            parser.finish()
            while let event = parser.next() { if case .accessUnit(let au) = event { units.append(au) } }
            guard !units.isEmpty else { throw CLIError("\(path): no H.264 access unit in the transport stream") }
            return units
        }
        let timing = TimestampOptions(frameRate: fps)
        return AccessUnits.assemble(annexB: bytes[...], timing: timing, leadingData: .skip).accessUnits.filter { !$0.flags.hasNoPicture }
    }
}

/// `h264 ts-receive`: receives MPEG-TS over SRT or UDP into a file.
enum TSReceiveCommand: CLICommand {
    static let name = "ts-receive"
    static let summary = "receive MPEG-TS over SRT (listener or caller) or UDP (unicast, multicast) into a file or HLS"
    static let finishesOnInterruption = true
    static let usage = """
    usage: h264 ts-receive srt://:PORT | srt://HOST:PORT | udp://:PORT | udp://@GROUP:PORT -o OUT
                           [--passphrase P] [--key-length 16|24|32] [--latency MS]
                           [--streamid S] [--interface IF] [--duration S] [--idle-timeout S]
                           [--wait S]

    Receives a transport stream and writes it to OUT: as it arrives when OUT ends in .ts or
    .m2ts (every program and stream kept), else its H.264 access units (the demuxer's:
    continuity gaps are reported, damaged access units kept) as MP4 (fragmented) for .mp4,
    FLV for .flv, HLS with TS segments (2 s, the playlist rewritten after each: a live
    playlist) for a directory, a path ending in / or NAME.m3u8, and Annex-B otherwise.
    srt://:PORT listens for one caller (--streamid: only a caller
    with this stream id is accepted); srt://HOST:PORT calls a listener; udp://:PORT receives
    unicast, udp://@GROUP:PORT joins a multicast group (on --interface). It stops when the SRT
    peer closes, after --duration, after --idle-timeout without data, or on Ctrl-C, and
    prints what it received.

      -o OUT                .ts as received; .mp4, .flv, DIR/ or NAME.m3u8 (HLS); else Annex-B
      --passphrase P        SRT encryption (AES), 10...79 characters
      --key-length N        AES key bytes: 16 (default), 24 or 32
      --latency MS          SRT latency in milliseconds (default 120)
      --streamid S          SRT: the stream id to send (caller) or to accept (listener)
      --interface IF        multicast: the interface to join on (name or IPv4 address)
      --duration S          stop after S seconds
      --idle-timeout S      stop after S seconds without data (default 5)
      --wait S              wait at most S seconds for the peer or the first datagram
                            (default: without a limit for a listener, else the idle timeout)
    """

    static func run(_ args: inout Arguments) throws {
        guard let outPath = try args.option("-o") else { throw CLIError("-o OUT is required") }
        var options = try srtOptions(&args)
        // Arrivals in order, not timed: a recording keeps what the peer sent before closing.
        options.timestampBasedDelivery = false
        let interface = try args.option("--interface")
        let duration = try args.option("--duration").map { try seconds($0, "--duration") }
        let idle = try args.option("--idle-timeout").map { try seconds($0, "--idle-timeout") } ?? .seconds(5)
        let wait = try args.option("--wait").map { try seconds($0, "--wait") }
        let endpoint = try TSEndpoint(try args.positionals(min: 1, max: 1)[0])

        // One receive: the bytes, nil at the timeout.
        let receive: (Duration) throws -> [UInt8]?
        var source = ""
        switch endpoint {
        case .srtCaller(let host, let port):
            let socket = try SRTSocket.connect(to: host, port: port, options: options, timeout: wait ?? .seconds(3))
            receive = { try socket.receive(timeout: $0) }
            source = "srt://\(host):\(port)"
        case .srtListener(let address, let port):
            let wanted = options.streamID
            options.streamID = nil
            let listener = try SRTListener(address: address, port: port, options: .init(
                connection: options, maximumConnections: 1,
                accept: { wanted == nil || $0.streamID == wanted ? .accept : .reject }))
            Output.writeStandardError("listening on srt://\(address):\(listener.localPort)\n")
            let waitDeadline = wait.map { ContinuousClock.now + $0 }
            var accepted: SRTSocket?
            while accepted == nil && !Interruption.isRequested {
                if let waitDeadline, ContinuousClock.now >= waitDeadline { throw CLIError("no caller within --wait") }
                switch Result(catching: { () throws(SRTError) in try listener.accept(timeout: .milliseconds(250)) }) {
                case .success(let socket): accepted = socket
                case .failure(let error) where error.code == .timedOut: continue
                case .failure(let error): throw error
                }
            }
            guard let socket = accepted else { return }
            receive = { try socket.receive(timeout: $0) }
            source = "srt://\(socket.remoteHost):\(socket.remotePort)" + (socket.streamID.map { " (stream id \($0))" } ?? "")
        case .udp(let host, let port, let group):
            let socket = try TSUDPSocket(receivingOn: port, address: group || host.isEmpty ? (host.contains(":") ? "::" : "0.0.0.0") : host,
                                         multicastGroup: group ? host : nil, interface: interface)
            receive = { try socket.receive(timeout: $0) }
            source = "udp://\(group ? "@" : "")\(host):\(port)"
        }

        // A .ts recording keeps the stream as it arrived; every other OUT takes the access units.
        let asTS = outPath.hasSuffix(".ts") || outPath.hasSuffix(".m2ts")
        let file = asTS ? try OutputFile(outPath, staged: false) : nil
        let output = asTS ? nil : try AccessUnitOutput(path: outPath, staged: false)
        var parser = TSParser()
        var bytes = 0, accessUnits = 0, keyframes = 0
        let clock = ContinuousClock()
        let start = clock.now
        var lastData = start
        var stop = "requested"
        var first = true
        func drain() throws {
            while let event = parser.next() {
                guard case .accessUnit(let au) = event else { continue }
                accessUnits += 1
                if au.flags.isSync { keyframes += 1 }
                try output?.write(au)
            }
        }
        loop: while !Interruption.isRequested {
            if let duration, clock.now - start >= duration { stop = "duration"; break }
            let limit = first ? (wait ?? idle) : idle
            if clock.now - lastData >= limit { stop = "idle"; break }
            let got: [UInt8]?
            do {
                got = try receive(.milliseconds(250))
            } catch let error as SRTError where error.code == .connectionClosed {
                stop = "closed"
                break loop
            }
            guard let chunk = got else { continue }
            first = false
            lastData = clock.now
            bytes += chunk.count
            try file?.write(chunk)
            parser.append(chunk)
            try drain()
        }
        parser.finish()
        try drain()
        try file?.close()
        try output?.close()
        let s = parser.statistics
        Output.line("received \(bytes) bytes from \(source): \(accessUnits) access units (\(keyframes) keyframes), "
                    + "\(s.continuityErrors) continuity errors, \(s.skippedBytes) bytes skipped; stopped: \(stop); wrote \(output?.writtenDescription ?? outPath)")
    }

    private static func seconds(_ text: String, _ name: String) throws -> Duration {
        guard let v = Double(text), v >= 0, v <= 1e6 else { throw CLIError("\(name): '\(text)' is not a number of seconds") }
        return .milliseconds(Int64(v * 1000))
    }
}
