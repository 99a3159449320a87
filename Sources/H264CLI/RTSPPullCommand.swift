import CommandLineSupport
import Foundation
import Glibc
import H264
import RTP
import RTSP

/// `h264 rtsp-pull`: pulls the H.264 track of an RTSP presentation (a camera, a server) and
/// writes Annex-B or MP4, then prints the session's report.
enum RTSPPullCommand: CLICommand {
    static let name = "rtsp-pull"
    static let finishesOnInterruption = true
    static let summary = "pull H.264 from an RTSP camera or server, write Annex-B, MP4, TS or HLS, report loss"
    static let usage = """
    usage: h264 rtsp-pull URL -o OUT [--transport tcp|udp] [--duration S] [--timeout S]
                          [--user NAME --password-env VAR] [--progress] [--json]

    Connects to URL (rtsp://[user[:password]@]host[:port]/path), sets up its H.264 track over
    TCP (interleaved, the default) or UDP, plays it and writes the access units to OUT, timed
    by the sender's RTP timestamps: MP4 (fragmented) for .mp4 or .m4v, MPEG-TS for .ts, FLV
    for .flv, HLS with TS segments (2 s, the playlist rewritten after each) for a directory, a
    path ending in / or NAME.m3u8, else Annex-B. The SDP's SPS and PPS are put before random
    access points that lack them. Output starts at the first IDR picture whose SPS and PPS are
    known (from the SDP or in band). It stops at --duration, when the source sends BYE, when
    the server closes the connection, or on Ctrl-C (then TEARDOWN is sent); a stream silent
    for --timeout seconds is an error. The password is never printed.

    While it runs, a line on stderr once a second says what has come so far: RTP packets
    received and lost, access units delivered and lost, and the interarrival jitter (RFC 3550
    A.8) in milliseconds; on a terminal it is rewritten in place, with --progress it is one
    line per second whatever stderr is (a log), and otherwise (a pipe, a file) not printed, so
    scripts and tests see only the report.

      -o OUT                 output file (- for Annex-B on stdout), or DIR/ for HLS
      --transport T          tcp (default) or udp
      --duration S           stop after S seconds
      --timeout S            deadline of each request and the longest silence (default 10)
      --user NAME            user name (instead of the URL's)
      --password-env VAR     the password, read from the environment variable VAR
      --progress             print the loss and jitter line on stderr even when it is not a
                             terminal
      --json                 print the report as one JSON object
    """

    static func run(_ args: inout Arguments) throws {
        guard let outPath = try args.option("-o") else { throw CLIError("-o OUT is required") }
        let transportName = try args.option("--transport") ?? "tcp"
        guard let transport = ["tcp": RTSPClient.Transport.tcp, "udp": .udp][transportName] else {
            throw CLIError("--transport: '\(transportName)' is neither tcp nor udp")
        }
        let duration = try args.option("--duration").map { try RTPReceiveCommand.seconds($0, "--duration") }
        let timeout = try args.option("--timeout").map { try RTPReceiveCommand.seconds($0, "--timeout") } ?? .seconds(10)
        let user = try args.option("--user")
        let passwordVariable = try args.option("--password-env")
        let json = args.flag("--json")
        let progress = args.flag("--progress")
        guard let url = try args.positionals(min: 1, max: 1).first else { throw CLIError("URL is required") }

        var options = RTSPClient.Options(transport: transport, requestTimeout: timeout, silenceTimeout: timeout, videoOnly: true,
                                         skipsUntilDecodable: true)
        if let user {
            guard let passwordVariable, let password = ProcessInfo.processInfo.environment[passwordVariable] else {
                throw CLIError("--user needs --password-env VAR with the password in VAR")
            }
            options.credentials = RTSPCredentials(user: user, password: password)
        }
        let client = try RTSPClient(url: url, options: options)
        defer { client.close() }
        try client.start()
        let video = client.setUpTracks.first { $0.isH264 }
        let output = try AccessUnitOutput(path: outPath, parameterSets: (try? video?.h264?.parameterSetNALUnits() ?? []) ?? [],
                                          staged: false)
        Output.error("playing \(client.url) over \(transportName)")
        let end = duration.map { ContinuousClock.now.advanced(by: $0) }
        // The live line: rewritten on a terminal, a line per second with --progress, else none.
        let terminal = isatty(2) != 0
        var nextLine = ContinuousClock.now + .seconds(1)
        func showProgress() {
            guard terminal || progress, ContinuousClock.now >= nextLine else { return }
            nextLine = ContinuousClock.now + .seconds(1)
            let line = progressLine(client.report, jitter: client.videoJitter)
            if progress { Output.note(line) } else { Output.progress(line) }
        }
        let stop = try client.receive(until: {
            showProgress()
            return Interruption.isRequested || end.map { ContinuousClock.now >= $0 } ?? false
        }) { event in
            if case .video(let au) = event { try output.write(au) }
            showProgress()
        }
        if terminal && !progress { Output.progress(nil) }
        try output.close()
        let r = client.report, s = client.statistics
        let fields: [(String, Int)] = [
            ("packets_received", r.packetsReceived), ("packets_lost", r.packetsLost), ("access_units", r.accessUnitsDelivered),
            ("incomplete_access_units", r.incompleteAccessUnits), ("access_units_lost", r.accessUnitsLost),
            ("reference_losses", r.referenceLosses),
            ("access_units_skipped", r.accessUnitsSkipped), ("sender_reports", r.senderReports),
            ("keyframe_requests", s.keyframeRequestsSent), ("keep_alives", s.keepAlivesSent), ("rtcp_sent", s.rtcpPacketsSent),
        ]
        let stopped = end.map { ContinuousClock.now >= $0 } ?? false && stop == .requested ? "duration" : "\(stop)"
        let line: (String) -> Void = outPath == "-" ? { Output.error($0) } : { Output.line($0) }
        if json {
            var o = JSONObject()
            for (k, v) in fields { o.add(dynamicKey: k, v) }
            o.add("jitter_ms", Double(client.videoJitter.components.seconds) * 1000 + Double(client.videoJitter.components.attoseconds) / 1e15)
            o.add("stopped", stopped)
            line(o.rendered)
        } else {
            for (k, v) in fields { line("\(k): \(v)") }
            line("stopped: \(stopped)")
        }
    }

    /// The live line: `packets 1200 received, 3 lost  access units 40 delivered, 1 lost  jitter 2.1 ms`.
    static func progressLine(_ r: RTPLossReport, jitter: Duration) -> String {
        let ms = Double(jitter.components.seconds) * 1000 + Double(jitter.components.attoseconds) / 1e15
        return "packets \(r.packetsReceived) received, \(r.packetsLost) lost  access units \(r.accessUnitsDelivered) delivered, "
            + "\(r.accessUnitsLost) lost  jitter \(String(format: "%.1f", ms)) ms"
    }
}
