import CommandLineSupport
import FLV
import Foundation
import H264
import MediaSupport
import RTMP

/// `h264 serve --restream URL`: where each stream is published on. `rtmp://HOST[:PORT]` takes the
/// stream's own `APP/NAME`; `rtmp://HOST[:PORT]/APP2` takes `APP2/NAME`.
struct RestreamTarget: Sendable {
    /// `rtmp://HOST[:PORT]`.
    let base: String
    /// The application given in the URL, if any.
    let application: String?
    /// Where the threads that finish the publishers are counted (the stop waits for them).
    let live: LiveStreams

    init(_ text: String, live: LiveStreams) throws {
        guard text.lowercased().hasPrefix("rtmp://") else { throw CLIError("--restream: '\(text)' is not an rtmp:// URL") }
        guard !text.contains("?") && !text.contains("#") else {
            throw CLIError("--restream: '\(text)': no query (each stream's name is added to the URL)")
        }
        let rest = text.dropFirst("rtmp://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count).split(separator: "/").joined(separator: "/")
        base = "rtmp://" + authority
        application = path.isEmpty ? nil : path
        self.live = live
        do throws(RTMPError) { _ = try RTMPURL(url(app: "app", name: "name")) } catch {
            throw CLIError("--restream: '\(text)' is not rtmp://HOST[:PORT][/APP] (\(error.reason))")
        }
    }

    /// Where the stream `app/name` goes.
    func url(app: String, name: String) -> String { base + "/" + (application ?? app) + "/" + name }
}

/// One stream's restream: an `RTMPVideoPublisher` with reconnection (the library's defaults),
/// connected on a thread of its own so that the stream's loop never waits for it. What comes
/// while the first connection is being made waits (at most ``maximumPendingEvents`` events and
/// ``maximumPendingBytes``; beyond, only the latest metadata and AAC sequence header are kept
/// and the restream starts at the first keyframe after the connection); a first connection
/// that fails is tried again as a lost one is, for as long. Each event goes through the
/// library's `forward` (video from a random access point, audio and data tags as they came);
/// each change of the connection is one line on stderr. A restream that gives up ends alone:
/// the stream's other outputs go on.
final class RestreamOutput: Sendable {
    enum Item: Sendable {
        case event(RTMPIngestStream.Event)
        case sample(any AccessUnitSample)
    }

    private enum Phase {
        case connecting
        case connected(RTMPVideoPublisher)
        case ended
    }

    private struct State {
        var phase = Phase.connecting
        var pending: [Item] = []
        var pendingBytes = 0
        /// Frames that could not be framed (no parameter sets yet, no times), warned about.
        var skipped = 0
    }

    /// The most events (and their bytes) kept while the first connection is being made.
    static let maximumPendingEvents = 512
    static let maximumPendingBytes = 8 << 20
    /// Frames and tags that may wait in the publisher's queue: about 14 s of 30 fps video with
    /// AAC at 44.1 kHz (the library's default of 60 is less than a second of that).
    static let queueCapacity = 1024
    /// The bounded wait for a restream's queue to drain and its goodbye, when its stream ends.
    static let finishTimeout = Duration.seconds(5)

    let label: String
    let url: String
    private let target: RestreamTarget
    private let state = ThreadLock(State())

    /// Starts connecting to `url` for the stream `label`.
    /// - Parameter parameterSets: SPS and PPS the source gave out of band (an RTSP session's SDP).
    init(label: String, url: String, parameterSets: [NALUnit], target: RestreamTarget) {
        self.label = label
        self.url = url
        self.target = target
        Thread.detachNewThread { [self] in connect(parameterSets: parameterSets) }
    }

    /// Hands one RTMP event on (queued while connecting).
    func take(_ event: RTMPIngestStream.Event) { take(.event(event)) }

    /// Hands one access unit of a source other than RTMP on (queued while connecting).
    func take(_ sample: some AccessUnitSample) { take(.sample(sample)) }

    private func take(_ item: Item) {
        let publisher = state.withLock { s -> RTMPVideoPublisher? in
            switch s.phase {
            case .ended: return nil
            case .connected(let publisher): return publisher
            case .connecting:
                Self.hold(item, in: &s.pending, bytes: &s.pendingBytes)
                return nil
            }
        }
        if let publisher { send(item, to: publisher) }
    }

    /// Keeps `item` while connecting (`pending`, of `bytes`); past the bounds, only the
    /// stream's configuration: the latest metadata and AAC sequence header (the video starts
    /// again at a keyframe).
    static func hold(_ item: Item, in pending: inout [Item], bytes: inout Int) {
        pending.append(item)
        bytes &+= Self.bytes(item)  // at most maximumPendingBytes plus one item
        guard pending.count > maximumPendingEvents || bytes > maximumPendingBytes else { return }
        let metadata = pending.last { if case .event(.metadata) = $0 { true } else { false } }
        let audio = pending.last { if case .event(let e) = $0 { e.isAudioSequenceHeader } else { false } }
        pending = [metadata, audio].compactMap { $0 }
        bytes = pending.reduce(0) { $0 &+ Self.bytes($1) }  // two items
    }

    static func bytes(_ item: Item) -> Int {
        switch item {
        case .event(.video(let au)): au.data.count
        case .event(.tag(let tag, _)): tag.body.count
        case .event: 64
        case .sample(let sample): sample.nalUnits.reduce(0) { $0 &+ $1.count }  // an access unit's bytes
        }
    }

    private func send(_ item: Item, to publisher: RTMPVideoPublisher) {
        do throws(RTMPError) {
            switch item {
            case .event(let event): try publisher.forward(event)
            case .sample(let sample): try publisher.forward(sample)
            }
        } catch where error.code == .invalidArgument {
            let n = state.withLock { s in
                s.skipped &+= 1  // one per frame taken
                return s.skipped
            }
            if n <= 3 { Output.error("warning: \(label): restream skipped a frame: \(error.reason)") }
        } catch {
            // Gave up (its line is out) or cancelled: the restream ends, the stream goes on.
            state.withLock { $0.phase = .ended }
            publisher.cancel()
        }
    }

    /// The connecting thread: tries as a reconnection would (the library's backoff and
    /// outage limit); once connected, sends what waited and hands the publisher over.
    private func connect(parameterSets: [NALUnit]) {
        let reconnection = RTMPPublisher.Reconnection()
        let options = RTMPPublisher.Options(queueCapacity: Self.queueCapacity, reconnection: reconnection)
        let giveUpAt = reconnection.maximumOutage.map { Deadline.after($0) }
        var delay = reconnection.initialDelay
        var attempt = 1
        let label = self.label
        while true {
            do throws(RTMPError) {
                let publisher = try RTMPVideoPublisher(url: url, metadata: FLVMetadata(), parameterSets: parameterSets, options: options) {
                    Output.error("\(label): restream \(Self.describe($0))")
                }
                // What waited goes first (the queue holds it all: fewer than its capacity), then
                // what came meanwhile, until nothing waits: the publisher is handed over.
                var handed = false
                while true {
                    let waiting = state.withLock { s -> [Item]? in
                        guard case .connecting = s.phase else { return nil }
                        guard !s.pending.isEmpty else {
                            s.phase = .connected(publisher)
                            return []
                        }
                        defer {
                            s.pending = []
                            s.pendingBytes = 0
                        }
                        return s.pending
                    }
                    guard let waiting else { break }
                    if waiting.isEmpty {
                        handed = true
                        break
                    }
                    for item in waiting { send(item, to: publisher) }
                }
                if handed {
                    Output.error("\(label): restreaming to \(url)")
                } else {
                    publisher.cancel()  // the stream ended meanwhile
                }
                return
            } catch {
                guard !isEnded, !Interruption.isRequested else { return }
                if error.code == .invalidArgument || giveUpAt?.hasPassed == true {
                    state.withLock {
                        $0.phase = .ended
                        $0.pending = []
                    }
                    Output.error("\(label): restream gave up: \(error.reason); the stream goes on without it")
                    return
                }
                attempt += 1
                let wait = giveUpAt.map { min(delay, $0.remaining) } ?? delay
                Output.error("\(label): restream to \(url) not connected: \(error.reason)")
                Output.error("\(label): restream \(Self.describe(.retrying(attempt: attempt, after: wait)))")
                let until = Deadline.after(wait)
                while !until.hasPassed && !isEnded && !Interruption.isRequested { usleep(20_000) }
                delay = min(delay * 2, reconnection.maximumDelay)
            }
        }
    }

    private var isEnded: Bool {
        state.withLock { if case .ended = $0.phase { true } else { false } }
    }

    /// One line for a change of the connection.
    static func describe(_ event: RTMPPublisher.ConnectionEvent) -> String {
        switch event {
        case .lost(let error): "lost: \(error.reason)"
        case .retrying(let attempt, let after):
            "retrying (attempt \(attempt)) in \(String(format: "%.1f", Double(after.components.seconds) + Double(after.components.attoseconds) / 1e18)) s"
        case .connected(let attempt, let dropped): "connected again (attempt \(attempt)), \(dropped) frames dropped"
        case .gaveUp(let error, let dropped): "gave up: \(error.reason), \(dropped) frames dropped; the stream goes on without it"
        }
    }

    /// The stream has ended: the publisher finishes on a thread of its own (counted in the
    /// server's running loops) within ``finishTimeout``; its last line says what was sent.
    func finish() {
        let publisher = state.withLock { s -> RTMPVideoPublisher? in
            defer {
                s.phase = .ended
                s.pending = []
            }
            if case .connected(let publisher) = s.phase { return publisher }
            if case .connecting = s.phase { Output.error("\(self.label): restream to \(self.url) never connected: nothing sent") }
            return nil
        }
        guard let publisher else { return }
        let (label, url) = (self.label, self.url)
        do {
            try target.live.spawn {
                do throws(RTMPError) {
                    let s = try publisher.finish(timeout: Self.finishTimeout)
                    let dropped = s.framesDropped + s.framesDroppedWhileDisconnected
                    Output.error("\(label): restream to \(url) finished: \(s.framesSent) frames, \(s.tagsSent) audio/data tags sent"
                                 + (dropped + s.tagsDropped > 0 ? ", \(dropped) frames and \(s.tagsDropped) tags dropped" : "")
                                 + (s.reconnections > 0 ? ", \(s.reconnections) reconnections" : ""))
                } catch {
                    publisher.cancel()
                    Output.error("\(label): restream to \(url) not finished: \(error.reason)")
                }
            }
        } catch {
            publisher.cancel()
        }
    }
}
