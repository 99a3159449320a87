import CommandLineSupport
import Foundation
import H264
import MP4
import RTP

/// `h264 rtp-receive`: receives an H.264 RTP stream over UDP, writes it (``AccessUnitOutput``) and prints
/// a loss/reorder report.
enum RTPReceiveCommand: CLICommand {
    static let name = "rtp-receive"
    static let finishesOnInterruption = true
    static let summary = "receive H.264 over RTP/UDP, write Annex-B, MP4, TS, FLV or HLS, report loss and reordering"
    static let usage = """
    usage: h264 rtp-receive [SDP] -o OUT [--port N] [--rtcp-port N] [--bind ADDR]
                            [--payload-type PT] [--packetization-mode 0|1] [--duration S]
                            [--idle-timeout S] [--wait S] [--strict] [--reorder-window N]
                            [--reorder-delay MS] [--json]

    Listens for RTP (RFC 6184) on a local UDP port, depacketises it and writes the access units
    to OUT, timed by the sender's RTP timestamps (decoding times derived from the stream's
    reorder depth): MP4 (fragmented) for .mp4 or .m4v, MPEG-TS for .ts, FLV for .flv, HLS with
    TS segments (2 s, the playlist rewritten after each) for a directory, a path ending in /
    or NAME.m3u8, else Annex-B. The SDP file (what ffmpeg -sdp_file or h264 rtp-send --sdp
    writes) gives the port (m=video), the payload type, packetization-mode and
    sprop-parameter-sets, which are put before the first IDR picture when the stream does not
    carry them. Without an SDP, --port is required. Output starts at the
    first IDR picture whose SPS and PPS are known: what arrives before it (a stray packet, a
    join in the middle of a GOP) is skipped and counted (access_units_skipped).

    RTCP (RFC 3550) is read on the RTCP port (the SDP's a=rtcp, else the RTP port + 1; with
    a=rtcp-mux, on the RTP port) and on the RTP port when multiplexed (RFC 5761): the sender's
    BYE stops the reception (0.2 s later, for packets still on the way). Otherwise it stops at
    --duration, after --idle-timeout without a packet, or on Ctrl-C; then it prints what was
    received, lost, reordered and duplicated, and why it stopped (bye, idle, duration,
    requested).

      -o OUT                    output file (- for Annex-B on stdout)
      --port N                  local UDP port (default: the SDP's m=video port)
      --rtcp-port N             local RTCP port (default: the SDP's a=rtcp, else port + 1);
                                when it cannot be bound, a warning, and RTCP only multiplexed
      --bind ADDR               local address (default 0.0.0.0, or :: for an IPv6 SDP)
      --payload-type PT         accept only this payload type (default: the SDP's, else any)
      --packetization-mode M    what the sender announced, 0 or 1 (default: the SDP's, else 1)
      --duration S              stop after S seconds
      --idle-timeout S          stop after S seconds without a packet (default 5)
      --wait S                  wait at most S seconds for the first packet (default: the
                                idle timeout)
      --strict                  reject packets that break RFC 6184 (FU-A with start and end
                                bits, forbidden or reserved bit set, FU-A or STAP-A under
                                packetization-mode 0) instead of accepting them with a warning
      --reorder-window N        packets held to put reordered ones back in order (default 64)
      --reorder-delay MS        the longest a packet waits there for the ones before it
                                (default 500); a gap it waited for is counted lost
                                (packets_lost_to_delay), and what comes for it later late
                                (packets_late)
      --json                    print the report as one JSON object
    """

    static func run(_ args: inout Arguments) throws {
        guard let outPath = try args.option("-o") else { throw CLIError("-o OUT is required") }
        let portOption = try args.intOption("--port", in: 0...65535)
        let rtcpPortOption = try args.intOption("--rtcp-port", in: 1...65535)
        let bindOption = try args.option("--bind")
        let ptOption = try args.intOption("--payload-type", in: 0...127)
        let modeOption = try args.intOption("--packetization-mode", in: 0...1)
        let duration = try args.option("--duration").map { try seconds($0, "--duration") }
        let idle = try args.option("--idle-timeout").map { try seconds($0, "--idle-timeout") } ?? .seconds(5)
        let wait = try args.option("--wait").map { try seconds($0, "--wait") }
        let strict = args.flag("--strict")
        let window = try args.intOption("--reorder-window", in: 1...RTPDepacketizer.maximumReorderWindow) ?? 64
        let delay = try args.intOption("--reorder-delay", in: 1...60_000).map { Duration.milliseconds($0) }
        let json = args.flag("--json")
        let sdpPath = try args.positionals(min: 0, max: 1).first

        var configuration = RTPReceiver.Options(duration: duration, idleTimeout: idle, firstPacketTimeout: wait)
        var port = portOption
        var bind = bindOption ?? "0.0.0.0"
        var rtcpPort = rtcpPortOption
        var rtcpMux = false
        if let sdpPath {
            let sdp = try RTPSessionDescription(parsing: String(decoding: try Input.readAll(sdpPath), as: UTF8.self))
            configuration = try RTPReceiver.Options(session: sdp, lenient: !strict, duration: duration, idleTimeout: idle,
                                                          firstPacketTimeout: wait)
            port = port ?? sdp.port
            if bindOption == nil && sdp.connectionAddress.contains(":") { bind = "::" }
            if rtcpPort == nil && !(portOption != nil && portOption != sdp.port) {
                rtcpPort = sdp.rtcpPort
                rtcpMux = sdp.rtcpMux
            }
        } else {
            guard port != nil else { throw CLIError("give an SDP file or --port") }
            configuration.depacketizer.lenient = !strict
        }
        if let ptOption { configuration.depacketizer.payloadType = UInt8(ptOption) }
        if let modeOption { configuration.depacketizer.packetizationMode = modeOption }
        configuration.depacketizer.reorderWindow = window
        if let delay { configuration.depacketizer.maximumReorderDelay = delay }
        // A recording starts where a decoder can: a stray packet first must not end it.
        configuration.skipsUntilDecodable = true

        let output = try AccessUnitOutput(path: outPath, parameterSets: configuration.parameterSets, staged: false)
        let rtp = try UDPSocket(receivingOn: port ?? 0, address: bind)
        var rtcp: UDPSocket?
        var listening = "listening on \(bind) port \(rtp.localPort)"
        if rtcpMux && rtcpPortOption == nil {
            listening += " (RTCP multiplexed)"
        } else if let control = rtcpPort ?? (rtp.localPort < 65535 ? rtp.localPort + 1 : nil) {
            do {
                rtcp = try UDPSocket(receivingOn: control, address: bind, receiveBufferSize: 1 << 20)
                listening += ", RTCP port \(control)"
            } catch {
                Output.error("warning: no RTCP port (\(error.reason)): a BYE or sender report is heard only multiplexed on the RTP port")
            }
        }
        var socket = UDPSocketPair(rtp: rtp, rtcp: rtcp)
        var receiver = try RTPReceiver(configuration)
        Output.error(listening)
        var warnings = 0
        // SIGINT and SIGTERM (Interruption) stop the loop; the output is finished and the report printed.
        let stop = try receiver.run(from: &socket, until: { Interruption.isRequested }, events: { event in
            warnings += 1
            if warnings <= 20 { Output.error("warning: \(event)") }
        }) { au in try output.write(au) }
        try output.close()
        for e in receiver.errors.prefix(5) { Output.error("warning: \(e.code): \(e.reason)") }
        // With Annex-B on stdout, the report goes to stderr.
        printReport(receiver.report, errors: receiver.errorCount, stop: stop, json: json,
                    line: outPath == "-" ? { Output.error($0) } : { Output.line($0) })
    }

    static func printReport(_ r: RTPLossReport, errors: Int, stop: RTPReceiver.Stop, json: Bool, line: (String) -> Void) {
        let fields: [(String, Int)] = [
            ("packets_received", r.packetsReceived), ("packets_lost", r.packetsLost),
            ("packets_reordered", r.reorderedPackets), ("packets_duplicated", r.duplicatePackets),
            ("packets_late_or_duplicated", r.lateOrDuplicate), ("packets_late", r.latePackets),
            ("packets_lost_to_delay", r.packetsLostToDelay), ("packets_out_of_range", r.outOfRange),
            ("packets_rejected", r.packetsRejected), ("resynchronizations", r.resynchronizations),
            ("nal_units_dropped", r.nalUnitsDropped), ("access_units", r.accessUnitsDelivered),
            ("incomplete_access_units", r.incompleteAccessUnits), ("access_units_lost", r.accessUnitsLost),
            ("reference_losses", r.referenceLosses), ("tolerated_violations", r.toleratedViolations),
            ("early_markers", r.earlyMarkers), ("source_changes", r.sourceChanges),
            ("access_units_skipped", r.accessUnitsSkipped), ("rtcp_packets", r.rtcpPacketsReceived),
            ("rtcp_rejected", r.rtcpDatagramsRejected), ("sender_reports", r.senderReports), ("byes_ignored", r.byesIgnored),
            ("errors", errors),
        ]
        if json {
            var o = JSONObject()
            for (k, v) in fields { o.add(dynamicKey: k, v) }
            o.add("stopped", "\(stop)")
            line(o.rendered)
        } else {
            for (k, v) in fields { line("\(k): \(v)") }
            line("stopped: \(stop)")
        }
    }

    static func seconds(_ s: String, _ option: String) throws -> Duration {
        guard let v = Double(s), v > 0, v <= 86_400 else { throw CLIError("\(option): '\(s)' is not a number of seconds in (0, 86400]") }
        return .milliseconds(Int64((v * 1000).rounded(.up)))
    }
}
