import Foundation
import Testing
import MediaSupport
@testable import RTMP

/// The relay between a publisher and its players: the GOP cache, what a late joiner gets
/// first, a slow player's whole-GOP drops while a fast one gets everything, the end and
/// cancellation.
@Suite struct RelayTests {
    typealias Message = RTMPRelayMessage

    // Messages as a publisher sends them: legacy AVC video, AAC audio, onMetaData.
    static func keyframe(_ t: UInt32, size: Int = 100) -> Message {
        Message(typeID: 9, timestamp: t, payload: [0x17, 1, 0, 0, 0] + [UInt8](repeating: UInt8(t & 0xFF), count: size))
    }
    static func inter(_ t: UInt32, size: Int = 100) -> Message {
        Message(typeID: 9, timestamp: t, payload: [0x27, 1, 0, 0, 0] + [UInt8](repeating: UInt8(t & 0xFF), count: size))
    }
    static func audio(_ t: UInt32, size: Int = 20) -> Message {
        Message(typeID: 8, timestamp: t, payload: [0xAF, 1] + [UInt8](repeating: UInt8(t & 0xFF), count: size))
    }
    static func videoHeader(_ tag: UInt8 = 0x64) -> Message {
        Message(typeID: 9, timestamp: 0, payload: [0x17, 0, 0, 0, 0, 1, tag, 0, 0x1F])
    }
    static let audioHeader = Message(typeID: 8, timestamp: 0, payload: [0xAF, 0, 0x12, 0x10])
    static let metadata = Message(typeID: 18, timestamp: 0, payload: [0x02, 0, 10] + Array("onMetaData".utf8) + [0x08, 0, 0, 0, 0, 0, 0, 9])

    /// `m` at time `t` (a header handed out with a keyframe takes its time).
    static func at(_ t: UInt32, _ m: Message) -> Message {
        var m = m
        m.timestamp = t
        return m
    }

    /// Takes what waits, without waiting.
    static func drain(_ subscription: RTMPRelaySubscription) -> [Message] {
        var out: [Message] = []
        while let m = subscription.next(deadline: .now) { out.append(m) }
        return out
    }

    @Test func flagsAreReadFromTheBodies() {
        let cases: [(UInt8, [UInt8], keyframe: Bool, header: Bool)] = [
            (9, [0x17, 1, 0, 0, 0, 9], true, false),  // legacy AVC keyframe NALU
            (9, [0x27, 1, 0, 0, 0, 9], false, false),  // inter
            (9, [0x17, 0, 0, 0, 0, 1], false, true),  // AVC sequence header
            (9, [0x17, 2, 0, 0, 0], false, false),  // AVC end of sequence
            (9, [0x57, 0], false, false),  // video info/command frame
            (9, [0xD0] + Array("avc1".utf8), false, false),  // enhanced command frame
            (9, [0x90] + Array("avc1".utf8) + [1], false, true),  // enhanced SequenceStart
            (9, [0x91] + Array("avc1".utf8) + [0, 0, 0, 9], true, false),  // enhanced CodedFrames, keyframe
            (9, [0x93] + Array("avc1".utf8) + [9], true, false),  // enhanced CodedFramesX, keyframe
            (9, [0xA1] + Array("avc1".utf8) + [0, 0, 0, 9], false, false),  // enhanced inter
            (9, [0x92] + Array("avc1".utf8), false, false),  // enhanced SequenceEnd
            (8, [0xAF, 0, 0x12, 0x10], false, true),  // AAC AudioSpecificConfig
            (8, [0xAF, 1, 9], false, false),  // AAC raw
            (8, [0x2F, 0, 9], false, false),  // MP3: no sequence header
            (9, [], false, false),
            (8, [0xAF], false, false),
        ]
        for (type, payload, keyframe, header) in cases {
            let m = Message(typeID: type, timestamp: 0, payload: payload)
            #expect(m.isKeyframe == keyframe && m.isSequenceHeader == header, "\(payload)")
        }
        #expect(Self.metadata.isMetadata)
        #expect(!Message(typeID: 18, timestamp: 0, payload: [0x02, 0, 10] + Array("onTextData".utf8)).isMetadata)
        #expect(!Message(typeID: 18, timestamp: 0, payload: [0x02, 0, 10]).isMetadata)
    }

    /// What players get of what a publisher sent: `@setDataFrame` removed, AMF3 data as AMF0,
    /// control and command types not relayed.
    @Test func messagesForPlayers() {
        let onMetaData = Self.metadata.payload
        let set = [0x02, 0, 13] + Array("@setDataFrame".utf8) + onMetaData
        #expect(Message.forPlayers(typeID: 18, timestamp: 5, payload: set) == Self.at(5, Self.metadata))
        #expect(Message.forPlayers(typeID: 15, timestamp: 5, payload: [0] + set) == Self.at(5, Self.metadata))
        #expect(Message.forPlayers(typeID: 18, timestamp: 5, payload: onMetaData)?.isMetadata == true)
        #expect(Message.forPlayers(typeID: 9, timestamp: 7, payload: Self.keyframe(7).payload) == Self.keyframe(7))
        #expect(Message.forPlayers(typeID: 8, timestamp: 0, payload: Self.audioHeader.payload)?.isSequenceHeader == true)
        // Enhanced RTMP avc1 becomes legacy AVC: the same configuration, frames and times.
        let avc1 = Array("avc1".utf8)
        let enhanced: [([UInt8], [UInt8]?)] = [
            ([0x90] + avc1 + [1, 0x64, 0, 0x1F], [0x17, 0, 0, 0, 0, 1, 0x64, 0, 0x1F]),  // SequenceStart
            ([0x91] + avc1 + [0, 0, 0x50, 0, 0, 0, 2, 0x65, 0x88], [0x17, 1, 0, 0, 0x50, 0, 0, 0, 2, 0x65, 0x88]),  // CodedFrames
            ([0xA3] + avc1 + [0, 0, 0, 2, 0x41, 0x9A], [0x27, 1, 0, 0, 0, 0, 0, 0, 2, 0x41, 0x9A]),  // CodedFramesX
            ([0x92] + avc1, [0x17, 2, 0, 0, 0]),  // SequenceEnd
            ([0x94] + avc1 + [2, 0], nil),  // Metadata: not relayed
            ([0x91] + avc1 + [0, 0], nil),  // CodedFrames without its composition time
            ([0x90] + Array("hvc1".utf8) + [1], nil),
            ([0x90, 0x61], nil),
        ]
        for (body, legacy) in enhanced {
            #expect(Message.forPlayers(typeID: 9, timestamp: 3, payload: body)?.payload == legacy, "\(body)")
        }
        #expect(Message.forPlayers(typeID: 9, timestamp: 3, payload: [0x91] + avc1 + [0, 0, 0, 0, 0, 0, 2, 0x65, 0x88])?.isKeyframe == true)
        for type: UInt8 in [1, 3, 4, 5, 6, 17, 20, 22] {
            #expect(Message.forPlayers(typeID: type, timestamp: 0, payload: [0, 0, 0, 1]) == nil)
        }
    }

    /// A publish of a name starts a relay; a second publish of the name ends the first's
    /// relay (its players end); the first publish's end then leaves the second's in place.
    @Test func theRegistryKeepsOneRelayPerName() {
        let registry = RTMPRelayRegistry(gopCacheBytes: 1 << 20, playerQueueBytes: 1 << 20)
        #expect(registry.relay(for: "live/a") == nil)
        let first = registry.start("live/a")
        #expect(registry.relay(for: "live/a") === first)
        let player = first.subscribe()!
        let second = registry.start("live/a")
        #expect(registry.relay(for: "live/a") === second)
        #expect(player.next(deadline: .now) == nil && player.isEnded)
        registry.end("live/a", first)
        #expect(registry.relay(for: "live/a") === second)
        let other = registry.start("live/b")
        registry.endAll()
        #expect(registry.relay(for: "live/a") == nil && registry.relay(for: "live/b") == nil)
        #expect(second.subscribe() == nil && other.subscribe() == nil)
    }

    /// The cache holds everything from the last keyframe: a subscriber that joins gets the
    /// metadata, the sequence headers, then that keyframe and what followed it, then live.
    @Test func lateJoinerStartsAtTheLastKeyframeWithHeadersFirst() {
        let relay = RTMPStreamRelay(gopCacheBytes: 1 << 20, playerQueueBytes: 1 << 20)
        let gop1 = [Self.keyframe(0), Self.audio(10), Self.inter(40), Self.audio(30)]
        let gop2 = [Self.keyframe(80), Self.audio(50), Self.inter(120), Self.inter(160)]
        for m in [Self.metadata, Self.videoHeader(), Self.audioHeader] + gop1 + gop2 { relay.publish(m) }
        let costs = gop2.map { $0.payload.count + RTMPStreamRelay.entryOverhead }.reduce(0, +)
            + Self.metadata.payload.count + Self.videoHeader().payload.count + Self.audioHeader.payload.count
        #expect(relay.cachedBytes == costs)

        let subscription = relay.subscribe()!
        #expect(Self.drain(subscription) == [Self.metadata, Self.videoHeader(), Self.audioHeader].map { Self.at(80, $0) } + gop2)
        relay.publish(Self.audio(70))
        relay.publish(Self.keyframe(200))
        // Live; the headers are not repeated with the keyframe (handed out already).
        #expect(Self.drain(subscription) == [Self.audio(70), Self.keyframe(200)])
        #expect(!subscription.isEnded && subscription.messagesDropped == 0)
    }

    /// Before the first keyframe there is nothing to start from: a subscriber waits for it, and
    /// gets no picture (nor audio) from before it.
    @Test func aSubscriberWaitsForTheFirstKeyframe() {
        let relay = RTMPStreamRelay(gopCacheBytes: 1 << 20, playerQueueBytes: 1 << 20)
        relay.publish(Self.videoHeader())
        relay.publish(Self.inter(0))
        let subscription = relay.subscribe()!
        relay.publish(Self.audio(10))
        relay.publish(Self.inter(40))
        #expect(subscription.next(deadline: .now) == nil)
        #expect(!subscription.isEnded)
        relay.publish(Self.keyframe(80))
        relay.publish(Self.inter(120))
        #expect(Self.drain(subscription) == [Self.at(80, Self.videoHeader()), Self.keyframe(80), Self.inter(120)])
    }

    /// A group of pictures larger than the cache empties it: a subscriber then waits for the
    /// next keyframe (which starts a cache again).
    @Test func aGOPLargerThanTheCacheEmptiesIt() {
        let cost = 1005 + RTMPStreamRelay.entryOverhead
        let relay = RTMPStreamRelay(gopCacheBytes: 3 * cost + 5, playerQueueBytes: 1 << 20)
        relay.publish(Self.videoHeader())
        relay.publish(Self.keyframe(0, size: 1000))
        relay.publish(Self.inter(40, size: 1000))
        #expect(relay.cachedBytes == 2 * cost + Self.videoHeader().payload.count)
        relay.publish(Self.inter(80, size: 1000))  // the keyframe carries the header: no longer fits
        #expect(relay.cachedBytes == 0)
        relay.publish(Self.inter(120, size: 1000))
        #expect(relay.cachedBytes == 0, "the cache restarts only at a keyframe")

        let subscription = relay.subscribe()!
        relay.publish(Self.inter(160, size: 1000))
        #expect(Self.drain(subscription).isEmpty)
        relay.publish(Self.keyframe(200, size: 1000))
        #expect(relay.cachedBytes == cost + Self.videoHeader().payload.count)
        #expect(Self.drain(subscription) == [Self.at(200, Self.videoHeader()), Self.keyframe(200, size: 1000)])
        // A keyframe alone larger than the cache is not cached.
        relay.publish(Self.keyframe(240, size: 4 * cost))
        #expect(relay.cachedBytes == 0)
    }

    /// A subscriber that does not read fills its queue; it then loses whole groups of pictures
    /// (audio included): after every gap, the next message it gets is a video keyframe. A
    /// subscriber that reads gets every message; the publisher never waits.
    @Test func aSlowSubscriberDropsWholeGOPsWhileAFastOneGetsEverything() {
        let gopBytes = 10 * (1005 + RTMPStreamRelay.entryOverhead) + 10 * (22 + RTMPStreamRelay.entryOverhead)
        let relay = RTMPStreamRelay(gopCacheBytes: 2 * gopBytes, playerQueueBytes: gopBytes * 5 / 2)
        relay.publish(Self.metadata)
        relay.publish(Self.videoHeader())
        relay.publish(Self.audioHeader)
        let fast = relay.subscribe()!
        let slow = relay.subscribe()!
        var published: [Message] = []
        var fastGot: [Message] = []
        var t: UInt32 = 0
        for _ in 0..<12 {
            for frame in 0..<10 {
                let video = frame == 0 ? Self.keyframe(t, size: 1000) : Self.inter(t, size: 1000)
                for m in [video, Self.audio(t + 5)] {
                    relay.publish(m)
                    published.append(m)
                    fastGot += Self.drain(fast)
                }
                t += 40
            }
        }
        #expect(fastGot == [Self.metadata, Self.videoHeader(), Self.audioHeader].map { Self.at(0, $0) } + published)
        #expect(fast.messagesDropped == 0)

        let slowGot = Self.drain(slow)
        #expect(slow.messagesDropped > 0)
        // The headers first, at the time of the keyframe the slow subscriber starts at (its
        // first ones were dropped with the groups that carried them).
        let media = Array(slowGot.dropFirst(3))
        #expect(media.first?.isKeyframe == true)
        let start = media.first?.timestamp ?? 0
        #expect(Array(slowGot.prefix(3)) == [Self.metadata, Self.videoHeader(), Self.audioHeader].map { Self.at(start, $0) })
        #expect(media.count + slow.messagesDropped == published.count)
        // In order, and every gap ends at a video keyframe.
        var position = 0
        for m in media {
            guard let found = published[position...].firstIndex(of: m) else {
                Issue.record("\(m.timestamp) out of order")
                break
            }
            if found != position { #expect(m.isKeyframe, "after a gap at \(position): \(m.timestamp) is not a keyframe") }
            position = found + 1
        }
        // The queue held at most its bound: about two and a half groups.
        #expect(media.count <= published.count / 12 * 3)
        #expect(media.last == published.last)
    }

    /// A header that changes while a player's queue is full reaches the player with the next
    /// keyframe, even though the message that carried it was dropped; and a player that got the
    /// header message gets it once.
    @Test func aNewHeaderReachesAPlayerThatLostIt() {
        let cost = 105 + RTMPStreamRelay.entryOverhead
        let relay = RTMPStreamRelay(gopCacheBytes: 1 << 20, playerQueueBytes: 3 * cost + 20)
        relay.publish(Self.videoHeader(0x64))
        let slow = relay.subscribe()!
        let fast = relay.subscribe()!
        var fastGot: [Message] = []
        for m in [Self.keyframe(0), Self.inter(40), Self.inter(80), Self.videoHeader(0x4D), Self.keyframe(120), Self.inter(160)] {
            relay.publish(m)
            fastGot += Self.drain(fast)
        }
        #expect(fastGot == [Self.at(0, Self.videoHeader(0x64)), Self.keyframe(0), Self.inter(40), Self.inter(80), Self.videoHeader(0x4D),
                            Self.keyframe(120), Self.inter(160)])
        // The header comes at the keyframe's time.
        #expect(Self.drain(slow) == [Self.at(120, Self.videoHeader(0x4D)), Self.keyframe(120), Self.inter(160)])
        #expect(slow.messagesDropped == 4)
    }

    @Test func theEndComesAfterTheQueue() {
        let relay = RTMPStreamRelay(gopCacheBytes: 1 << 20, playerQueueBytes: 1 << 20)
        let subscription = relay.subscribe()!
        relay.publish(Self.keyframe(0))
        relay.publish(Self.inter(40))
        relay.end()
        relay.publish(Self.inter(80))  // ignored
        #expect(relay.subscribe() == nil)
        #expect(!subscription.isEnded)
        #expect(subscription.next(deadline: nil) == Self.keyframe(0))
        #expect(subscription.next(deadline: nil) == Self.inter(40))
        #expect(subscription.next(deadline: nil) == nil)
        #expect(subscription.isEnded)
        #expect(relay.subscriberCount == 0 && relay.cachedBytes == 0)
    }

    /// Cancelling ends a subscription at once, wakes a waiting `next`, and the relay forgets it.
    @Test func cancelEndsAtOnceAndWakesAWaitingReader() throws {
        let relay = RTMPStreamRelay(gopCacheBytes: 1 << 20, playerQueueBytes: 1 << 20)
        let subscription = relay.subscribe()!
        let other = relay.subscribe()!
        #expect(relay.subscriberCount == 2)
        relay.publish(Self.keyframe(0))
        let result = ThreadLock<(Message?, Bool)?>(nil)
        let reader = Thread {
            _ = subscription.next(deadline: nil)  // the keyframe
            let m = subscription.next(deadline: .after(.seconds(30)))
            result.withLock { $0 = (m, subscription.isEnded) }
        }
        reader.start()
        Thread.sleep(forTimeInterval: 0.1)
        subscription.cancel()
        let deadline = Deadline.after(.seconds(10))
        while result.withLock({ $0 == nil }) && !deadline.hasPassed { Thread.sleep(forTimeInterval: 0.01) }
        let (message, ended) = try #require(result.withLock { $0 })
        #expect(message == nil && ended)
        #expect(relay.subscriberCount == 1)
        relay.publish(Self.inter(40))
        #expect(Self.drain(other) == [Self.keyframe(0), Self.inter(40)])
        #expect(subscription.next(deadline: .now) == nil && subscription.isEnded)
    }

    /// A deadline that passes gives nil without ending the subscription.
    @Test func aDeadlineIsNotTheEnd() {
        let relay = RTMPStreamRelay(gopCacheBytes: 1 << 20, playerQueueBytes: 1 << 20)
        let subscription = relay.subscribe()!
        #expect(subscription.next(deadline: .after(.milliseconds(20))) == nil)
        #expect(!subscription.isEnded)
        relay.publish(Self.keyframe(0))
        #expect(subscription.next(deadline: .after(.seconds(5))) == Self.keyframe(0))
    }
}
