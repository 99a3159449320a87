import CommandLineSupport
import Foundation
import H264
import RTP

/// `h264 rtp-send`: sends an Annex-B stream as RTP (RFC 6184) over UDP and writes its SDP.
enum RTPSendCommand: CLICommand {
    static let name = "rtp-send"
    static let summary = "send an Annex-B stream as RTP over UDP and write an SDP file"
    static let usage = """
    usage: h264 rtp-send FILE --to HOST:PORT [--mtu 1200] [--sdp PATH] [--dry-run] [--fast]
                         [--fps N[/D]] [--speed X] [--payload-type PT] [--repeat-parameter-sets]
                         [--webrtc] [--packetization-mode 0|1] [--no-stap-a]

    Packetises the stream (RFC 6184 packetization-mode 1: single NAL unit, STAP-A, FU-A; or
    mode 0: single NAL unit packets only) and sends it to HOST:PORT ([ADDR]:PORT for IPv6),
    paced in real time from the frame rate.
    Writes an SDP file that FFmpeg and GStreamer receive from, e.g.
    ffmpeg -protocol_whitelist file,udp,rtp -i FILE.sdp ...
    At the end an RTCP sender report and BYE go to PORT + 1, on which receivers stop.

      --to HOST:PORT            destination (the SDP names it as c= address and m= port)
      --mtu N                   largest RTP packet in bytes, header included (default 1200)
      --sdp PATH                where to write the SDP (default FILE.sdp)
      --dry-run                 write the SDP and exit without sending
      --fast                    send as fast as possible instead of in real time
      --fps N[/D]               frame rate for timestamps and pacing (default: the stream's VUI
                                timing, else 25)
      --speed X                 pace at X times real time (default 1)
      --payload-type PT         RTP payload type, 96...127 (default 96)
      --repeat-parameter-sets   put the last SPS/PPS an IDR access unit uses before it when it
                                lacks them
      --webrtc                  the WebRTC preset: mode 1, MTU 1200, STAP-A, SPS+PPS before
                                every IDR in one STAP-A with its timestamp
      --packetization-mode M    1 (default) or 0: one NAL unit per packet, no STAP-A or FU-A;
                                a NAL unit larger than the MTU is an error (encode with
                                --slice-max-size MTU-12)
      --no-stap-a               send no STAP-A (mode 1): every NAL unit that fits alone
    """

    static func run(_ args: inout Arguments) throws {
        let to = try args.option("--to")
        let mtu = try args.intOption("--mtu") ?? 1200
        let sdpOption = try args.option("--sdp")
        let dryRun = args.flag("--dry-run")
        let fast = args.flag("--fast")
        let fpsOption = try args.option("--fps").map(frameRate)
        let speed = try args.option("--speed").map { s -> Double in
            guard let v = Double(s), v > 0, v <= 1000 else { throw CLIError("--speed: '\(s)' is not a number in (0, 1000]") }
            return v
        } ?? 1
        let payloadType = try args.intOption("--payload-type") ?? 96
        guard (96...127).contains(payloadType) else { throw CLIError("--payload-type must be 96...127") }
        let repeatSets = args.flag("--repeat-parameter-sets")
        let webRTC = args.flag("--webrtc")
        let mode = try args.intOption("--packetization-mode") ?? 1
        guard mode == 0 || mode == 1 else { throw CLIError("--packetization-mode must be 0 or 1") }
        let noAggregation = args.flag("--no-stap-a")
        if webRTC && (mode != 1 || noAggregation || mtu != 1200) {
            throw CLIError("--webrtc sets mode 1, STAP-A and MTU 1200; leave out --packetization-mode, --no-stap-a and --mtu")
        }
        let path = try args.positionals(min: 1, max: 1)[0]

        let bytes = try Input.readAll(path)
        guard let to else { throw CLIError("--to HOST:PORT is required") }
        let (host, port) = try hostAndPort(to)

        let units = try AnnexB.split(bytes[...], leadingData: .skip)
        // Access units per 7.4.1.2.4, timed in presentation order on the 90 kHz clock; packets
        // leave in decoding order, paced by decode time.
        let timing = TimestampOptions(frameRate: fpsOption.map { ($0.0, $0.1) } ?? (25, 1),
                                                     overridesStreamTiming: fpsOption != nil)
        let assembled = AccessUnits.assemble(annexB: bytes[...], timing: timing, leadingData: .skip).accessUnits
        let timed = assembled.compactMap { au in
            RTPAccessUnit(sample: au).map { (unit: $0, decodeSeconds: au.timestamps?.decodeSeconds ?? 0) }
        }
        let accessUnits = timed.map(\.unit)
        var statistics = AccessUnitStatistics()
        assembled.forEach { statistics.add($0) }
        let frameSeconds = assembled.first?.timeBase.map { $0.seconds(2) } ?? 0.04

        var rng = SystemRandomNumberGenerator()
        let ssrc: UInt32 = rng.next()
        let configuration: RTPPacketizer.Options = webRTC
            ? .webRTC(payloadType: UInt8(payloadType), ssrc: ssrc, initialSequenceNumber: rng.next(), initialTimestamp: rng.next())
            : .init(mtu: mtu, payloadType: UInt8(payloadType), ssrc: ssrc, initialSequenceNumber: rng.next(),
                    initialTimestamp: rng.next(), aggregates: !noAggregation, parameterSets: repeatSets ? .fromStream : .off,
                    packetizationMode: mode)
        var packetizer = try RTPPacketizer(configuration)
        let sender = try UDPSocket(sendingTo: host, port: port)
        var format = try H264FormatParameters(stream: units)
        format.packetizationMode = configuration.packetizationMode
        let sdp = RTPSessionDescription(connectionAddress: sender.remoteHost, port: port, payloadType: UInt8(payloadType),
                                        format: format, frameRate: 1 / frameSeconds)
        let sdpPath = sdpOption ?? path + ".sdp"
        try Output.write(Array(sdp.text.utf8), to: sdpPath)
        if dryRun {
            Output.line("wrote \(sdpPath)")
            return
        }

        let clock = ContinuousClock()
        let began = clock.now
        let (packetCount, byteCount) = try send(timed, with: &packetizer, to: sender, pacing: fast ? nil : speed,
                                                frameSeconds: frameSeconds, clock: clock)
        if port < 65535 {
            // RTP time at the report (sent 500 ms from now): the stream's end, or the media time
            // paced so far.
            let rtpTimestamp = fast
                ? packetizer.rtpTimestamp(at: statistics.ptsEnd, timeBase: assembled.first?.timeBase ?? TimeBase(numerator: 1, denominator: 90_000))
                : packetizer.rtpTimestamp(at: (clock.now - began + .milliseconds(500)) * speed)
            try sendBye(ssrc: ssrc, rtpTimestamp: rtpTimestamp,
                        packetCount: packetCount, payloadBytes: byteCount - packetCount * RTPHeader.fixedLength,
                        to: UDPSocket(sendingTo: sender.remoteHost, port: port + 1), clock: clock)
        }
        Output.line("sent \(accessUnits.count) access units in \(packetCount) packets (\(byteCount) bytes) to \(sender.remoteHost):\(port) in \(clock.now - began); SDP: \(sdpPath)")
    }

    /// Packetises and sends the access units; with `pacing` (a speed factor), each at its time,
    /// its packets spread over half its frame interval so that a large picture does not arrive
    /// as one burst that overflows the receiver's socket buffer.
    /// - Returns: packets and bytes sent.
    static func send(_ accessUnits: [(unit: RTPAccessUnit, decodeSeconds: Double)], with packetizer: inout RTPPacketizer,
                     to sender: UDPSocket, pacing speed: Double?, frameSeconds: Double, clock: ContinuousClock) throws -> (Int, Int) {
        var packets = RTPPacketBuffer()
        var packetCount = 0, byteCount = 0
        let start = clock.now
        for (au, decodeSeconds) in accessUnits {
            packets.removeAll()
            try packetizer.packetize(au, into: &packets)
            for i in 0..<packets.count {
                if let speed {
                    let spread = packets.count > 1 ? 0.5 * frameSeconds * Double(i) / Double(packets.count) : 0
                    let due = (decodeSeconds + spread) / speed
                    sleep(until: start + .nanoseconds(Int64(due * 1e9)), clock)
                }
                try packets[i].withUnsafeBytes { try sender.send($0) }
            }
            packetCount += packets.count
            byteCount += packets.bytes.count
        }
        return (packetCount, byteCount)
    }

    /// Half a second after the last packet (so that receivers have emptied their jitter
    /// buffers), an RTCP sender report and BYE: FFmpeg and GStreamer end the stream on it.
    static func sendBye(ssrc: UInt32, rtpTimestamp: UInt32, packetCount: Int, payloadBytes: Int, to rtcp: UDPSocket,
                        clock: ContinuousClock) throws {
        sleep(until: clock.now + .milliseconds(500), clock)
        let report = RTCP.senderReportAndBye(ssrc: ssrc, ntpTimestamp: RTCP.ntpTimestamp(unixSeconds: Date().timeIntervalSince1970),
                                             rtpTimestamp: rtpTimestamp,
                                             packetCount: UInt32(truncatingIfNeeded: packetCount),
                                             octetCount: UInt32(truncatingIfNeeded: payloadBytes))
        try report.withUnsafeBytes { try rtcp.send($0) }
    }

    private static func sleep(until due: ContinuousClock.Instant, _ clock: ContinuousClock) {
        while true {
            let (s, atto) = clock.now.duration(to: due).components
            guard s > 0 || (s == 0 && atto > 0) else { return }
            usleep(UInt32(min(s, 1)) * 1_000_000 + UInt32(s >= 1 ? 0 : atto / 1_000_000_000_000))
        }
    }

    static func frameRate(_ s: String) throws -> (Int64, Int64) {
        let parts = s.split(separator: "/")
        guard (1...2).contains(parts.count), let n = Int64(parts[0]), n > 0, n <= 1_000_000 else {
            throw CLIError("--fps: '\(s)' is not N or N/D")
        }
        guard parts.count == 2 else { return (n, 1) }
        guard let d = Int64(parts[1]), d > 0, d <= 1_000_000 else { throw CLIError("--fps: '\(s)' is not N or N/D") }
        return (n, d)
    }

    static func hostAndPort(_ s: String) throws -> (String, Int) {
        var host: Substring, portText: Substring
        if s.hasPrefix("["), let close = s.firstIndex(of: "]") {
            host = s[s.index(after: s.startIndex)..<close]
            let rest = s[s.index(after: close)...]
            guard rest.hasPrefix(":") else { throw CLIError("--to: '\(s)' has no :PORT") }
            portText = rest.dropFirst()
        } else {
            guard let colon = s.lastIndex(of: ":") else { throw CLIError("--to: '\(s)' has no :PORT") }
            host = s[..<colon]
            portText = s[s.index(after: colon)...]
        }
        guard let port = Int(portText), (1...65535).contains(port), !host.isEmpty else {
            throw CLIError("--to: '\(s)' is not HOST:PORT")
        }
        return (String(host), port)
    }
}
