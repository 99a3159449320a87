import MediaSupport

/// One message of a published stream as the relay passes it to players: an FLV tag body with
/// its RTMP message type and timestamp.
struct RTMPRelayMessage: Sendable, Equatable {
    /// The RTMP message type: 8 audio, 9 video, 18 data (AMF0).
    var typeID: UInt8
    /// The timestamp in milliseconds, as the publisher sent it.
    var timestamp: UInt32
    /// The message body (an FLV tag's body).
    var payload: [UInt8]
    /// A video message that starts a group of pictures (frame type 1, not a sequence header).
    var isKeyframe: Bool
    /// A decoder configuration: an AVC sequence header (legacy `AVCPacketType` 0, or enhanced
    /// RTMP `PacketTypeSequenceStart`), or an AAC AudioSpecificConfig (`SoundFormat` 10,
    /// `AACPacketType` 0).
    var isSequenceHeader: Bool

    /// The RTMP message types the relay passes on.
    static let audio: UInt8 = 8
    static let video: UInt8 = 9
    static let data: UInt8 = 18

    init(typeID: UInt8, timestamp: UInt32, payload: [UInt8], isKeyframe: Bool, isSequenceHeader: Bool) {
        self.typeID = typeID
        self.timestamp = timestamp
        self.payload = payload
        self.isKeyframe = isKeyframe
        self.isSequenceHeader = isSequenceHeader
    }

    /// A message whose flags are read from its body: video frame type and packet type (legacy
    /// AVC and enhanced RTMP's `ExVideoTagHeader`), audio sound format and AAC packet type.
    init(typeID: UInt8, timestamp: UInt32, payload: [UInt8]) {
        var keyframe = false, header = false
        if let first = payload.first {
            switch typeID {
            case Self.video where (first >> 4) & 0x07 == 5:
                break  // a video info or command frame: no picture, no configuration
            case Self.video:
                if first & 0x80 != 0 {
                    // Enhanced RTMP: IsExHeader, VideoFrameType (3 bits), VideoPacketType (4 bits).
                    header = first & 0x0F == 0  // PacketTypeSequenceStart
                    keyframe = !header && (first >> 4) & 0x07 == 1 && first & 0x0F != 2  // not SequenceEnd
                } else {
                    // Legacy: FrameType (4 bits), CodecID (4 bits), then AVCPacketType for AVC.
                    let avc = first & 0x0F == 7
                    let packetType = payload.dropFirst().first
                    header = avc && packetType == 0
                    keyframe = !header && first >> 4 == 1 && (!avc || packetType == 1)
                }
            case Self.audio:
                header = Self.isAudioSequenceHeader(payload[...])
            default:
                break
            }
        }
        self.init(typeID: typeID, timestamp: timestamp, payload: payload, isKeyframe: keyframe, isSequenceHeader: header)
    }

    /// An audio message body that is an AAC AudioSpecificConfig (`SoundFormat` 10,
    /// `AACPacketType` 0): a decoder configuration, sent again before a stream resumes.
    static func isAudioSequenceHeader(_ body: ArraySlice<UInt8>) -> Bool {
        body.first.map { $0 >> 4 == 10 } == true && body.dropFirst().first == 0
    }

    /// The message players get for a message a publisher sent, or nil for one not relayed
    /// (only audio, video and data go to players). A data message loses its `@setDataFrame`
    /// (players get `onMetaData` itself, as FLV files hold it), and AMF3 data (type 15) becomes
    /// the AMF0 data it carries after its format byte. Enhanced RTMP video (`ExVideoTagHeader`,
    /// FourCC `avc1`) becomes the legacy AVC tag with the same content, which every player
    /// reads (FFmpeg before 6.1 and librtmp know no other); its other packet types (metadata,
    /// multitrack) are not relayed.
    static func forPlayers(typeID: UInt8, timestamp: UInt32, payload: [UInt8]) -> RTMPRelayMessage? {
        switch typeID {
        case video where payload.first.map({ $0 & 0x80 != 0 }) ?? false:
            guard let legacy = legacyAVC(enhanced: payload) else { return nil }
            return RTMPRelayMessage(typeID: typeID, timestamp: timestamp, payload: legacy)
        case audio, video:
            return RTMPRelayMessage(typeID: typeID, timestamp: timestamp, payload: payload)
        case data, 15:
            var body = typeID == 15 ? payload.dropFirst() : payload[...]
            let prefix: [UInt8] = [0x02, 0, 13] + Array("@setDataFrame".utf8)
            if body.starts(with: prefix) { body = body.dropFirst(prefix.count) }
            return RTMPRelayMessage(typeID: data, timestamp: timestamp, payload: Array(body))
        default:
            return nil
        }
    }

    /// The legacy AVC tag body (FrameType and CodecID 7, AVCPacketType, CompositionTime) of an
    /// enhanced RTMP video tag body with FourCC `avc1`: SequenceStart is a sequence header,
    /// CodedFrames keeps its composition time, CodedFramesX gets 0, SequenceEnd is an end of
    /// sequence; nil for another FourCC or packet type.
    static func legacyAVC(enhanced payload: [UInt8]) -> [UInt8]? {
        guard payload.count >= 5, payload[1...4].elementsEqual("avc1".utf8) else { return nil }
        let head = ((payload[0] >> 4) & 0x07) << 4 | 7  // FrameType, CodecID 7 (AVC)
        let body = payload[5...]
        switch payload[0] & 0x0F {
        case 0: return [head, 0, 0, 0, 0] + body  // PacketTypeSequenceStart
        case 1: return body.count >= 3 ? [head, 1] + body : nil  // PacketTypeCodedFrames: SI24 composition time first
        case 2: return [head, 2, 0, 0, 0]  // PacketTypeSequenceEnd
        case 3: return [head, 1, 0, 0, 0] + body  // PacketTypeCodedFramesX: composition time 0
        default: return nil
        }
    }

    /// A data message whose first AMF0 value is the string `onMetaData`.
    var isMetadata: Bool {
        let name = Array("onMetaData".utf8)
        return typeID == Self.data && payload.count >= 3 &+ name.count && payload[0] == 0x02
            && payload[1] == 0 && Int(payload[2]) == name.count && payload[3..<(3 &+ name.count)].elementsEqual(name)
    }
}

/// The players' side of one published stream: what the publisher's connection hands over is
/// copied to every player's queue, and a player that joins late starts at the last keyframe.
///
/// **What a new player gets first.** The relay remembers the latest metadata (the `onMetaData`
/// data message), the latest video sequence header and the latest audio sequence header, and
/// keeps a GOP cache: every message (video, audio, data) from the last video keyframe on,
/// bounded by `gopCacheBytes`. A new subscription starts with the cache, whose keyframe comes
/// after the metadata and the sequence headers; when the cache is empty (no keyframe yet, or
/// the current group of pictures outgrew the bound, which empties the cache until the next
/// keyframe), it waits for the next keyframe and starts there.
///
/// **Slow players.** Each subscription has a queue bounded by `playerQueueBytes` (message bodies
/// plus ``entryOverhead`` per message). When it is full, the oldest group of pictures waiting is
/// dropped whole; when only the current group waits, the rest of it is dropped, up to the next
/// video keyframe (audio and data included), so a player never gets a picture without its
/// reference or half of a group. Sequence headers and metadata ride with each keyframe too:
/// a player that lost the message carrying a new header gets it before the next keyframe.
/// ``publish(_:)`` never waits for a player, and a slow player delays nobody else.
///
/// A stream without video keyframes (audio only) gives its players nothing: playing starts at
/// a video keyframe.
///
/// Memory: `gopCacheBytes` of cached messages (with their bookkeeping), the latest metadata
/// and sequence headers, and per subscription `playerQueueBytes` (or one message alone larger)
/// plus at most four messages being handed out.
final class RTMPStreamRelay: Sendable {
    /// The bookkeeping counted with each message's body in the cache and the queues.
    static let entryOverhead = 96

    /// The byte bound of the GOP cache.
    let gopCacheBytes: Int
    /// The byte bound of each subscription's queue.
    let playerQueueBytes: Int

    /// A remembered header (metadata or a sequence header) and its version: the number that
    /// lets a subscription deliver it once however many times it comes.
    struct Header: Sendable {
        var message: RTMPRelayMessage
        var version: UInt64
    }

    /// The headers in effect: each keyframe carries them.
    struct Headers: Sendable {
        var metadata: Header?
        var video: Header?
        var audio: Header?

        var bytes: Int {
            (metadata?.message.payload.count ?? 0) &+ (video?.message.payload.count ?? 0) &+ (audio?.message.payload.count ?? 0)
        }
    }

    /// An element of the cache and of the queues.
    struct Item: Sendable {
        var message: RTMPRelayMessage
        /// For a header message, its version.
        var version: UInt64?
        /// For a keyframe, the headers in effect.
        var headers: Headers?

        /// What it counts against the bounds: its body, the headers it carries, the bookkeeping.
        var cost: Int { message.payload.count &+ (headers?.bytes ?? 0) &+ RTMPStreamRelay.entryOverhead }
    }

    private struct Subscriber {
        let queue: BoundedQueue<Item>
        /// Joined while the cache was empty: nothing is queued before the next keyframe.
        var waitsForKeyframe: Bool
    }

    private struct State {
        var headers = Headers()
        var nextVersion: UInt64 = 1
        /// Everything from the last keyframe, when it fits; empty otherwise.
        var cache: [Item] = []
        var cacheBytes = 0
        /// The group of pictures the next message belongs to (one more at each keyframe).
        var group: UInt64 = 0
        var subscribers: [Subscriber] = []
        var ended = false
    }

    private let state = ThreadLock(State())

    /// A relay with nothing published yet.
    /// - Parameters:
    ///   - gopCacheBytes: the bound of the GOP cache (message bodies and bookkeeping).
    ///   - playerQueueBytes: the bound of each player's queue.
    init(gopCacheBytes: Int, playerQueueBytes: Int) {
        self.gopCacheBytes = max(0, gopCacheBytes)
        self.playerQueueBytes = max(0, playerQueueBytes)
    }

    /// Hands `message` to every subscription and keeps it in the cache (the publisher's
    /// connection thread). Never waits: a full queue drops by its policy. Ignored after
    /// ``end()``.
    /// - Complexity: O(subscriptions), and O(waiting messages) for a queue that drops a group.
    func publish(_ message: RTMPRelayMessage) {
        state.withLock { s in
            guard !s.ended else { return }
            var item = Item(message: message)
            if message.isMetadata || message.isSequenceHeader {
                let header = Header(message: message, version: s.nextVersion)
                s.nextVersion &+= 1  // one per message: cannot reach UInt64.max
                item.version = header.version
                if message.isMetadata {
                    s.headers.metadata = header
                } else if message.typeID == RTMPRelayMessage.video {
                    s.headers.video = header
                } else {
                    s.headers.audio = header
                }
            }
            let keyframe = message.typeID == RTMPRelayMessage.video && message.isKeyframe
            if keyframe {
                item.headers = s.headers
                s.group &+= 1  // one per keyframe
                s.cache.removeAll(keepingCapacity: true)
                s.cacheBytes = 0
            }
            // The cache: from a keyframe on, while it fits.
            if keyframe || !s.cache.isEmpty {
                if item.cost <= gopCacheBytes &- s.cacheBytes {  // cacheBytes <= gopCacheBytes
                    s.cache.append(item)
                    s.cacheBytes &+= item.cost
                } else {
                    s.cache = []
                    s.cacheBytes = 0
                }
            }
            let group = s.group
            var closed = false
            for index in s.subscribers.indices {
                if s.subscribers[index].waitsForKeyframe {
                    guard keyframe else { continue }
                    s.subscribers[index].waitsForKeyframe = false
                }
                if s.subscribers[index].queue.push(item, bytes: item.cost, group: group) == .closed { closed = true }
            }
            if closed { s.subscribers.removeAll { !$0.queue.isOpen } }
        }
    }

    /// A new player's subscription, starting with the cache (its keyframe carrying the metadata
    /// and sequence headers), or at the next keyframe when the cache is empty; nil once the
    /// stream has ended.
    func subscribe() -> RTMPRelaySubscription? {
        state.withLock { s -> RTMPRelaySubscription? in
            guard !s.ended else { return nil }
            let queue = BoundedQueue<Item>(capacity: playerQueueBytes / Self.entryOverhead &+ 1,
                                           maximumBytes: playerQueueBytes, overflow: .dropOldestGroup)
            for item in s.cache { queue.push(item, bytes: item.cost, group: s.group) }
            s.subscribers.append(Subscriber(queue: queue, waitsForKeyframe: s.cache.isEmpty))
            return RTMPRelaySubscription(queue: queue)
        }
    }

    /// The publisher has gone: every subscription ends once its queue is taken, and
    /// ``subscribe()`` returns nil. Idempotent.
    func end() {
        let subscribers = state.withLock { s -> [Subscriber] in
            s.ended = true
            s.cache = []
            s.cacheBytes = 0
            defer { s.subscribers = [] }
            return s.subscribers
        }
        for subscriber in subscribers { subscriber.queue.close() }
    }

    /// Subscriptions not cancelled (those cancelled are forgotten at the next message).
    var subscriberCount: Int { state.withLock { $0.subscribers.count(where: { $0.queue.isOpen }) } }

    /// The bytes the cache holds (bodies, carried headers and bookkeeping).
    var cachedBytes: Int { state.withLock { $0.cacheBytes } }
}

/// One player's view of a relayed stream: the messages in order, from the player's connection
/// thread, each header delivered once before the keyframe that needs it (at that keyframe's
/// time when it comes with it).
///
/// Memory: the queue's bound (``RTMPStreamRelay/playerQueueBytes``) and at most four messages
/// being handed out (a keyframe and the three headers before it).
final class RTMPRelaySubscription: Sendable {
    private let queue: BoundedQueue<RTMPStreamRelay.Item>

    private struct State {
        /// Messages taken from the queue and not yet handed out (headers before a keyframe).
        var pending: [RTMPRelayMessage] = []
        var metadataVersion: UInt64 = 0
        var videoVersion: UInt64 = 0
        var audioVersion: UInt64 = 0
        var ended = false
    }

    private let state = ThreadLock(State())

    init(queue: BoundedQueue<RTMPStreamRelay.Item>) { self.queue = queue }

    /// The next message, waiting until `deadline` (nil: without a limit) for one.
    /// - Returns: the message; nil when the stream has ended (or this subscription was
    ///   cancelled: then ``isEnded`` is true), or when the deadline passed (``isEnded`` false).
    func next(deadline: Deadline?) -> RTMPRelayMessage? {
        // One consumer: the lock is not held while the queue is waited on, so that
        // `isEnded` and `messagesDropped` answer at once.
        let waiting = state.withLock { s -> RTMPRelayMessage?? in
            if !s.pending.isEmpty { return .some(s.pending.removeFirst()) }
            return s.ended ? .some(nil) : nil
        }
        if let waiting { return waiting }
        while true {
            let popped = queue.pop(deadline: deadline)
            let out = state.withLock { s -> RTMPRelayMessage?? in
                switch popped {
                case .element(let item):
                    if let headers = item.headers {
                        // A keyframe: the headers it needs that were not handed out yet first.
                        // They take the keyframe's time: a header remembered from long ago
                        // must not send the player's clock back.
                        for (header, kind) in [(headers.metadata, 0), (headers.video, 1), (headers.audio, 2)] {
                            guard let header, Self.takeVersion(header.version, kind: kind, &s) else { continue }
                            var message = header.message
                            message.timestamp = item.message.timestamp
                            s.pending.append(message)
                        }
                        s.pending.append(item.message)
                        return .some(s.pending.removeFirst())
                    }
                    if let version = item.version {
                        let kind = item.message.isMetadata ? 0 : item.message.typeID == RTMPRelayMessage.video ? 1 : 2
                        // Already handed out with a keyframe: look for the next message.
                        guard Self.takeVersion(version, kind: kind, &s) else { return nil }
                    }
                    return .some(item.message)
                case .timedOut:
                    return .some(nil)
                case .ended, .cancelled:
                    s.ended = true
                    return .some(nil)
                }
            }
            if let out { return out }
        }
    }

    /// Records that the header of `kind` (0 metadata, 1 video, 2 audio) at `version` is handed
    /// out; false when it already was (or a later one).
    private static func takeVersion(_ version: UInt64, kind: Int, _ s: inout State) -> Bool {
        switch kind {
        case 0:
            guard version > s.metadataVersion else { return false }
            s.metadataVersion = version
        case 1:
            guard version > s.videoVersion else { return false }
            s.videoVersion = version
        default:
            guard version > s.audioVersion else { return false }
            s.audioVersion = version
        }
        return true
    }

    /// True once the stream has ended (or the subscription was cancelled) and everything
    /// before the end was taken.
    var isEnded: Bool { state.withLock { $0.ended && $0.pending.isEmpty } }

    /// Ends the subscription at once: what waits is released, a waiting ``next(deadline:)``
    /// returns nil, and the relay forgets it.
    func cancel() { queue.cancel() }

    /// Messages dropped because the queue was full (whole groups of pictures).
    var messagesDropped: Int { queue.statistics.dropped }
}

/// The relays of a server's published streams, by application and stream name: a publish
/// starts one, its end ends it, a `play` subscribes to the one published under its name.
///
/// Memory: the relays (each within its stated bound) and one entry per stream published now.
final class RTMPRelayRegistry: Sendable {
    let gopCacheBytes: Int
    let playerQueueBytes: Int
    private let relays = ThreadLock<[String: RTMPStreamRelay]>([:])

    init(gopCacheBytes: Int, playerQueueBytes: Int) {
        self.gopCacheBytes = gopCacheBytes
        self.playerQueueBytes = playerQueueBytes
    }

    /// A new relay for a publish of `key`; a relay of an earlier publish of the name (a
    /// publisher replaced) ends, its players with it.
    func start(_ key: String) -> RTMPStreamRelay {
        let relay = RTMPStreamRelay(gopCacheBytes: gopCacheBytes, playerQueueBytes: playerQueueBytes)
        let previous = relays.withLock { r -> RTMPStreamRelay? in
            defer { r[key] = relay }
            return r[key]
        }
        previous?.end()
        return relay
    }

    /// Ends `relay` (its publish of `key` has ended) and forgets it, unless a later publish of
    /// the name has taken its place.
    func end(_ key: String, _ relay: RTMPStreamRelay) {
        relays.withLock { r in
            if r[key] === relay { r[key] = nil }
        }
        relay.end()
    }

    /// The relay of the stream published as `key` now, if any.
    func relay(for key: String) -> RTMPStreamRelay? { relays.withLock { $0[key] } }

    /// Ends every relay (the server closes).
    func endAll() {
        let all = relays.withLock { r -> [RTMPStreamRelay] in
            defer { r = [:] }
            return Array(r.values)
        }
        for relay in all { relay.end() }
    }
}
