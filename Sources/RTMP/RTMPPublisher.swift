import Dispatch
import FLV
import H264
import MediaSupport

/// Publishes H.264 video to an RTMP server from its own queue, so that the encoder's thread
/// never waits on the network longer than it allows.
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
/// Always call ``finish(endOfSequenceTimestamp:timeoutMilliseconds:)``: the sending queue
/// keeps the publisher and its connection alive until then.
public final class RTMPPublisher: @unchecked Sendable {
    // @unchecked: `connection` is used by the creating thread until the sender starts, then
    // only on `queue`; all other shared state is in `state` (a lock ThreadSanitizer can see).

    /// What to do with a frame when the queue is full.
    public enum OverflowPolicy: Sendable, Hashable {
        /// Drop the frame at once, and every following frame until the next keyframe (the
        /// frames in between could not be decoded anyway).
        case dropUntilKeyframe
        /// Wait up to the given time for room, then drop as ``dropUntilKeyframe`` does.
        case block(maximumWaitMilliseconds: Int)
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

    private enum Item {
        case metadata(FLVMetadata)
        case video(FLVVideoPacket, timestamp: UInt32, isFrame: Bool)
        case finish
    }

    private struct State {
        var items: [Item] = []
        var head = 0
        var droppingUntilKeyframe = false
        var error: RTMPError?
        var finishing = false
        var cancelled = false
        var statistics = Statistics()

        mutating func pop() -> Item? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head > 64 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }
    }

    /// Where this publisher sends.
    public let url: RTMPURL
    /// The settings.
    public let options: Options
    private let connection: RTMPConnection
    private let state = ThreadLock(State())
    private let slots: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let queue = DispatchQueue(label: "swift-h264.rtmp.publisher")
    private let interrupt: SocketInterrupt

    /// Connects, publishes `url`, and starts the sending queue.
    /// - Throws: ``RTMPError/Code/invalidArgument`` for a bad URL or capacity, and the errors of
    ///   ``RTMPConnection/init(url:options:)`` and ``RTMPConnection/publish()``.
    public convenience init(url: String, options: Options = Options()) throws(RTMPError) {
        try self.init(url: url, options: options, interrupt: SocketInterrupt())
    }

    /// Connects as ``init(url:options:)`` does, every wait watching `interrupt`: firing it
    /// (from another thread) stops the connection in progress with
    /// ``RTMPError/Code/cancelled``, and later ``cancel()`` fires it.
    init(url: String, options: Options, interrupt: SocketInterrupt) throws(RTMPError) {
        self.interrupt = interrupt
        self.url = try RTMPURL(url)
        self.options = options
        guard options.queueCapacity > 0 else {
            throw RTMPError.invalid(.invalidArgument, "queue capacity must be positive")
        }
        slots = DispatchSemaphore(value: options.queueCapacity)
        connection = try RTMPConnection(url: self.url, options: options.connection, interrupt: interrupt)
        try connection.publish()
        queue.async { self.run() }
    }

    deinit {
        // A cancelled sender leaves frames queued; each holds a slot, and libdispatch traps
        // when a semaphore is released below its initial value: give the slots back.
        let held = state.withLock { s in
            s.items[s.head...].reduce(0) { n, item in
                if case .video(_, _, true) = item { return n &+ 1 }
                return n
            }
        }
        for _ in 0..<held { slots.signal() }
    }

    /// The counters so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// The error that stopped the sender, if any.
    public var error: RTMPError? { state.withLock { $0.error } }

    /// Queues `@setDataFrame onMetaData`.
    public func send(metadata: FLVMetadata) {
        enqueue(.metadata(metadata))
    }

    /// Queues an AVC sequence header (call it again with a new record on a format change).
    /// - Throws: ``RTMPError/Code/invalidArgument`` for a time outside the 32-bit range.
    public func send(decoderConfiguration avcC: [UInt8], timestamp: Int64) throws(RTMPError) {
        try checkOpen()
        enqueue(.video(.sequenceHeader(avcC[...]), timestamp: try Self.time(timestamp), isFrame: false))
    }

    /// Queues one frame, waiting for room only as the ``OverflowPolicy`` allows.
    /// - Returns: true when queued, false when dropped.
    /// - Throws: the error that stopped the sender (e.g. ``RTMPError/Code/connectionClosed``
    ///   when the server went away), or ``RTMPError/Code/invalidArgument`` for bad times or
    ///   after ``finish(endOfSequenceTimestamp:timeoutMilliseconds:)``.
    @discardableResult
    public func send(_ sample: FLVVideoSample) throws(RTMPError) -> Bool {
        try checkOpen()
        let packet: FLVVideoPacket
        do throws(FLVError) { packet = try FLVVideoPacket.frame(sample) } catch { throw RTMPError.wrapping(error, as: .invalidArgument) }
        let time = try Self.time(sample.dts)
        let skip = state.withLock { s -> Bool in
            if s.droppingUntilKeyframe && !sample.isKeyframe {
                s.statistics.framesDropped += 1
                return true
            }
            return false
        }
        if skip { return false }
        let wait: Int
        switch options.overflowPolicy {
        case .dropUntilKeyframe: wait = 0
        case .block(let ms): wait = max(ms, 0)
        }
        guard slots.wait(timeout: .now() + .milliseconds(wait)) == .success else {
            state.withLock {
                $0.droppingUntilKeyframe = true
                $0.statistics.framesDropped += 1
            }
            return false
        }
        state.withLock {
            $0.droppingUntilKeyframe = false
            $0.statistics.framesQueued += 1
        }
        enqueue(.video(packet, timestamp: time, isFrame: true))
        return true
    }

    /// Sends what is queued, the end-of-sequence message, `FCUnpublish` and `deleteStream`,
    /// and closes the connection.
    /// - Parameters:
    ///   - endOfSequenceTimestamp: time of the end-of-sequence message; nil sends none.
    ///   - timeoutMilliseconds: how long to wait for the queue to drain.
    /// - Throws: the error that stopped the sender, or ``RTMPError/Code/timedOut``.
    public func finish(endOfSequenceTimestamp: Int64? = nil, timeoutMilliseconds: Int = 10_000) throws(RTMPError) {
        if let t = endOfSequenceTimestamp {
            enqueue(.video(.endOfSequence, timestamp: try Self.time(t), isFrame: false))
        }
        let first = state.withLock { s -> Bool in
            defer { s.finishing = true }
            return !s.finishing
        }
        if first { enqueue(.finish) }
        guard done.wait(timeout: .now() + .milliseconds(max(timeoutMilliseconds, 0))) == .success else {
            throw RTMPError.invalid(.timedOut, "the RTMP queue did not drain in \(timeoutMilliseconds) ms")
        }
        done.signal()  // let a second finish() return too
        if let error = self.error { throw error }
    }

    /// Stops the publisher at once, whatever the server does: the operation in progress on the
    /// connection (a send waiting for a server that does not read, the goodbye of
    /// ``finish(endOfSequenceTimestamp:timeoutMilliseconds:)``) ends without waiting for its
    /// deadline, queued frames are dropped, and the connection is closed without
    /// `FCUnpublish`/`deleteStream`. Later calls throw ``RTMPError/Code/cancelled``, and a
    /// `finish` waiting returns with it.
    ///
    /// Safe from any thread, more than once. The sending queue closes the socket as soon as
    /// its current system call returns, which the cancellation wakes at once (every wait of
    /// the socket also watches a pipe that this fires).
    public func cancel() {
        state.withLock {
            $0.cancelled = true
            if $0.error == nil { $0.error = RTMPError.invalid(.cancelled, "the publisher was cancelled") }
        }
        interrupt.fire()
        ready.signal()
    }

    /// True once ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Throws the sender's error, or ``RTMPError/Code/invalidArgument`` after ``finish``.
    private func checkOpen() throws(RTMPError) {
        let (error, finishing) = state.withLock { ($0.error, $0.finishing) }
        if let error { throw error }
        if finishing { throw RTMPError.invalid(.invalidArgument, "the publisher has finished") }
    }

    private func enqueue(_ item: Item) {
        state.withLock { $0.items.append(item) }
        ready.signal()
    }

    private static func time(_ ms: Int64) throws(RTMPError) -> UInt32 {
        guard let t = UInt32(exactly: ms) else {
            throw RTMPError.invalid(.invalidArgument, "time \(ms) ms is outside 0...\(UInt32.max)")
        }
        return t
    }

    /// The sender: takes items in order; between items, services the server's messages.
    private func run() {
        while true {
            if state.withLock({ $0.cancelled }) {
                connection.abort()
                state.withLock { $0.statistics.bytesSent = connection.bytesSent }
                done.signal()
                return
            }
            if ready.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
                if self.error == nil {
                    do { try connection.serviceIncoming() } catch { fail(error) }
                }
                continue
            }
            guard let item = state.withLock({ $0.pop() }) else { continue }
            let failed = self.error != nil
            switch item {
            case .finish:
                if !failed {
                    do { try connection.close() } catch { fail(error) }
                } else {
                    try? connection.close()
                }
                state.withLock { $0.statistics.bytesSent = connection.bytesSent }
                done.signal()
                return
            case .metadata(let m):
                guard !failed else { continue }
                do { try connection.sendMetadata(m) } catch { fail(error) }
            case .video(let packet, let time, let isFrame):
                if isFrame { slots.signal() }
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
}
