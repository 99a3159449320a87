import H264
import MediaSupport
import RTP

/// One RTSP presentation pulled as an `AsyncSequence` of ``RTSPEvent``s: an ``RTSPClient``
/// started (``open(_:options:queueBytes:)``: `OPTIONS`, `DESCRIBE`, `SETUP`, `PLAY`) whose
/// receive loop runs on a thread of its own, its events waiting in a bounded queue.
///
/// ```swift
/// let stream = try await RTSPStream.open("rtsp://user:secret@camera.local/stream1")
/// for try await event in stream {
///     if case .video(let accessUnit) = event { try recorder.write(accessUnit) }
/// }
/// ```
///
/// The sequence ends (nil) when the source sends BYE or the server closes the connection; it
/// throws the ``RTSPError`` that ended the session otherwise (``RTSPError/Code/timedOut`` for
/// silence, ``RTSPError/Code/cancelled``, ...). Iterated by one task at a time; cancelling
/// that task, or ``cancel()``, ends the session (`TEARDOWN` is sent when the loop ends
/// normally).
///
/// **A slow consumer.** When `queueBytes` of events wait, the oldest group of pictures is
/// dropped whole (its other tracks' packets too), never part of an access unit: delivery
/// resumes at the next keyframe. Drops are counted in ``eventsDropped``.
///
/// Memory: the client's bound (``RTSPClient``) and at most `queueBytes` of events waiting
/// (a payload's size plus 64 bytes each).
public final class RTSPStream: AsyncSequence, Sendable {
    public typealias Element = RTSPEvent

    /// The presentation (its tracks, the SDP).
    public let sessionDescription: RTSPSessionDescription
    /// The tracks set up.
    public let tracks: [RTSPTrack]
    private let client: RTSPClient
    private let queue: BoundedQueue<RTSPEvent>

    private init(client: RTSPClient, queue: BoundedQueue<RTSPEvent>, sessionDescription: RTSPSessionDescription) {
        self.client = client
        self.queue = queue
        self.sessionDescription = sessionDescription
        self.tracks = client.setUpTracks
    }

    /// Connects, starts the session and the receive loop.
    /// - Parameters:
    ///   - url: `rtsp://[user[:password]@]host[:port]/path`.
    ///   - options: the client's settings.
    ///   - queueBytes: events waiting at most, in bytes (default 64 MiB).
    /// - Throws: ``RTSPError`` from the URL or the session's start; `CancellationError` when
    ///   the task is cancelled meanwhile.
    public static func open(_ url: String, options: RTSPClient.Options = .init(), queueBytes: Int = 64 << 20) async throws -> RTSPStream {
        let client = try RTSPClient(url: url, options: options)
        let worker = BlockingWorker()
        try await worker.run(onCancel: { client.cancel() }, cancellationError: { RTSPError.invalid(.cancelled, "the start of \(client.url) was cancelled") }) {
            () throws(RTSPError) in try client.start()
        }
        guard let description = client.sessionDescription else {
            throw RTSPError.invalid(.invalidResponse, "no session description")
        }
        let queue = BoundedQueue<RTSPEvent>(capacity: Int.max, maximumBytes: queueBytes, overflow: .dropOldestGroup)
        let stream = RTSPStream(client: client, queue: queue, sessionDescription: description)
        do {
            try BlockingWorker.detach {
                var group: UInt64 = 0
                do {
                    _ = try client.receive(until: { !queue.isOpen }) { event in
                        var bytes = 64
                        switch event {
                        case .video(let au):
                            if au.nalUnits.contains(where: { $0.type == .idrSlice }) { group &+= 1 }  // a counter: never wraps in practice
                            bytes &+= au.nalUnits.reduce(0) { $0 &+ $1.bytes.count }
                        case .packet(let packet):
                            bytes &+= packet.payload.count
                        }
                        queue.push(event, bytes: bytes, group: group)
                    }
                    client.close()
                    queue.close()
                } catch {
                    client.close()
                    queue.close(error)
                }
            }
        } catch {
            client.close()
            throw RTSPError.invalid(.io, "\(error)")
        }
        return stream
    }

    /// Ends the session from the consumer's side, from any thread: the sequence ends at once,
    /// and the receive loop within 250 ms, sending `TEARDOWN`.
    public func cancel() { queue.cancel() }

    /// Asks the H.264 source for a keyframe (``RTSPClient/requestKeyframe()``).
    public func requestKeyframe() { client.requestKeyframe() }

    /// Events dropped by the slow-consumer policy.
    public var eventsDropped: Int { queue.statistics.dropped }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue) }

    /// Takes the events in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: BoundedQueue<RTSPEvent>

        /// The next event; nil once the session has ended cleanly.
        /// - Throws: the ``RTSPError`` that ended the session, once, after the events before
        ///   it; `CancellationError` when the task (or ``RTSPStream/cancel()``) cancelled it.
        public mutating func next() async throws -> RTSPEvent? { try await queue.next() }
    }
}
