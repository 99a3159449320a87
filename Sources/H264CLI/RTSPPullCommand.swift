import CommandLineSupport
import Foundation
import H264
import RTP
import RTSP

/// `h264 rtsp-pull`: pulls the H.264 track of an RTSP presentation (a camera, a server) and
/// writes Annex-B or MP4, then prints the session's report.
enum RTSPPullCommand: CLICommand {
    static let name = "rtsp-pull"
    static let finishesOnInterruption = true
    static let summary = "pull H.264 from an RTSP camera or server, write Annex-B or MP4, report loss"
    static let usage = """
    usage: h264 rtsp-pull URL -o OUT [--transport tcp|udp] [--duration S] [--timeout S]
                          [--user NAME --password-env VAR] [--json]

    Connects to URL (rtsp://[user[:password]@]host[:port]/path), sets up its H.264 track over
    TCP (interleaved, the default) or UDP, plays it and writes the access units to OUT:
    Annex-B, or MP4 (fragmented) when OUT ends in .mp4 or .m4v, timed by the sender's RTP
    timestamps. Output starts at the first IDR picture whose SPS and PPS are known (from the
    SDP or in band). It stops at --duration, when the source sends BYE, when the server closes
    the connection, or on Ctrl-C (then TEARDOWN is sent); a stream silent for --timeout seconds
    is an error. The password is never printed.

      -o OUT                 output file (- for Annex-B on stdout)
      --transport T          tcp (default) or udp
      --duration S           stop after S seconds
      --timeout S            deadline of each request and the longest silence (default 10)
      --user NAME            user name (instead of the URL's)
      --password-env VAR     the password, read from the environment variable VAR
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
        let output = try ReceiveOutput(path: outPath, parameterSets: (try? video?.h264?.parameterSetNALUnits() ?? []) ?? [])
        Output.error("playing \(client.url) over \(transportName)")
        let end = duration.map { ContinuousClock.now.advanced(by: $0) }
        let stop = try client.receive(until: { Interruption.isRequested || end.map { ContinuousClock.now >= $0 } ?? false }) { event in
            if case .video(let au) = event { try output.write(au) }
        }
        try output.close()
        let r = client.report, s = client.statistics
        let fields: [(String, Int)] = [
            ("packets_received", r.packetsReceived), ("packets_lost", r.packetsLost), ("access_units", r.accessUnitsDelivered),
            ("incomplete_access_units", r.incompleteAccessUnits), ("reference_losses", r.referenceLosses),
            ("access_units_skipped", r.accessUnitsSkipped), ("sender_reports", r.senderReports),
            ("keyframe_requests", s.keyframeRequestsSent), ("keep_alives", s.keepAlivesSent), ("rtcp_sent", s.rtcpPacketsSent),
        ]
        let stopped = end.map { ContinuousClock.now >= $0 } ?? false && stop == .requested ? "duration" : "\(stop)"
        let line: (String) -> Void = outPath == "-" ? { Output.error($0) } : { Output.line($0) }
        if json {
            var o = JSONObject()
            for (k, v) in fields { o.add(dynamicKey: k, v) }
            o.add("stopped", stopped)
            line(o.rendered)
        } else {
            for (k, v) in fields { line("\(k): \(v)") }
            line("stopped: \(stopped)")
        }
    }
}
