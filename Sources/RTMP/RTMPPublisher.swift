import FLV
import H264
import MediaSupport

/// Publishes H.264 video to an RTMP server from a sender thread of its own, so that the
/// encoder's thread never waits on the network longer than it allows.
///
/// ```swift
/// let publisher = try RTMPPublisher(url: "rtmp://127.0.0.1/live/test")
/// publisher.send(metadata: FLVMetadata(width: 640, height: 360, frameRate: 25))
/// publisher.send(decoderConfiguration: avcC, timestamp: 0)
/// for s in samples { try publisher.send(s) }       // never blocks longer than the policy says
/// try publisher.finish()                           // drains, FCUnpublish, deleteStream
/// ```
///
/// The creating call connects and starts publishing synchronously (bounded by the
/// connection timeouts), so refused connections, unknown applications and rejected stream
/// names are thrown right away. Frames then go through a bounded queue; when it is full the
/// ``OverflowPolicy`` decides. Sequence headers, metadata and the end of sequence are never
/// dropped and do not count against the bound.
///
/// Always call ``finish(endOfSequenceTimestamp:timeout:)``: the sender thread keeps the
/// publisher and its connection alive until then.
public final class RTMPPublisher: @unchecked Sendable {
    // @unchecked: `connection` is used by the creating thread until the sender starts, then
    // only by the sender thread; all other shared state is in `state` and `items` (locks
    // ThreadSanitizer can see).

    /// What to do with a frame when the queue is full.
    public enum OverflowPolicy: Sendable, Hashable {
        /// Drop the frame at once, and every following frame until the next keyframe (the
        /// frames in between could not be decoded anyway).
        case dropUntilKeyframe
        /// Wait up to the given time for room, then drop as ``dropUntilKeyframe`` does.
        case block(maximumWait: Duration)
    }

    /// Publisher settings.
    public struct Options: Sendable, Hashable {
        /// The connection's settings (timeouts, chunk size).
        public var connection: RTMPConnection.Options
        /// Frames that may wait in the queue.
        public var queueCapacity: Int
        /// What to do when the queue is full.
        public var overflowPolicy: OverflowPolicy

        /// Creates options; by default 2 s of 30 fps video may wait, and a full queue drops.
        public init(connection: RTMPConnection.Options = .init(), queueCapacity: Int = 60,
                    overflowPolicy: OverflowPolicy = .dropUntilKeyframe) {
            self.connection = connection
            self.queueCapacity = queueCapacity
            self.overflowPolicy = overflowPolicy
        }
    }

    /// Counters.
    public struct Statistics: Sendable, Hashable {
        /// Frames handed to ``send(_:)`` and queued.
        public var framesQueued = 0
        /// Frames sent to the server.
        public var framesSent = 0
        /// Frames dropped by the overflow policy.
        public var framesDropped = 0
        /// Bytes sent on the connection.
        public var bytesSent: Int64 = 0
    }

    /// What the sender thread takes, in order: frames count against the queue's capacity,
    /// everything else is exempt.
    private enum Item: Sendable {
        case metadata(FLVMetadata)
        case video(FLVVideoPacket, timestamp: UInt32, isFrame: Bool)
        case finish
    }

    private struct State {
        var error: RTMPError?
        var finishing = false
        var cancelled = false
        /// The sender thread has ended (the goodbye said, or the connection aborted).
        var done = false
        /// The group of the frames being sent: a keyframe starts the next (the queue drops
        /// the rest of a group whose frame it dropped).
        var group: UInt64 = 0
        var statistics = Statistics()
    }

    /// Where this publisher sends.
    public let url: RTMPURL
    /// The settings.
    public let options: Options
    private let connection: RTMPConnection
    private let state = ThreadLock(State())
    private let items: BoundedQueue<Item>
    private let interrupt: Interrupt

    /// Connects, publishes `url`, and starts the sender thread.
    /// - Throws: ``RTMPError/Code/invalidArgument`` for a bad URL or capacity, the errors of
    ///   ``RTMPConnection/init(url:options:)`` and ``RTMPConnection/publish()``, and
    ///   ``RTMPError/Code/io`` when the system refuses a thread for the sender.
    public convenience init(url: String, options: Options = Options()) throws(RTMPError) {
        try self.init(url: url, options: options, interrupt: Interrupt())
    }

    /// Connects as ``init(url:options:)`` does, every wait watching `interrupt`: firing it
    /// (from another thread) stops the connection in progress with
    /// ``RTMPError/Code/cancelled``, and later ``cancel()`` fires it.
    init(url: String, options: Options, interrupt: Interrupt) throws(RTMPError) {
        self.interrupt = interrupt
        self.url = try RTMPURL(url)
        self.options = options
        guard options.queueCapacity > 0 else {
            throw RTMPError.invalid(.invalidArgument, "queue capacity must be positive")
        }
        switch options.overflowPolicy {
        case .dropUntilKeyframe: items = BoundedQueue(capacity: options.queueCapacity, overflow: .dropNewest)
        case .block: items = BoundedQueue(capacity: options.queueCapacity, overflow: .block)
        }
        connection = try RTMPConnection(url: self.url, options: options.connection, interrupt: interrupt)
        try connection.publish()
        do throws(BlockingWorker.ThreadStartError) {
            try BlockingWorker.detach { self.run() }
        } catch {
            connection.abort()
            throw RTMPError.invalid(.io, "no sender thread for the publisher: \(error)")
        }
    }

    /// The counters so far.
    public var statistics: Statistics {
        var statistics = state.withLock { $0.statistics }
        statistics.framesDropped = items.statistics.dropped
        return statistics
    }

    /// The error that stopped the sender, if any.
    public var error: RTMPError? { state.withLock { $0.error } }

    /// Queues `@setDataFrame onMetaData`.
    public func send(metadata: FLVMetadata) {
        items.push(.metadata(metadata), exempt: true)
    }

    /// Queues an AVC sequence header (call it again with a new record on a format change).
    /// - Throws: ``RTMPError/Code/invalidArgument`` for a time outside the 32-bit range.
    public func send(decoderConfiguration avcC: [UInt8], timestamp: Int64) throws(RTMPError) {
        try checkOpen()
        items.push(.video(.sequenceHeader(avcC[...]), timestamp: try Self.time(timestamp), isFrame: false), exempt: true)
    }

    /// Queues one frame, waiting for room only as the ``OverflowPolicy`` allows.
    /// - Returns: true when queued, false when dropped.
    /// - Throws: the error that stopped the sender (e.g. ``RTMPError/Code/connectionClosed``
    ///   when the server went away), or ``RTMPError/Code/invalidArgument`` for bad times or
    ///   after ``finish(endOfSequenceTimestamp:timeout:)``.
    @discardableResult
    public func send(_ sample: FLVVideoSample) throws(RTMPError) -> Bool {
        try checkOpen()
        let packet: FLVVideoPacket
        do throws(FLVError) { packet = try FLVVideoPacket.frame(sample) } catch { throw RTMPError.wrapping(error, as: .invalidArgument) }
        let time = try Self.time(sample.dts)
        let group = state.withLock { s -> UInt64 in
            if sample.isKeyframe { s.group &+= 1 }  // one per keyframe sent: does not wrap
            return s.group
        }
        let deadline: Deadline
        switch options.overflowPolicy {
        case .dropUntilKeyframe: deadline = .now
        case .block(let wait): deadline = .after(wait)
        }
        switch items.push(.video(packet, timestamp: time, isFrame: true), group: group, deadline: deadline) {
        case .queued:
            state.withLock { $0.statistics.framesQueued += 1 }
            return true
        case .dropped:
            return false
        case .closed:
            try checkOpen()
            return false
        }
    }

    /// Sends what is queued, the end-of-sequence message, `FCUnpublish` and `deleteStream`,
    /// and closes the connection.
    /// - Parameters:
    ///   - endOfSequenceTimestamp: time of the end-of-sequence message; nil sends none.
    ///   - timeout: how long to wait for the queue to drain and the goodbye (10 s by default).
    /// - Throws: the error that stopped the sender, or ``RTMPError/Code/timedOut``.
    public func finish(endOfSequenceTimestamp: Int64? = nil, timeout: Duration = .seconds(10)) throws(RTMPError) {
        let deadline = Deadline.after(timeout)
        if let t = endOfSequenceTimestamp {
            items.push(.video(.endOfSequence, timestamp: try Self.time(t), isFrame: false), exempt: true)
        }
        let first = state.withLock { s -> Bool in
            defer { s.finishing = true }
            return !s.finishing
        }
        if first { items.push(.finish, exempt: true) }
        // One lock access per wait: inside one access the optimiser may keep `s.done` in a
        // register across the wait (`inout` promises no other access), and an optimised build
        // then waited out the whole timeout; a new access reads the state again.
        var done = false
        while !done && !deadline.hasPassed {
            done = state.withLock { s, waiter -> Bool in
                if !s.done { waiter.wait(until: deadline) }
                return s.done
            }
        }
        if !done { done = state.withLock { $0.done } }
        guard done else { throw RTMPError.invalid(.timedOut, "the RTMP queue did not drain in \(timeout)") }
        if let error = self.error { throw error }
    }

    /// Stops the publisher at once, whatever the server does: the operation in progress on the
    /// connection (a send waiting for a server that does not read, the goodbye of
    /// ``finish(endOfSequenceTimestamp:timeout:)``) ends without waiting for its
    /// deadline, queued frames are dropped, and the connection is closed without
    /// `FCUnpublish`/`deleteStream`. Later calls throw ``RTMPError/Code/cancelled``, and a
    /// `finish` waiting returns with it.
    ///
    /// Safe from any thread, more than once. The sender thread closes the socket as soon as
    /// its current system call returns, which the cancellation wakes at once (every wait of
    /// the socket also watches the interrupt that this fires).
    public func cancel() {
        state.withLock {
            $0.cancelled = true
            if $0.error == nil { $0.error = RTMPError.invalid(.cancelled, "the publisher was cancelled") }
        }
        interrupt.fire()
        items.cancel()
    }

    /// True once ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Throws the sender's error, or ``RTMPError/Code/invalidArgument`` after ``finish``.
    private func checkOpen() throws(RTMPError) {
        let (error, finishing) = state.withLock { ($0.error, $0.finishing) }
        if let error { throw error }
        if finishing { throw RTMPError.invalid(.invalidArgument, "the publisher has finished") }
    }

    private static func time(_ ms: Int64) throws(RTMPError) -> UInt32 {
        guard let t = UInt32(exactly: ms) else {
            throw RTMPError.invalid(.invalidArgument, "time \(ms) ms is outside 0...\(UInt32.max)")
        }
        return t
    }

    /// The sender thread: takes items in order; while none comes for 200 ms, services the
    /// server's messages.
    private func run() {
        while true {
            let item: Item
            switch items.pop(deadline: .after(.milliseconds(200))) {
            case .element(let next):
                item = next
            case .timedOut:
                if self.error == nil {
                    do { try connection.serviceIncoming() } catch { fail(error) }
                }
                continue
            case .cancelled, .ended:
                connection.abort()
                end()
                return
            }
            let failed = self.error != nil
            switch item {
            case .finish:
                if !failed {
                    do { try connection.close() } catch { fail(error) }
                } else {
                    try? connection.close()
                }
                end()
                return
            case .metadata(let m):
                guard !failed else { continue }
                do { try connection.sendMetadata(m) } catch { fail(error) }
            case .video(let packet, let time, let isFrame):
                guard !failed else { continue }
                do {
                    try connection.sendVideo(packet, timestamp: time)
                    let sent = connection.bytesSent
                    state.withLock {
                        if isFrame { $0.statistics.framesSent += 1 }
                        $0.statistics.bytesSent = sent
                    }
                } catch {
                    fail(error)
                }
            }
        }
    }

    private func fail(_ error: RTMPError) {
        state.withLock { if $0.error == nil { $0.error = error } }
    }

    /// The sender thread's last act: the counters, then `finish` may return.
    private func end() {
        let sent = connection.bytesSent
        state.withLock {
            $0.statistics.bytesSent = sent
            $0.done = true
        }
        state.signalAll()
    }
}
