import FLV
import MediaSupport

extension RTMPPublisher {
    /// How a publisher reconnects after it lost its connection (``Options/reconnection``): when
    /// to try again, for how long, and what it keeps of the stream meanwhile.
    ///
    /// **Backoff.** The first attempt comes ``initialDelay`` after the loss; each later one
    /// waits twice as long as the one before, up to ``maximumDelay``, each delay moved by a
    /// random fraction of itself of up to ±``jitter`` (so that many publishers that lost the
    /// same server do not all come back at the same moment). An attempt is a new TCP connection,
    /// handshake, `connect` and `publish`, each bounded by the connection's timeouts.
    ///
    /// **Giving up.** After ``maximumAttempts`` failed attempts of one outage, or once the
    /// outage has lasted ``maximumOutage`` (an attempt in progress then still runs to its own
    /// deadline), the publisher gives up: the error that began the outage becomes the
    /// publisher's error, which ``RTMPPublisher/send(_:)`` and
    /// ``RTMPPublisher/finish(endOfSequenceTimestamp:timeout:)`` throw from then on.
    ///
    /// **The outage buffer.** While disconnected, the sender thread keeps taking frames from the
    /// queue (a producer never waits longer than its ``OverflowPolicy`` allows) into a buffer of
    /// at most ``bufferDuration`` (by the frames' timestamps) and ``bufferBytes``. The buffer
    /// starts at a keyframe (frames before one are dropped: nothing could decode them) and,
    /// when over either bound, drops its oldest whole group of pictures, the frames from a
    /// keyframe up to the next, never part of one. The latest metadata and sequence header are
    /// remembered (a new sequence header drops the frames buffered before it, which belong to
    /// the old one). Every frame dropped is counted (``Statistics/framesDroppedWhileDisconnected``
    /// and the ``ConnectionEvent``s). Audio and data tags (``RTMPPublisher/send(tag:)``) wait in
    /// the buffer with the frames and count against its bytes; a tag belongs to the group of
    /// the frame before it and is dropped with that group (and before the first keyframe),
    /// counted in ``Statistics/tagsDropped``; the latest AAC sequence header is remembered
    /// and sent again.
    public struct Reconnection: Sendable, Hashable {
        /// The wait before the first attempt of an outage (500 ms by default).
        public var initialDelay: Duration
        /// The longest wait between two attempts (10 s by default).
        public var maximumDelay: Duration
        /// The fraction (0...1) of each wait by which it is moved at random, up or down (0.2
        /// by default: ±20%).
        public var jitter: Double
        /// The most attempts in one outage (nil, the default: no limit but ``maximumOutage``).
        public var maximumAttempts: Int?
        /// The longest outage before giving up (60 s by default; nil: no limit but
        /// ``maximumAttempts``; both nil: tries until cancelled or finished).
        public var maximumOutage: Duration?
        /// The most media time, by the frames' timestamps, kept while disconnected (10 s by
        /// default).
        public var bufferDuration: Duration
        /// The most bytes of frames kept while disconnected (8 MiB by default).
        public var bufferBytes: Int

        /// Creates reconnection settings; the defaults try for a minute, 500 ms, 1 s, 2 s ...
        /// up to 10 s apart (±20%), keeping up to 10 s or 8 MiB of frames meanwhile.
        public init(initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(10),
                    jitter: Double = 0.2, maximumAttempts: Int? = nil, maximumOutage: Duration? = .seconds(60),
                    bufferDuration: Duration = .seconds(10), bufferBytes: Int = 8 << 20) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.jitter = jitter
            self.maximumAttempts = maximumAttempts
            self.maximumOutage = maximumOutage
            self.bufferDuration = bufferDuration
            self.bufferBytes = bufferBytes
        }

        /// The wait before attempt `attempt` (1 for the first), without jitter:
        /// `initialDelay * 2^(attempt - 1)`, at most ``maximumDelay``.
        func baseDelay(attempt: Int) -> Duration {
            var delay = initialDelay
            var n = 1
            while n < attempt && delay < maximumDelay {
                delay *= 2  // below 2 * maximumDelay, a Duration: no overflow for any sane maximum
                n &+= 1  // below attempt
            }
            return min(delay, maximumDelay)
        }

        /// The wait before attempt `attempt`, jittered by a uniform fraction of ±``jitter``.
        func delay<R: RandomNumberGenerator>(attempt: Int, using random: inout R) -> Duration {
            let base = baseDelay(attempt: attempt)
            guard jitter > 0 else { return base }
            let factor = 1 + Double.random(in: -jitter...jitter, using: &random)
            return max(.zero, base * factor)
        }

        /// Throws ``RTMPError/Code/invalidArgument`` for settings that cannot be used.
        func validate() throws(RTMPError) {
            guard initialDelay >= .zero, maximumDelay >= initialDelay else {
                throw RTMPError.invalid(.invalidArgument, "reconnection delays must satisfy 0 <= initialDelay <= maximumDelay")
            }
            guard (0...1).contains(jitter) else {
                throw RTMPError.invalid(.invalidArgument, "reconnection jitter \(jitter) outside 0...1")
            }
            if let maximumAttempts, maximumAttempts < 1 {
                throw RTMPError.invalid(.invalidArgument, "reconnection maximumAttempts must be at least 1")
            }
            if let maximumOutage, maximumOutage < .zero {
                throw RTMPError.invalid(.invalidArgument, "reconnection maximumOutage must not be negative")
            }
            guard bufferDuration >= .zero, bufferBytes >= 0 else {
                throw RTMPError.invalid(.invalidArgument, "reconnection buffer bounds must not be negative")
            }
        }
    }

    /// A change of a reconnecting publisher's connection (``Options/reconnection``), for a
    /// service to log and alert on. Delivered to the `events` handler given at creation, on
    /// the publisher's sender thread, in order: one ``lost(_:)``, then for each attempt a
    /// ``retrying(attempt:after:)``, then ``connected(attempt:framesDropped:)`` or
    /// ``gaveUp(_:framesDropped:)``.
    public enum ConnectionEvent: Sendable, Hashable {
        /// The connection failed (a send or a read failed, the server closed it, or an
        /// operation outlasted its deadline: a server that stopped reading); an outage begins.
        case lost(RTMPError)
        /// Attempt `attempt` (1 for the first of the outage) starts after waiting `after`.
        case retrying(attempt: Int, after: Duration)
        /// Attempt `attempt` succeeded: the stream is published again. `framesDropped` is what
        /// this outage cost: the video frames that will never reach the server, counted by the
        /// publisher (the outage buffer's drops and the overflow policy's while disconnected;
        /// frames already written to the lost connection's socket are counted as sent). The
        /// audio and data tags dropped with them are counted in ``Statistics/tagsDropped``.
        case connected(attempt: Int, framesDropped: Int)
        /// The publisher gave up (``Reconnection/maximumAttempts``,
        /// ``Reconnection/maximumOutage``, or a finish during the outage) with the error that
        /// began the outage; it is the publisher's error from now on. `framesDropped` as in
        /// ``connected(attempt:framesDropped:)``, the buffer included.
        case gaveUp(RTMPError, framesDropped: Int)
    }
}

/// The frames a publisher keeps while it is disconnected: from a keyframe, whole groups of
/// pictures, within a duration (by timestamps) and a byte count; the oldest group goes first.
/// Audio and data tags ride in the group of the video frame before them: a tag before the
/// first keyframe, or in a group that is dropped, is dropped with it (counted apart,
/// ``droppedTags``).
struct RTMPOutageBuffer {
    /// One message the sender takes from the queue: a video frame, or an audio or data tag.
    struct Frame {
        enum Payload {
            case video(FLVVideoPacket)
            /// An audio or script tag's type and body.
            case tag(FLVTagType, ArraySlice<UInt8>)
        }

        let payload: Payload
        let timestamp: UInt32
        /// A video keyframe (a tag never is).
        let isKeyframe: Bool

        init(packet: FLVVideoPacket, timestamp: UInt32, isKeyframe: Bool) {
            payload = .video(packet)
            self.timestamp = timestamp
            self.isKeyframe = isKeyframe
        }

        init(tag: FLVTag) {
            payload = .tag(tag.type, tag.body)
            timestamp = tag.timestamp
            isKeyframe = false
        }

        /// A video frame (not a tag).
        var isVideo: Bool {
            if case .video = payload { return true }
            return false
        }

        /// The FLV tag body's size: a video packet's data and its 5-byte header, a tag's body.
        var bytes: Int {
            switch payload {
            case .video(let packet): packet.data.count &+ 5  // a packet's data is far below Int.max
            case .tag(_, let body): body.count
            }
        }
    }

    let maximumDuration: Duration
    let maximumBytes: Int
    private(set) var frames: [Frame] = []
    private(set) var bytes = 0
    /// The most bytes held at once.
    private(set) var peakBytes = 0
    /// Video frames dropped so far.
    private(set) var dropped = 0
    /// Audio and data tags dropped so far.
    private(set) var droppedTags = 0
    /// Frames are dropped until a keyframe comes (the buffer starts at one).
    private var waitingForKeyframe = true

    init(maximumDuration: Duration, maximumBytes: Int) {
        self.maximumDuration = maximumDuration
        self.maximumBytes = maximumBytes
    }

    /// Keeps `frame`, dropping the oldest whole groups of pictures while over a bound (the
    /// frame's own group too when it is the only one; then the rest of it as it comes).
    mutating func add(_ frame: Frame) {
        if waitingForKeyframe {
            guard frame.isKeyframe else {
                count(frame)
                return
            }
            waitingForKeyframe = false
        }
        frames.append(frame)
        bytes &+= frame.bytes  // at most maximumBytes plus one frame
        while !frames.isEmpty && (bytes > maximumBytes || span > maximumDuration) {
            let end = frames.dropFirst().firstIndex(where: \.isKeyframe) ?? frames.endIndex
            for f in frames[..<end] {
                bytes &-= f.bytes
                count(f)
            }
            frames.removeFirst(end)
            if frames.isEmpty { waitingForKeyframe = true }
        }
        peakBytes = max(peakBytes, bytes)
    }

    /// Drops everything held (a new sequence header: what was held belongs to the old one);
    /// the buffer starts again at the next keyframe.
    mutating func dropAll() {
        for f in frames { count(f) }
        frames = []
        bytes = 0
        waitingForKeyframe = true
    }

    /// Hands the frames over and empties the buffer.
    mutating func take() -> [Frame] {
        defer {
            frames = []
            bytes = 0
        }
        return frames
    }

    /// Counts a dropped frame or tag.
    private mutating func count(_ frame: Frame) {
        if frame.isVideo { dropped &+= 1 } else { droppedTags &+= 1 }  // one per message taken
    }

    /// Media time from the first frame held to the last.
    private var span: Duration {
        guard let first = frames.first, let last = frames.last, last.timestamp >= first.timestamp else { return .zero }
        return .milliseconds(last.timestamp &- first.timestamp)  // last >= first
    }
}
