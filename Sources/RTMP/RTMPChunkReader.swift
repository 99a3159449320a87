import FLV
import H264

/// Reassembles RTMP messages from chunks, keeping each chunk stream's last header.
///
/// Input arrives in arbitrary pieces (``append(_:)``); ``nextMessage()`` returns a message
/// once all its chunks are in. Limits: message size (``maximumMessageSize``) and the number
/// of chunk streams in use (``maximumChunkStreams``), so a hostile peer cannot make it
/// allocate without bound.
struct RTMPChunkReader: Sendable {
    /// The peer's chunk size (Set Chunk Size); 128 until it says otherwise.
    var chunkSize = 128
    /// Largest message accepted.
    var maximumMessageSize = 4 << 20
    /// Most chunk streams tracked at once.
    var maximumChunkStreams = 64

    private struct StreamState {
        var timestamp: UInt32 = 0
        var delta: UInt32 = 0
        var length = 0
        var typeID: UInt8 = 0
        var streamID: UInt32 = 0
        var extended = false
        var partial: [UInt8] = []
    }

    private var buffer: [UInt8] = []
    private var readOffset = 0
    private var streams: [UInt32: StreamState] = [:]

    /// Adds received bytes.
    mutating func append(_ bytes: [UInt8]) {
        if readOffset > 0 && readOffset >= buffer.count / 2 {
            buffer.removeFirst(readOffset)
            readOffset = 0
        }
        buffer += bytes
    }

    /// Drops the partial message of a chunk stream (an Abort Message from the peer).
    mutating func abort(chunkStreamID: UInt32) {
        streams[chunkStreamID]?.partial = []
    }

    /// The next complete message, or nil when more bytes are needed.
    /// - Throws: ``H264Error/Code/protocolViolation`` for a chunk that continues an unknown
    ///   chunk stream, ``H264Error/Code/limitExceeded`` beyond the limits.
    mutating func nextMessage() throws(H264Error) -> RTMPMessage? {
        while true {
            var c = ByteCursor(buffer[readOffset...])
            let message: RTMPMessage?
            do {
                message = try readChunk(&c)
            } catch where error.code == .truncated {
                return nil  // wait for more bytes; nothing was consumed
            }
            readOffset = c.position
            if let message { return message }
        }
    }

    /// Reads one chunk; returns a message when it completes one. State changes only when the
    /// whole chunk is present (the cursor is a copy until then).
    private mutating func readChunk(_ c: inout ByteCursor) throws(H264Error) -> RTMPMessage? {
        let b0 = try c.readUInt8()
        let fmt = b0 >> 6
        var csid = UInt32(b0 & 0x3F)
        if csid == 0 {
            csid = 64 &+ UInt32(try c.readUInt8())
        } else if csid == 1 {
            let lo = UInt32(try c.readUInt8()), hi = UInt32(try c.readUInt8())
            csid = 64 &+ lo &+ hi << 8  // at most 65599
        }
        var s: StreamState
        if let known = streams[csid] {
            s = known
        } else {
            guard fmt == 0 else {
                throw H264Error.invalid(.protocolViolation, "RTMP chunk of type \(fmt) on new chunk stream \(csid)")
            }
            guard streams.count < maximumChunkStreams else {
                throw H264Error.invalid(.limitExceeded, "more than \(maximumChunkStreams) RTMP chunk streams")
            }
            s = StreamState()
        }
        let starting = s.partial.isEmpty
        switch fmt {
        case 0, 1, 2:
            let t = try c.readUInt24()
            if fmt <= 1 {
                s.length = Int(try c.readUInt24())
                s.typeID = try c.readUInt8()
                guard s.length <= maximumMessageSize else {
                    throw H264Error.invalid(.limitExceeded, "RTMP message of \(s.length) bytes exceeds \(maximumMessageSize)")
                }
            }
            if fmt == 0 {
                let le = try c.readBytes(4)
                s.streamID = le.reversed().reduce(0) { $0 << 8 | UInt32($1) }
            }
            s.extended = t == 0xFF_FFFF
            let value = s.extended ? try c.readUInt32() : t
            guard starting else {
                throw H264Error.invalid(.protocolViolation, "RTMP chunk header type \(fmt) in the middle of a message")
            }
            if fmt == 0 { s.timestamp = value; s.delta = 0 } else { s.delta = value; s.timestamp &+= value }  // RTMP times wrap
        default:
            if s.extended { try c.skip(4) }
            if starting { s.timestamp &+= s.delta }  // a new message with the previous header
        }
        let take = min(chunkSize, s.length - s.partial.count)  // partial.count < length here
        let payload = try c.readBytes(take)
        s.partial += payload
        if s.partial.count >= s.length {
            let message = RTMPMessage(typeID: s.typeID, streamID: s.streamID, timestamp: s.timestamp, payload: s.partial)
            s.partial = []
            streams[csid] = s
            return message
        }
        streams[csid] = s
        return nil
    }
}
