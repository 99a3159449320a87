import FLV
import H264
import MediaSupport

/// One accepted publish on an ``RTMPServer``, as an `AsyncSequence` of what the publisher
/// sends: metadata, decoder configuration changes, access units (``RTMPReceivedAccessUnit``,
/// an `AccessUnitSample`), the end of sequence, and audio and other data as opaque FLV tags.
///
/// ```swift
/// for try await event in ingest {
///     switch event {
///     case .video(let accessUnit): try recorder.write(accessUnit)     // MP4Recorder, HLSRecorder
///     case .tag(let tag, _): try flv.writeTag(tag)                     // audio, data: as sent
///     default: break
///     }
/// }
/// ```
///
/// The sequence ends (nil) when the publisher unpublishes (`FCUnpublish`, `deleteStream`,
/// `closeStream`) or closes its connection between messages; it throws an ``RTMPError`` when
/// the publish ends otherwise: ``RTMPError/Code/connectionClosed`` (the publisher stopped in
/// the middle of a message), ``RTMPError/Code/timedOut`` (it fell silent for the idle timeout),
/// ``RTMPError/Code/unsupported`` (video other than H.264), ``RTMPError/Code/protocolViolation``,
/// ``RTMPError/Code/limitExceeded``, ``RTMPError/Code/cancelled`` (the server closed, or
/// another publisher replaced this one). Iterated by one task at a time; cancelling that task
/// cancels the stream.
///
/// **A slow consumer.** The events wait in a bounded queue
/// (``RTMPServer/Options/eventQueueBytes``). When it is full the publisher's connection waits
/// (back-pressure: the publisher's own send buffer fills) up to
/// ``RTMPServer/Options/consumerWait`` per event; past it, the event is dropped **with the rest
/// of its group of pictures** (the GOP's audio and data too), never part of an access unit:
/// delivery resumes at the next keyframe, preceded by the decoder configuration again when one
/// was dropped. Drops are counted in ``Statistics/eventsDropped``.
///
/// Memory: at most ``RTMPServer/Options/eventQueueBytes`` of events waiting (a payload's size
/// plus 64 bytes each), or a single event larger than that alone.
public final class RTMPIngestStream: AsyncSequence, Sendable {
    public typealias Element = Event

    /// What the publisher sent, one message each.
    public enum Event: Sendable, Hashable {
        /// `@setDataFrame onMetaData` (or `onMetaData`): the stream's description.
        case metadata(FLVMetadata)
        /// A new AVC sequence header: the avcC record (as `FLVWriter.writeDecoderConfiguration`
        /// takes it), at its decoding time in milliseconds. Only changes are reported: a header
        /// equal to the one in force is not repeated.
        case decoderConfiguration([UInt8], timestamp: Int64)
        /// One access unit.
        case video(RTMPReceivedAccessUnit)
        /// An end of sequence (`AVCPacketType` 2, `PacketTypeSequenceEnd`), at its time.
        case endOfSequence(timestamp: Int64)
        /// An audio message, or a data message other than `onMetaData`, not decoded: an FLV
        /// tag with the message's type (`audio`, `script`), its 32-bit timestamp as sent and its
        /// payload as the body (`FLVWriter.writeTag` records it), and the time unrolled to 64
        /// bits on the 1 kHz clock of the video.
        case tag(FLVTag, time: Int64)
    }

    /// Counters of one publish, read together.
    public struct Statistics: Sendable, Hashable {
        /// Video access units received.
        public var accessUnits = 0
        /// Audio and data tags received.
        public var tags = 0
        /// Payload bytes of the media and data messages received.
        public var bytes: Int64 = 0
        /// Events the slow-consumer policy dropped.
        public var eventsDropped = 0
        /// Access units whose composition time was negative (their presentation time clamped to
        /// the decoding time).
        public var negativeCompositionTimes = 0
    }

    /// What the publisher asked for: application, stream name, query, peer, connect parameters.
    public let request: RTMPPublishRequest
    let queue: BoundedQueue<Event>
    private let handle: RTMPServerConnectionHandle
    private let counters = ThreadLock(Statistics())

    init(request: RTMPPublishRequest, queueBytes: Int, handle: RTMPServerConnectionHandle) {
        self.request = request
        self.handle = handle
        queue = BoundedQueue(capacity: Int.max, maximumBytes: queueBytes, overflow: .block)
    }

    /// The counters so far.
    public var statistics: Statistics { counters.withLock { $0 } }

    /// Ends the publish from the consumer's side: the publisher's connection is closed and the
    /// sequence ends at once (events waiting are released).
    public func cancel() {
        queue.cancel()
        handle.end(RTMPError.invalid(.cancelled, "the publish of '\(request.streamName)' was cancelled by its consumer"))
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue) }

    /// Takes the events in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: BoundedQueue<Event>

        /// The next event; nil once the publish has ended cleanly.
        /// - Throws: the ``RTMPError`` that ended the publish, once, after the events before
        ///   it; `CancellationError` when the task (or ``RTMPIngestStream/cancel()``) cancelled it.
        public mutating func next() async throws -> Event? { try await queue.next() }
    }

    func update(_ body: (inout Statistics) -> Void) { counters.withLock { body(&$0) } }
}

/// The accepted publishes of an ``RTMPServer`` (``RTMPServer/publishedStreams``), as they
/// start: an `AsyncSequence` that ends when the server is closed. One task iterates it.
///
/// Bounded: at most ``RTMPServer/Options/maximumPendingPublishes`` publishes wait to be taken;
/// a publish beyond them is refused (`NetStream.Publish.Failed`), so a server whose owner does
/// not take them holds no more.
public struct RTMPPublishedStreams: AsyncSequence, Sendable {
    public typealias Element = RTMPIngestStream
    let queue: BoundedQueue<RTMPIngestStream>

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue) }

    /// Takes the publishes in the order they started.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: BoundedQueue<RTMPIngestStream>

        /// The next accepted publish; nil once the server is closed.
        /// - Throws: `CancellationError` when the iterating task is cancelled (the sequence
        ///   then ends: publishes that come later are refused).
        public mutating func next() async throws -> RTMPIngestStream? { try await queue.next() }
    }
}

extension RTMPIngestStream.Event {
    /// True for an audio ``tag(_:time:)`` that is an AAC AudioSpecificConfig (`SoundFormat`
    /// 10, `AACPacketType` 0): the audio's decoder configuration, which a consumer that keeps
    /// only part of a stream (a restream that starts late) must keep, as it keeps the latest
    /// ``metadata(_:)``.
    public var isAudioSequenceHeader: Bool {
        guard case .tag(let tag, _) = self, tag.type == .audio else { return false }
        return RTMPRelayMessage.isAudioSequenceHeader(tag.body)
    }
}
