import CommandLineSupport
import FLV
import Foundation
import H264
import MediaSupport
import RTMP

/// `H264Benchmarks rtmp-load`: one process publishing a file to an RTMP server as N concurrent
/// streams at real time, the load of the server scale benchmark (Docs/Benchmarks.md, "RTMP
/// ingest at scale"; `Docs/bench-rtmp-server.sh` runs it against nginx-rtmp and `h264 serve`).
///
/// The file's access units are framed once (FLV samples, `FLVSampleBuilder`); each stream is an
/// ``RTMPPublisher`` (its own sender thread and bounded queue, dropping until the next keyframe
/// when full), fed by one pacing thread that sends every stream's frame at its decoding time.
/// The streams start staggered across one frame interval, so the server sees an even flow, not
/// N frames at once. The input loops (its timestamps carried on) until the duration is reached.
///
/// What it reports: per stream, frames sent and dropped; how late the pacing thread was; the
/// bytes waiting in the kernel on each connection (the client's send queue plus the server's
/// receive queue, from `/proc/net/tcp`: what a server that falls behind leaves unread, which
/// the publisher's own queue would only see once several MB of socket buffers filled); and,
/// with `--server-pid`, the server's CPU time and RSS over the paced window, with the
/// generator's own CPU time beside them.
enum RTMPLoadCommand {
    static let usage = """
    usage: swift run -c release H264Benchmarks rtmp-load --url rtmp://HOST:PORT/APP --input FILE
                                                         [--streams N] [--duration S]
                                                         [--name PREFIX] [--query Q]
                                                         [--server-pid PID[,PID...]] [--json]

    Replays FILE (an Annex-B H.264 stream) at real time as N concurrent RTMP publishers from
    this process: stream i publishes to rtmp://HOST:PORT/APP/PREFIX-i[?Q]. The streams start
    staggered over one frame interval and loop the file until S seconds of it were sent.

      --streams N      publishers (default 10, at most 1000)
      --duration S     seconds of video per stream (default 30)
      --name PREFIX    stream name prefix (default "load")
      --query Q        query string appended to every stream name (e.g. key=SECRET)
      --server-pid P   the server's process ids (comma-separated: nginx's workers): its CPU
                       time (utime + stime of /proc/P/stat) and RSS (VmRSS) before the
                       publishers connect, when pacing starts and when it ends
      --json           one JSON object instead of the text report

    Real time is held when every stream connected, no frame was dropped, fewer than 1% of the
    sends were more than one frame interval late, and no connection ever had more than one
    second of the stream (at its mean rate) waiting in the kernel's queues.
    """

    /// What one stream sends in a loop of the input: its sequence header, then the frames.
    struct Input: Sendable {
        let metadata: FLVMetadata
        let decoderConfiguration: [UInt8]
        let frames: [FLVVideoSample]
        /// Milliseconds one pass of the input lasts (last DTS plus one frame interval).
        let loopDuration: Int64
        /// The smallest DTS step, in milliseconds (the stagger spreads the streams over it).
        let frameInterval: Int64
        /// Bytes of frames in one pass.
        let bytesPerLoop: Int

        /// Mean bit rate of the frames.
        var bitsPerSecond: Double { Double(bytesPerLoop) * 8 * 1000 / Double(loopDuration) }

        /// Frames the input holds in `milliseconds` of stream time, looping.
        func frameCount(milliseconds: Int64) -> Int {
            var n = 0
            var loop: Int64 = 0
            while true {
                for f in frames {
                    if loop &* loopDuration &+ f.dts >= milliseconds { return n }
                    n += 1
                }
                loop += 1
            }
        }

        /// Frames and the sequence header of an Annex-B stream; its first frame must be a keyframe
        /// (each loop starts there).
        init(annexB: [UInt8]) throws {
            let (accessUnits, errors) = AccessUnits.assemble(annexB: annexB[...], leadingData: .skip)
            if accessUnits.isEmpty, let first = errors.first { throw CLIError("the input has no access unit: \(first)") }
            var builder = FLVSampleBuilder()
            var header: [UInt8]?
            var frames: [FLVVideoSample] = []
            for au in accessUnits where !au.flags.hasNoPicture {
                let built = try builder.sample(au)
                if let avcC = built.avcC {
                    guard header == nil || header == avcC else {
                        throw CLIError("the input changes its parameter sets mid-stream; the load generator replays one configuration")
                    }
                    header = avcC
                }
                frames.append(built.sample)
            }
            guard let header, let first = frames.first, first.isKeyframe, frames.count >= 2 else {
                throw CLIError("the input must start with a keyframe and hold at least two frames")
            }
            var interval = Int64.max
            for (a, b) in zip(frames, frames.dropFirst()) where b.dts > a.dts { interval = min(interval, b.dts - a.dts) }
            guard interval != .max else { throw CLIError("the input's frames all have the same time") }
            let base = first.dts
            self.frames = frames.map { FLVVideoSample(dts: $0.dts - base, pts: $0.pts - base, isKeyframe: $0.isKeyframe, data: $0.data) }
            self.metadata = FLVMetadataCollector.metadata(for: accessUnits)
            self.decoderConfiguration = header
            self.frameInterval = interval
            self.loopDuration = self.frames[self.frames.count - 1].dts + interval
            self.bytesPerLoop = frames.reduce(0) { $0 + $1.data.count }
        }
    }

    /// The pacing thread's lateness: a histogram in milliseconds.
    struct Lateness: Sendable {
        private(set) var sends = 0
        private(set) var maximum: Double = 0
        private(set) var late = 0  // sends later than one frame interval
        let threshold: Double

        init(threshold: Double) { self.threshold = threshold }

        mutating func add(_ ms: Double) {
            sends += 1
            maximum = max(maximum, ms)
            if ms > threshold { late += 1 }
        }

        var lateFraction: Double { sends > 0 ? Double(late) / Double(sends) : 0 }
    }

    static func run(_ args: inout Arguments) throws {
        guard let url = try args.option("--url") else { throw CLIError("rtmp-load needs --url rtmp://HOST:PORT/APP") }
        guard let inputPath = try args.option("--input") else { throw CLIError("rtmp-load needs --input FILE") }
        let streams = try args.intOption("--streams", in: 1...1000) ?? 10
        let duration = try args.secondsOption("--duration", in: 0.5...86_400) ?? 30
        let prefix = try args.option("--name") ?? "load"
        let query = try args.option("--query")
        let pids = try args.option("--server-pid").map { list in
            try list.split(separator: ",").map { s -> Int32 in
                guard let p = Int32(s), p > 0 else { throw CLIError("--server-pid: '\(s)' is not a process id") }
                return p
            }
        } ?? []
        let json = args.flag("--json")
        _ = try args.positionals(min: 0, max: 0)
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        // The application part must parse (one stream name added).
        let port = try RTMPURL(base + "/x").port

        let input = try Input(annexB: BenchCommand.readFile(inputPath))
        let report = try LoadRun(input: input, streams: streams, milliseconds: Int64(duration * 1000),
                                 urls: (0..<streams).map { "\(base)/\(prefix)-\($0)" + (query.map { "?" + $0 } ?? "") },
                                 port: port, serverPIDs: pids).run()
        print(json ? report.json(input: input, streams: streams).rendered : report.text(input: input, url: base, streams: streams, seconds: duration))
        if !report.heldRealTime { throw LoadFellBehind() }
    }

    /// Exit status 3: the run ended but did not hold real time (the script's step search reads it).
    struct LoadFellBehind: Error, CustomStringConvertible {
        var description: String { "the load did not hold real time" }
    }
}

/// One run of the load: connect every publisher, pace, finish, and the figures.
struct LoadRun: Sendable {
    let input: RTMPLoadCommand.Input
    let streams: Int
    let milliseconds: Int64
    let urls: [String]
    let port: UInt16
    let serverPIDs: [Int32]

    /// What a run measured.
    struct Report: Sendable {
        var connected = 0
        var connectSeconds = 0.0
        var connectErrors: [String] = []
        var sent: [Int] = []
        var dropped: [Int] = []
        var expectedFrames = 0
        var errors: [String] = []
        var lateness: RTMPLoadCommand.Lateness
        var pacedSeconds = 0.0
        var finishSeconds = 0.0
        var backlog = KernelQueues.Backlog()
        var serverBefore: ProcessSample?
        var serverStart: ProcessSample?
        var serverEnd: ProcessSample?
        var generatorCPUSeconds = 0.0

        var heldRealTime: Bool {
            connectErrors.isEmpty && errors.isEmpty && dropped.allSatisfy { $0 == 0 } && lateness.lateFraction < 0.01
                && backlog.maximumPerConnection < backlogLimit && sent.allSatisfy { $0 == expectedFrames }
        }
        /// One second of the stream at its mean rate, in bytes.
        var backlogLimit = 0

        var serverCPUSeconds: Double? {
            guard let a = serverStart, let b = serverEnd else { return nil }
            return b.cpuSeconds - a.cpuSeconds
        }
    }

    func run() throws -> Report {
        let clock = ContinuousClock()
        var report = Report(lateness: .init(threshold: Double(input.frameInterval)))
        report.backlogLimit = Int(input.bitsPerSecond / 8)
        report.expectedFrames = input.frameCount(milliseconds: milliseconds)
        report.serverBefore = ProcessSample(pids: serverPIDs)

        // Connect every publisher (in parallel, a few at a time: the server sees a burst, as at a
        // restart of an encoder farm, but not N handshakes at once).
        let options = RTMPPublisher.Options(connection: .init(connectTimeout: .seconds(10), timeout: .seconds(10)),
                                            queueCapacity: 120, overflowPolicy: .dropUntilKeyframe)
        let connectStart = clock.now
        let publishers = ThreadLock([RTMPPublisher?](repeating: nil, count: streams))
        let failures = ThreadLock([String]())
        DispatchQueue.concurrentPerform(iterations: min(streams, 8)) { lane in
            for i in stride(from: lane, to: streams, by: min(streams, 8)) {
                do {
                    let p = try RTMPPublisher(url: urls[i], options: options)
                    p.send(metadata: input.metadata)
                    try p.send(decoderConfiguration: input.decoderConfiguration, timestamp: 0)
                    publishers.withLock { $0[i] = p }
                } catch {
                    failures.withLock { $0.append("\(urls[i]): \(error)") }
                }
            }
        }
        report.connectSeconds = seconds(connectStart.duration(to: clock.now))
        report.connectErrors = failures.withLock { $0 }
        let live = publishers.withLock { $0 }
        report.connected = live.compactMap { $0 }.count

        // Pace: frame k of loop L goes to stream i at start + L * loop + dts(k) + i * interval / N.
        let monitor = KernelQueues.Monitor(port: port)
        try monitor.start()
        report.serverStart = ProcessSample(pids: serverPIDs)
        let cpuStart = ProcessSample.ownCPUSeconds()
        let start = clock.now
        let stagger = Double(input.frameInterval) / Double(streams)
        var loop: Int64 = 0
        pacing: while true {
            for frame in input.frames {
                let dts = loop * input.loopDuration + frame.dts
                if dts >= milliseconds { break pacing }
                for i in 0..<streams {
                    guard let publisher = live[i] else { continue }
                    let due = Double(dts) + Double(i) * stagger  // ms after start
                    var now = seconds(start.duration(to: clock.now)) * 1000
                    if due > now {
                        sleep(milliseconds: due - now)
                        now = seconds(start.duration(to: clock.now)) * 1000
                    }
                    report.lateness.add(max(0, now - due))
                    let sample = FLVVideoSample(dts: dts, pts: dts + frame.compositionTime, isKeyframe: frame.isKeyframe, data: frame.data)
                    do {
                        try publisher.send(sample)
                    } catch {
                        // The publisher's error is read below; this stream sends nothing more.
                    }
                }
            }
            loop += 1
        }
        report.pacedSeconds = seconds(start.duration(to: clock.now))
        report.serverEnd = ProcessSample(pids: serverPIDs)
        report.generatorCPUSeconds = ProcessSample.ownCPUSeconds() - cpuStart
        report.backlog = monitor.stop()

        let finishStart = clock.now
        let results = ThreadLock([(sent: Int, dropped: Int, error: String?)](repeating: (0, 0, nil), count: streams))
        DispatchQueue.concurrentPerform(iterations: min(streams, 8)) { lane in
            for i in stride(from: lane, to: streams, by: min(streams, 8)) {
                guard let p = live[i] else { continue }
                var failure: String?
                do { try p.finish(endOfSequenceTimestamp: nil, timeout: .seconds(20)) } catch { failure = "\(urls[i]): \(error)" }
                let s = p.statistics
                results.withLock { $0[i] = (s.framesSent, s.framesDropped, failure) }
            }
        }
        report.finishSeconds = seconds(finishStart.duration(to: clock.now))
        let r = results.withLock { $0 }
        report.sent = zip(live, r).compactMap { $0 == nil ? nil : $1.sent }
        report.dropped = zip(live, r).compactMap { $0 == nil ? nil : $1.dropped }
        report.errors = r.compactMap(\.error)
        return report
    }

    private func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    private func sleep(milliseconds ms: Double) {
        var request = timespec(tv_sec: Int(ms / 1000), tv_nsec: Int((ms.truncatingRemainder(dividingBy: 1000)) * 1_000_000))
        _ = nanosleep(&request, nil)
    }
}

extension LoadRun.Report {
    private func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
    private func range(_ values: [Int]) -> String {
        guard let lo = values.min(), let hi = values.max() else { return "-" }
        return lo == hi ? "\(lo)" : "\(lo)...\(hi)"
    }

    /// The server's figures: CPU per stream in % of one core, RSS added per stream in bytes.
    var server: (cpuPercent: Double, cpuPercentPerStream: Double, rssBefore: Int, rssEnd: Int, rssPerStream: Double)? {
        guard let cpu = serverCPUSeconds, let before = serverBefore, let end = serverEnd, pacedSeconds > 0 else { return nil }
        let percent = cpu / pacedSeconds * 100
        let n = Double(max(connected, 1))
        return (percent, percent / n, before.residentBytes, end.residentBytes, Double(end.residentBytes - before.residentBytes) / n)
    }

    func text(input: RTMPLoadCommand.Input, url: String, streams: Int, seconds: Double) -> String {
        var lines: [String] = []
        lines.append(String(format: "rtmp-load: %d streams x %.0f s to %@/*; input %.2f Mb/s, %d frames per %.3f s loop, frame interval %lld ms",
                            streams, seconds, url, input.bitsPerSecond / 1e6, input.frames.count, Double(input.loopDuration) / 1000,
                            input.frameInterval))
        lines.append(String(format: "connected %d/%d in %.2f s", connected, streams, connectSeconds))
        for e in connectErrors.prefix(5) { lines.append("  connect failed: \(e)") }
        lines.append("per stream: frames sent \(range(sent)) of \(expectedFrames), dropped \(range(dropped))"
                     + (errors.isEmpty ? "" : ", \(errors.count) errors"))
        for e in errors.prefix(5) { lines.append("  error: \(e)") }
        lines.append(String(format: "pacing: %.2f s for %.2f s of video; %d sends, %.3f%% later than one frame interval, latest %.1f ms",
                            pacedSeconds, seconds, lateness.sends, lateness.lateFraction * 100, lateness.maximum))
        lines.append(String(format: "kernel queues: at most %@ on one connection (%.0f ms of stream), %@ on all (%d samples); finish took %.2f s",
                            mb(backlog.maximumPerConnection), Double(backlog.maximumPerConnection) / Double(max(backlogLimit, 1)) * 1000,
                            mb(backlog.maximumTotal), backlog.samples, finishSeconds))
        if let s = server {
            lines.append(String(format: "server: CPU %.1f%% of one core (%.3f%% per stream); RSS %@ before, %@ at the end (%.0f kB per stream)",
                                s.cpuPercent, s.cpuPercentPerStream, mb(s.rssBefore), mb(s.rssEnd), s.rssPerStream / 1000))
        }
        lines.append(String(format: "generator: CPU %.1f%% of one core (%.3f%% per stream)", generatorCPUSeconds / pacedSeconds * 100,
                            generatorCPUSeconds / pacedSeconds * 100 / Double(max(connected, 1))))
        lines.append("real time: " + (heldRealTime ? "held" : "NOT held"))
        return lines.joined(separator: "\n")
    }

    func json(input: RTMPLoadCommand.Input, streams: Int) -> JSONObject {
        var o = JSONObject()
        o.add("streams", streams)
        o.add("connected", connected)
        o.add("connect_seconds", connectSeconds)
        o.add("connect_errors", connectErrors)
        o.add("input_bits_per_second", input.bitsPerSecond.rounded())
        o.add("expected_frames", expectedFrames)
        o.add("frames_sent", sent)
        o.add("frames_dropped", dropped)
        o.add("errors", errors)
        o.add("paced_seconds", pacedSeconds)
        o.add("late_fraction", lateness.lateFraction)
        o.add("latest_send_ms", lateness.maximum)
        o.add("backlog_max_connection_bytes", backlog.maximumPerConnection)
        o.add("backlog_max_total_bytes", backlog.maximumTotal)
        o.add("finish_seconds", finishSeconds)
        if let s = server {
            o.add("server_cpu_percent", s.cpuPercent)
            o.add("server_cpu_percent_per_stream", s.cpuPercentPerStream)
            o.add("server_rss_before_bytes", s.rssBefore)
            o.add("server_rss_end_bytes", s.rssEnd)
            o.add("server_rss_per_stream_bytes", s.rssPerStream.rounded())
        }
        o.add("generator_cpu_percent", generatorCPUSeconds / pacedSeconds * 100)
        o.add("held_real_time", heldRealTime)
        return o
    }
}
