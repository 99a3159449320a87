import FLV
import H264
import MediaSupport

/// Reassembles RTMP messages from chunks, keeping each chunk stream's last header.
///
/// Input arrives in arbitrary pieces (``append(_:)``); ``nextMessage()`` returns a message
/// once all its chunks are in. Reassembly is linear: each chunk's payload is appended once to
/// its message, whatever the chunk size, so a peer that sets the chunk size to 1 costs a
/// constant per chunk (a byte or a few of header per byte of payload), not a copy of the
/// message so far.
///
/// Limits, each a typed ``RTMPError/Code/limitExceeded``: the size of one message
/// (``maximumMessageSize``), the number of chunk streams in use (``maximumChunkStreams``) and
/// the bytes held in incomplete messages across all chunk streams, each chunk stream's
/// bookkeeping counted as ``bookkeepingBytesPerChunkStream`` (``maximumBufferedBytes``).
/// Memory: at most ``maximumBufferedBytes`` plus the bytes received and not yet parsed
/// (``memoryInUse`` counts both).
package struct RTMPChunkReader: Sendable {
    /// The peer's chunk size (Set Chunk Size); 128 until it says otherwise. Any size from 1 up
    /// is accepted, as the specification requires: cost per chunk is bounded, and the
    /// connection's deadlines bound the time a peer can make it spend.
    package var chunkSize = 128
    /// Largest message accepted.
    package var maximumMessageSize = RTMPChunkReader.defaultMaximumMessageSize
    /// Most chunk streams tracked at once.
    package var maximumChunkStreams = 64
    /// Most bytes held in incomplete messages, all chunk streams together.
    package var maximumBufferedBytes = RTMPChunkReader.defaultMaximumBufferedBytes

    /// The default limit on one message: 4 MiB, above any command or control message and a
    /// large video frame.
    package static let defaultMaximumMessageSize = 4 << 20
    /// The default limit on incomplete messages: 8 MiB in all.
    package static let defaultMaximumBufferedBytes = 8 << 20
    /// What one chunk stream's state (its last header, its partial message's array) counts
    /// against ``maximumBufferedBytes``, whether or not a message is in progress on it.
    package static let bookkeepingBytesPerChunkStream = 64

    /// What the last chunk header of a chunk stream said.
    private struct Header: Sendable {
        var timestamp: UInt32 = 0
        var delta: UInt32 = 0
        var length = 0
        var typeID: UInt8 = 0
        var streamID: UInt32 = 0
        var extended = false
    }

    private struct StreamState: Sendable {
        var id: UInt32
        var header = Header()
        var partial: [UInt8] = []
    }

    /// What one call of `readChunk` found.
    private enum Chunk {
        /// The chunk is not all there yet: nothing was consumed.
        case incomplete
        /// A chunk was read; it completed this message, if any.
        case read(RTMPMessage?)
    }

    private var buffer: [UInt8] = []
    private var readOffset = 0
    /// The chunk streams in use, found by a linear search (at most `maximumChunkStreams`).
    private var streams: [StreamState] = []
    /// Bytes in all `partial` arrays.
    package private(set) var bufferedByteCount = 0

    /// Adds received bytes.
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        if readOffset > 0 && readOffset >= buffer.count / 2 {
            buffer.removeSubrange(0..<readOffset)
            readOffset = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes held in an array.
    package mutating func append(_ bytes: [UInt8]) { append(bytes[...]) }

    /// Bytes received and not yet parsed.
    package var unparsedByteCount: Int { buffer.count &- readOffset }

    /// The bytes the reader holds, as its limits count them: incomplete messages, the chunk
    /// streams' bookkeeping, and the bytes received and not yet parsed.
    package var memoryInUse: Int {
        // Each term is bounded by an array's size or maximumChunkStreams * 64.
        bufferedByteCount &+ streams.count &* Self.bookkeepingBytesPerChunkStream &+ unparsedByteCount
    }

    /// The bytes counted against ``maximumBufferedBytes``: incomplete messages and bookkeeping.
    private var countedBytes: Int { bufferedByteCount &+ streams.count &* Self.bookkeepingBytesPerChunkStream }

    /// Drops the partial message of a chunk stream (an Abort Message from the peer).
    package mutating func abort(chunkStreamID: UInt32) {
        guard let i = streams.firstIndex(where: { $0.id == chunkStreamID }) else { return }
        bufferedByteCount &-= streams[i].partial.count  // counted when appended
        streams[i].partial = []
    }

    /// The next complete message, or nil when more bytes are needed.
    /// - Throws: ``RTMPError/Code/protocolViolation`` for a chunk that continues an unknown
    ///   chunk stream or a header type in the middle of a message,
    ///   ``RTMPError/Code/limitExceeded`` beyond the limits.
    package mutating func nextMessage() throws(RTMPError) -> RTMPMessage? {
        while true {
            var c = ByteReader<ByteReadError>(buffer[readOffset...])
            guard case .read(let message) = try readChunk(&c) else { return nil }
            readOffset = c.position
            if let message { return message }
        }
    }

    /// Reads one chunk. State changes only when the whole chunk is present.
    private mutating func readChunk(_ c: inout ByteReader<ByteReadError>) throws(RTMPError) -> Chunk {
        guard let b0 = try? c.readUInt8() else { return .incomplete }
        let fmt = b0 >> 6
        var csid = UInt32(b0 & 0x3F)
        if csid == 0 {
            guard let b = try? c.readUInt8() else { return .incomplete }
            csid = 64 &+ UInt32(b)
        } else if csid == 1 {
            guard let lo = try? c.readUInt8(), let hi = try? c.readUInt8() else { return .incomplete }
            csid = 64 &+ UInt32(lo) &+ UInt32(hi) << 8  // at most 65599
        }
        let index = streams.firstIndex { $0.id == csid }
        let known = index.map { streams[$0].header }
        if index == nil {
            guard fmt == 0 else {
                throw RTMPError.invalid(.protocolViolation, "RTMP chunk of type \(fmt) on new chunk stream \(csid)")
            }
            guard streams.count < maximumChunkStreams else {
                throw RTMPError.invalid(.limitExceeded, "more than \(maximumChunkStreams) RTMP chunk streams")
            }
            guard countedBytes &+ Self.bookkeepingBytesPerChunkStream <= maximumBufferedBytes else {
                throw RTMPError.invalid(.limitExceeded, "more than \(maximumBufferedBytes) bytes of RTMP chunk streams")
            }
        }
        var h = known ?? Header()
        let partialCount = index.map { streams[$0].partial.count } ?? 0
        let starting = partialCount == 0
        switch fmt {
        case 0, 1, 2:
            guard let t = try? c.readUInt24() else { return .incomplete }
            if fmt <= 1 {
                guard let l = try? c.readUInt24(), let ty = try? c.readUInt8() else { return .incomplete }
                h.length = Int(l)
                h.typeID = ty
            }
            if fmt == 0 {
                guard let v = try? c.readUInt32() else { return .incomplete }
                h.streamID = v.byteSwapped  // little-endian, the one field that is
            }
            h.extended = t == 0xFF_FFFF
            var value = t
            if h.extended {
                guard let v = try? c.readUInt32() else { return .incomplete }
                value = v
            }
            guard starting else {
                throw RTMPError.invalid(.protocolViolation, "RTMP chunk header type \(fmt) in the middle of a message")
            }
            guard h.length <= maximumMessageSize else {
                throw RTMPError.invalid(.limitExceeded, "RTMP message of \(h.length) bytes exceeds \(maximumMessageSize)")
            }
            if fmt == 0 { h.timestamp = value; h.delta = 0 } else { h.delta = value; h.timestamp &+= value }  // RTMP times wrap
        default:
            if h.extended {
                guard (try? c.skip(4)) != nil else { return .incomplete }
            }
            if starting { h.timestamp &+= h.delta }  // a new message with the previous header
        }
        let take = min(max(chunkSize, 1), h.length &- partialCount)  // partialCount < length here
        guard let payload = try? c.readBytes(take) else { return .incomplete }
        let completes = partialCount &+ take >= h.length
        if !completes && countedBytes &+ take > maximumBufferedBytes {
            throw RTMPError.invalid(.limitExceeded, "more than \(maximumBufferedBytes) bytes of incomplete RTMP messages")
        }
        // The whole chunk is here: commit.
        let i: Int
        if let index { i = index } else { streams.append(StreamState(id: csid)); i = streams.count &- 1 }
        streams[i].header = h
        guard completes else {
            streams[i].partial.append(contentsOf: payload)  // in place: appending is linear
            bufferedByteCount &+= take  // <= maximumBufferedBytes, checked above
            return .read(nil)
        }
        var bytes = streams[i].partial
        streams[i].partial = []
        bufferedByteCount &-= bytes.count  // counted when appended
        bytes.append(contentsOf: payload)
        return .read(RTMPMessage(typeID: h.typeID, streamID: h.streamID, timestamp: h.timestamp, payload: bytes))
    }
}
