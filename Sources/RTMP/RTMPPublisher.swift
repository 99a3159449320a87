import FLV
import H264
import MediaSupport

/// Publishes H.264 video (and, alongside, audio and data tags as they are: a restream's) to an
/// RTMP server from a sender thread of its own, so that the encoder's thread never waits on the
/// network longer than it allows.
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
/// Audio and data tags (``send(tag:)``) go through the same queue, in order with the
/// frames, and count against its bound; each belongs to the group of pictures of the frame
/// before it: when the queue drops a frame it drops the rest of its group, tags included, and
/// a tag it drops takes the rest of its group with it as a frame does. An AAC
/// AudioSpecificConfig (`SoundFormat` 10, `AACPacketType` 0) is a sequence header: never
/// dropped, remembered, and sent again on a new connection.
///
/// Always call ``finish(endOfSequenceTimestamp:timeout:)``: the sender thread keeps the
/// publisher and its connection alive until then.
///
/// ## Reconnection
///
/// By default the first failure of the connection (a send or read that fails, a server that
/// closes it, an operation past its deadline such as a send to a server that stopped reading)
/// stops the publisher: it becomes ``error``, which later calls throw. With
/// ``Options/reconnection`` set, the sender thread instead (unless ``cancel()`` or
/// ``finish(endOfSequenceTimestamp:timeout:)`` is in progress) reports
/// ``ConnectionEvent/lost(_:)``, closes the connection and tries again with backoff
/// (``Reconnection``), reporting each attempt. Meanwhile it keeps taking frames from the queue
/// (the producer never waits longer than its ``OverflowPolicy``) into a bounded outage buffer
/// that drops whole groups of pictures, oldest first. On a new connection it reports
/// ``ConnectionEvent/connected(attempt:framesDropped:)``, sends the latest metadata and
/// sequence headers again (the audio one too), then the buffered frames and tags from their
/// first keyframe (or, with none, from the next keyframe), with their own timestamps: they continue, with a gap
/// of at most the outage plus one group of pictures. After ``Reconnection/maximumAttempts`` or
/// ``Reconnection/maximumOutage`` it reports ``ConnectionEvent/gaveUp(_:framesDropped:)`` and
/// the error that began the outage becomes ``error``.
///
/// - ``cancel()`` ends an outage at once: the wait between attempts watches the queue, which
///   it ends, and an attempt's every wait watches the interrupt it fires.
/// - ``finish(endOfSequenceTimestamp:timeout:)`` during an outage gives up at once (the
///   buffered frames are dropped) and throws the error that began the outage.
/// - The events go to the handler given to ``init(url:options:events:)``, on the sender thread.
///
/// Memory: the queue (``Options/queueCapacity`` frames), and while disconnected the outage
/// buffer (``Reconnection/bufferBytes`` plus one frame) and one metadata and one video and one
/// audio sequence header remembered.
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
        /// Frames (and audio and data tags) that may wait in the queue.
        public var queueCapacity: Int
        /// What to do when the queue is full.
        public var overflowPolicy: OverflowPolicy
        /// Whether and how to reconnect after the connection is lost (nil, the default: the
        /// first failure stops the publisher and becomes its ``RTMPPublisher/error``).
        public var reconnection: Reconnection?

        /// Creates options; by default 2 s of 30 fps video may wait, a full queue drops, and
        /// the first failure stops the publisher.
        public init(connection: RTMPConnection.Options = .init(), queueCapacity: Int = 60,
                    overflowPolicy: OverflowPolicy = .dropUntilKeyframe) {
            self.init(connection: connection, queueCapacity: queueCapacity, overflowPolicy: overflowPolicy,
                      reconnection: nil)
        }

        /// Creates options with reconnection settings (nil: none).
        public init(connection: RTMPConnection.Options = .init(), queueCapacity: Int = 60,
                    overflowPolicy: OverflowPolicy = .dropUntilKeyframe, reconnection: Reconnection?) {
            self.connection = connection
            self.queueCapacity = queueCapacity
            self.overflowPolicy = overflowPolicy
            self.reconnection = reconnection
        }
    }

    /// Counters.
    public struct Statistics: Sendable, Hashable {
        /// Frames handed to ``send(_:)`` and queued.
        public var framesQueued = 0
        /// Frames sent to the server (written to the connection: frames written to a
        /// connection that is then lost count here, though the server may not have read them).
        public var framesSent = 0
        /// Frames dropped by the overflow policy.
        public var framesDropped = 0
        /// Bytes sent, on every connection.
        public var bytesSent: Int64 = 0
        /// Connections made again after a loss (``Options/reconnection``).
        public var reconnections = 0
        /// Frames taken from the queue while disconnected (or while waiting for a keyframe to
        /// resume at) and never sent: the outage buffer's drops, the frames before its first
        /// keyframe, the frame whose send failed when it was not a keyframe, and what was
        /// buffered when the publisher gave up.
        public var framesDroppedWhileDisconnected = 0
        /// Bytes of frames held in the outage buffer now.
        public var bytesBufferedWhileDisconnected = 0
        /// The most bytes of frames the outage buffer held at once
        /// (≤ ``Reconnection/bufferBytes`` plus one frame).
        public var peakBytesBufferedWhileDisconnected = 0
        /// Audio and data tags sent to the server (as ``framesSent`` counts frames).
        public var tagsSent = 0
        /// Audio and data tags never sent: dropped by the overflow policy, or with their group
        /// of pictures while disconnected or waiting for a keyframe to resume at (the frame
        /// counters above count video frames only).
        public var tagsDropped = 0
    }

    /// What the sender thread takes, in order: frames count against the queue's capacity,
    /// everything else is exempt.
    private enum Item: Sendable {
        case metadata(FLVMetadata)
        case sequenceHeader(FLVVideoPacket, timestamp: UInt32)
        /// An AAC AudioSpecificConfig tag.
        case audioSequenceHeader(FLVTag)
        /// A video frame, or an audio or data tag.
        case frame(RTMPOutageBuffer.Frame)
        case endOfSequence(timestamp: UInt32)
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
        /// The tags the queue dropped (its drop count less these is the frames'); counted in
        /// ``Statistics/tagsDropped`` too.
        var tagsDroppedByQueue = 0
    }

    /// What the sender thread alone uses, once it has started.
    private struct Sender {
        var connection: RTMPConnection
        /// Bytes sent on the connections lost before `connection`.
        var bytesSentBefore: Int64 = 0
        /// The latest metadata and sequence header taken, sent again on a new connection.
        var metadata: FLVMetadata?
        var sequenceHeader: FLVVideoPacket?
        var audioSequenceHeader: FLVTag?
        /// After a reconnection whose buffer held no keyframe: frames are dropped until a
        /// keyframe, which the metadata and sequence header go before.
        var resumeAtKeyframe = false

        var bytesSent: Int64 { bytesSentBefore &+ connection.bytesSent }  // an Int64 byte count
    }

    /// How an outage ended.
    private enum OutageEnd {
        /// Connected again; these frames are to be sent first.
        case connected([RTMPOutageBuffer.Frame])
        /// Gave up: the error is set, the thread goes on until `finish`.
        case gaveUp
        /// The thread has ended (cancelled, or finished during the outage).
        case stopped
    }

    /// Where this publisher sends.
    public let url: RTMPURL
    /// The settings.
    public let options: Options
    private var sender: Sender
    private let state = ThreadLock(State())
    private let items: BoundedQueue<Item>
    private let interrupt: Interrupt
    private let events: (@Sendable (ConnectionEvent) -> Void)?

    /// Connects, publishes `url`, and starts the sender thread.
    /// - Throws: ``RTMPError/Code/invalidArgument`` for a bad URL, capacity or reconnection
    ///   setting, the errors of ``RTMPConnection/init(url:options:)`` and
    ///   ``RTMPConnection/publish()``, and ``RTMPError/Code/io`` when the system refuses a
    ///   thread for the sender.
    public convenience init(url: String, options: Options = Options()) throws(RTMPError) {
        try self.init(url: url, options: options, events: nil, interrupt: Interrupt())
    }

    /// Connects, publishes `url`, and starts the sender thread, as ``init(url:options:)``
    /// does; `events` is told each change of the connection when ``Options/reconnection`` is
    /// set (lost, retrying, connected, gave up).
    ///
    /// `events` is called on the publisher's sender thread, one event at a time, in order:
    /// it should return quickly (log, count, hand the event to a queue), since the sender
    /// takes no frame meanwhile; it must not call ``finish(endOfSequenceTimestamp:timeout:)``
    /// (which waits for that thread). The first connection, made by this initialiser, is not
    /// an event: its failure is thrown, never retried.
    /// - Throws: the errors of ``init(url:options:)``.
    public convenience init(url: String, options: Options = Options(),
                            events: (@Sendable (ConnectionEvent) -> Void)?) throws(RTMPError) {
        try self.init(url: url, options: options, events: events, interrupt: Interrupt())
    }

    /// Connects as ``init(url:options:)`` does, every wait watching `interrupt`: firing it
    /// (from another thread) stops the connection in progress with
    /// ``RTMPError/Code/cancelled``, and later ``cancel()`` fires it.
    init(url: String, options: Options, events: (@Sendable (ConnectionEvent) -> Void)?, interrupt: Interrupt) throws(RTMPError) {
        self.interrupt = interrupt
        self.events = events
        self.url = try RTMPURL(url)
        self.options = options
        guard options.queueCapacity > 0 else {
            throw RTMPError.invalid(.invalidArgument, "queue capacity must be positive")
        }
        try options.reconnection?.validate()
        switch options.overflowPolicy {
        case .dropUntilKeyframe: items = BoundedQueue(capacity: options.queueCapacity, overflow: .dropNewest)
        case .block: items = BoundedQueue(capacity: options.queueCapacity, overflow: .block)
        }
        let connection = try RTMPConnection(url: self.url, options: options.connection, interrupt: interrupt)
        try connection.publish()
        sender = Sender(connection: connection)
        do throws(BlockingWorker.ThreadStartError) {
            try BlockingWorker.detach { self.run() }
        } catch {
            connection.abort()
            throw RTMPError.invalid(.io, "no sender thread for the publisher: \(error)")
        }
    }

    /// The counters so far.
    public var statistics: Statistics {
        let (statistics, tags) = state.withLock { ($0.statistics, $0.tagsDroppedByQueue) }
        var result = statistics
        result.framesDropped = items.statistics.dropped &- tags  // tags are among the queue's drops
        return result
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
        items.push(.sequenceHeader(.sequenceHeader(avcC[...]), timestamp: try Self.time(timestamp)), exempt: true)
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
        let frame = RTMPOutageBuffer.Frame(packet: packet, timestamp: time, isKeyframe: sample.isKeyframe)
        switch items.push(.frame(frame), group: group, deadline: deadline) {
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

    /// Queues an audio or data (script) tag, sent as it is (its body is not read) at its
    /// timestamp, in order with the frames: a restream's audio and data
    /// (`RTMPIngestStream.Event.tag`). It waits and is dropped as a frame is (see the type's
    /// overview: with the group of pictures of the frame before it), except an AAC
    /// AudioSpecificConfig, which is never dropped and is sent again on a new connection.
    /// - Returns: true when queued, false when dropped.
    /// - Throws: ``RTMPError/Code/invalidArgument`` for a video tag (frames go through
    ///   ``send(_:)``) or after ``finish(endOfSequenceTimestamp:timeout:)``, and
    ///   the error that stopped the sender.
    @discardableResult
    public func send(tag: FLVTag) throws(RTMPError) -> Bool {
        try checkOpen()
        guard tag.type == .audio || tag.type == .script else {
            throw RTMPError.invalid(.invalidArgument, "an FLV tag of type \(tag.type) is not sent as a tag (audio or script only)")
        }
        if tag.type == .audio && RTMPRelayMessage.isAudioSequenceHeader(tag.body) {
            items.push(.audioSequenceHeader(tag), exempt: true)
            return true
        }
        let group = state.withLock { $0.group }
        let deadline: Deadline
        switch options.overflowPolicy {
        case .dropUntilKeyframe: deadline = .now
        case .block(let wait): deadline = .after(wait)
        }
        switch items.push(.frame(RTMPOutageBuffer.Frame(tag: tag)), group: group, deadline: deadline) {
        case .queued:
            return true
        case .dropped:
            state.withLock {
                $0.tagsDroppedByQueue &+= 1  // one per tag pushed
                $0.statistics.tagsDropped &+= 1
            }
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
            items.push(.endOfSequence(timestamp: try Self.time(t)), exempt: true)
        }
        let first = state.withLock { s -> Bool in
            defer { s.finishing = true }
            return !s.finishing
        }
        if first { items.push(.finish, exempt: true) }
        let done = state.withLock(waitingUntil: deadline) { s, _, _ in s.done ? true : nil } ?? false
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

    // MARK: The sender thread

    /// The sender thread: takes items in order; while none comes for 200 ms, services the
    /// server's messages. A failure ends the publisher, or, with ``Options/reconnection``,
    /// starts an outage (``recover(from:pending:)``).
    private func run() {
        while true {
            let item: Item
            switch items.pop(deadline: .after(.milliseconds(200))) {
            case .element(let next):
                item = next
            case .timedOut:
                if self.error == nil {
                    do { try sender.connection.serviceIncoming() } catch { if !recover(from: error, pending: []) { return } }
                }
                continue
            case .cancelled, .ended:
                sender.connection.abort()
                end()
                return
            }
            let failed = self.error != nil
            switch item {
            case .finish:
                if !failed {
                    do { try sender.connection.close() } catch { fail(error) }
                } else {
                    try? sender.connection.close()
                }
                end()
                return
            case .metadata(let m):
                sender.metadata = m
                guard !failed else { continue }
                do { try sender.connection.sendMetadata(m) } catch { if !recover(from: error, pending: []) { return } }
            case .sequenceHeader(let packet, let time):
                sender.sequenceHeader = packet
                guard !failed, !sender.resumeAtKeyframe else { continue }  // resuming: sent before the keyframe
                do { try sender.connection.sendVideo(packet, timestamp: time) } catch {
                    if !recover(from: error, pending: []) { return }
                }
            case .audioSequenceHeader(let tag):
                sender.audioSequenceHeader = tag
                guard !failed, !sender.resumeAtKeyframe else { continue }  // resuming: sent before the keyframe
                do { try sender.connection.sendTag(tag) } catch {
                    if !recover(from: error, pending: []) { return }
                }
            case .endOfSequence(let time):
                guard !failed, !sender.resumeAtKeyframe else { continue }  // resuming: nothing sent on this connection
                do { try sender.connection.sendVideo(.endOfSequence, timestamp: time) } catch { fail(error) }
            case .frame(let frame):
                guard !failed else { continue }
                if sender.resumeAtKeyframe {
                    guard frame.isKeyframe else {
                        state.withLock {
                            if frame.isVideo {
                                $0.statistics.framesDroppedWhileDisconnected &+= 1  // one per frame
                            } else {
                                $0.statistics.tagsDropped &+= 1  // one per tag
                            }
                        }
                        continue
                    }
                    sender.resumeAtKeyframe = false
                    if case let (error, unsent)? = resume([frame]) {
                        if !recover(from: error, pending: unsent) { return }
                    }
                    continue
                }
                do {
                    try send(frame)
                } catch {
                    if !recover(from: error, pending: [frame]) { return }
                }
            }
        }
    }

    /// Sends one frame or tag and counts it.
    private func send(_ frame: RTMPOutageBuffer.Frame) throws(RTMPError) {
        switch frame.payload {
        case .video(let packet):
            try sender.connection.sendVideo(packet, timestamp: frame.timestamp)
        case .tag(let type, let body):
            try sender.connection.sendTag(FLVTag(type: type, timestamp: frame.timestamp, body: body))
        }
        let sent = sender.bytesSent
        state.withLock {
            if frame.isVideo {
                $0.statistics.framesSent &+= 1  // one per frame queued
            } else {
                $0.statistics.tagsSent &+= 1  // one per tag queued
            }
            $0.statistics.bytesSent = sent
        }
    }

    /// After `error` on the connection: without reconnection (or when cancelled or
    /// finishing) it becomes the publisher's error; otherwise outages until the stream is
    /// published again (`pending`, the frames not sent, going first) or the publisher gives up.
    /// - Returns: false when the sender thread has ended.
    private func recover(from error: RTMPError, pending: [RTMPOutageBuffer.Frame]) -> Bool {
        let (cancelled, finishing) = state.withLock { ($0.cancelled, $0.finishing) }
        guard let reconnection = options.reconnection, !cancelled, !finishing, error.code != .cancelled else {
            fail(error)
            return true
        }
        var lost = error
        var carried = pending
        while true {
            switch outage(lost, carrying: carried, reconnection) {
            case .stopped:
                return false
            case .gaveUp:
                return true
            case .connected(let frames):
                guard case let (error, unsent)? = resume(frames) else { return true }
                lost = error
                carried = unsent
            }
        }
    }

    /// One outage: `lost`, the old connection aborted, then attempts with backoff until one
    /// publishes again, while the queue is emptied into the outage buffer.
    private func outage(_ lost: RTMPError, carrying pending: [RTMPOutageBuffer.Frame],
                        _ reconnection: Reconnection) -> OutageEnd {
        events?(.lost(lost))
        sender.connection.abort()
        var buffer = RTMPOutageBuffer(maximumDuration: reconnection.bufferDuration, maximumBytes: reconnection.bufferBytes)
        /// The frames (not tags) the queue dropped so far.
        func framesDroppedByQueue() -> Int {
            let tags = state.withLock { $0.tagsDroppedByQueue }
            return items.statistics.dropped &- tags  // tags are among the queue's drops
        }
        let (droppedBefore, overflowBefore) = (state.withLock { $0.statistics.framesDroppedWhileDisconnected },
                                               framesDroppedByQueue())
        var tagsAccounted = 0
        /// Frames this outage cost so far.
        func dropped() -> Int {
            buffer.dropped &+ (framesDroppedByQueue() &- overflowBefore)  // counts of frames taken
        }
        func account() {
            state.withLock {
                $0.statistics.framesDroppedWhileDisconnected = droppedBefore &+ buffer.dropped  // frames taken
                $0.statistics.tagsDropped &+= buffer.droppedTags &- tagsAccounted  // tags taken
                $0.statistics.bytesBufferedWhileDisconnected = buffer.bytes
                $0.statistics.peakBytesBufferedWhileDisconnected = max($0.statistics.peakBytesBufferedWhileDisconnected, buffer.peakBytes)
            }
            tagsAccounted = buffer.droppedTags
        }
        func giveUp() -> OutageEnd {
            buffer.dropAll()
            account()
            events?(.gaveUp(lost, framesDropped: dropped()))
            fail(lost)
            return .gaveUp
        }
        for frame in pending { buffer.add(frame) }
        account()
        let giveUpAt = reconnection.maximumOutage.map { Deadline.after($0) }
        var random = SystemRandomNumberGenerator()
        var attempt = 0
        while true {
            attempt &+= 1  // below maximumAttempts, or one per wait of at least a moment
            if let maximum = reconnection.maximumAttempts, attempt > maximum { return giveUp() }
            if let giveUpAt, giveUpAt.hasPassed { return giveUp() }
            var delay = reconnection.delay(attempt: attempt, using: &random)
            if let giveUpAt { delay = min(delay, giveUpAt.remaining) }  // the last attempt at the outage's end
            events?(.retrying(attempt: attempt, after: delay))
            // Wait by taking what the producer queues: cancel() wakes this wait at once.
            let until = Deadline.after(delay)
            taking: while true {
                switch items.pop(deadline: until) {
                case .timedOut:
                    break taking
                case .cancelled, .ended:
                    buffer.dropAll()
                    account()
                    end()
                    return .stopped
                case .element(.finish):
                    _ = giveUp()
                    end()
                    return .stopped
                case .element(.metadata(let m)):
                    sender.metadata = m
                case .element(.sequenceHeader(let packet, _)):
                    sender.sequenceHeader = packet
                    buffer.dropAll()  // the frames held belong to the old one
                    account()
                case .element(.audioSequenceHeader(let tag)):
                    sender.audioSequenceHeader = tag
                case .element(.endOfSequence):
                    continue
                case .element(.frame(let frame)):
                    buffer.add(frame)
                    account()
                }
            }
            do {
                let connection = try RTMPConnection(url: url, options: options.connection, interrupt: interrupt)
                try connection.publish()
                sender.bytesSentBefore = sender.bytesSent
                sender.connection = connection
            } catch {
                if error.code == .cancelled || isCancelled {
                    buffer.dropAll()
                    account()
                    end()
                    return .stopped
                }
                continue
            }
            let frames = buffer.take()
            account()
            state.withLock { $0.statistics.reconnections &+= 1 }  // one per outage
            events?(.connected(attempt: attempt, framesDropped: dropped()))
            return .connected(frames)
        }
    }

    /// On a new connection: the latest metadata and sequence headers, audio then video (at the
    /// first frame's time), then `frames`, from a keyframe. With no frames, the sender resumes at the next
    /// keyframe taken.
    /// - Returns: nil when all was sent; otherwise the error and the frames not sent.
    private func resume(_ frames: [RTMPOutageBuffer.Frame]) -> (RTMPError, [RTMPOutageBuffer.Frame])? {
        guard let first = frames.first else {
            sender.resumeAtKeyframe = true
            return nil
        }
        do throws(RTMPError) {
            if let m = sender.metadata { try sender.connection.sendMetadata(m) }
            if var a = sender.audioSequenceHeader {
                a.timestamp = first.timestamp
                try sender.connection.sendTag(a)
            }
            if let h = sender.sequenceHeader { try sender.connection.sendVideo(h, timestamp: first.timestamp) }
        } catch {
            return (error, frames)
        }
        for (i, frame) in frames.enumerated() {
            do throws(RTMPError) { try send(frame) } catch { return (error, Array(frames[i...])) }
        }
        return nil
    }

    private func fail(_ error: RTMPError) {
        state.withLock { if $0.error == nil { $0.error = error } }
    }

    /// The sender thread's last act: the counters, then `finish` may return.
    private func end() {
        let sent = sender.bytesSent
        state.withLock {
            $0.statistics.bytesSent = sent
            $0.statistics.bytesBufferedWhileDisconnected = 0
            $0.done = true
        }
        state.signalAll()
    }
}
