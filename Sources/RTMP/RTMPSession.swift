import FLV
import H264

/// One side of an RTMP connection after the handshake (the client's or the server's), as a pure
/// function of the bytes received: chunk reassembly, protocol control (Set Chunk Size, Abort,
/// Window Acknowledgement Size, pings) and AMF0 command decoding, with what must be sent in
/// reply (acknowledgements, ping responses, the side's own messages) gathered in ``outgoing``.
///
/// ``RTMPConnection`` (the publishing client) and the ``RTMPServer``'s connections drive one
/// over a socket with deadlines; being free of I/O and clocks, it can be tested, and fuzzed, on
/// any bytes.
///
/// Memory: the chunk reader's limits (``RTMPChunkReader``), plus ``outgoing`` until taken: a
/// constant number of bytes per message received at most (a ping response, an acknowledgement
/// per ``minimumAcknowledgementWindow`` bytes).
package struct RTMPSession: Sendable {
    /// The smallest acknowledgement window honoured: a peer that asks for a smaller one gets an
    /// acknowledgement per this many bytes, not one per byte.
    package static let minimumAcknowledgementWindow: Int64 = 4096

    package private(set) var reader = RTMPChunkReader()
    private var writer = RTMPChunkWriter()
    /// Bytes to send, oldest first.
    package private(set) var outgoing: [UInt8] = []
    /// Bytes received so far (counted for acknowledgements).
    package private(set) var bytesReceived: Int64 = 0
    private var acknowledgementWindow: Int64 = 2_500_000
    private var lastAcknowledged: Int64 = 0

    /// Creates a session with the reader's limits.
    package init(maximumMessageSize: Int = RTMPChunkReader.defaultMaximumMessageSize,
                 maximumBufferedBytes: Int = RTMPChunkReader.defaultMaximumBufferedBytes,
                 maximumChunkStreams: Int = 64) {
        reader.maximumMessageSize = maximumMessageSize
        reader.maximumBufferedBytes = maximumBufferedBytes
        reader.maximumChunkStreams = maximumChunkStreams
    }

    /// Control messages applied so far (Set Chunk Size, Abort, Acknowledgement, Window
    /// Acknowledgement Size, Set Peer Bandwidth, User Control).
    package private(set) var controlMessageCount = 0

    /// The chunk size used for what the client sends.
    package var chunkSize: Int {
        get { writer.chunkSize }
        set { writer.chunkSize = newValue }
    }

    /// Takes bytes received from the server (after the handshake).
    package mutating func receive(_ bytes: ArraySlice<UInt8>) {
        bytesReceived &+= Int64(bytes.count)  // an Int64 byte count does not overflow in practice
        reader.append(bytes)
        if bytesReceived &- lastAcknowledged >= acknowledgementWindow {
            lastAcknowledged = bytesReceived
            send(.control(.acknowledgement, UInt32(truncatingIfNeeded: bytesReceived)), on: RTMPChunkStream.control)
        }
    }

    /// Queues a message for sending.
    package mutating func send(_ message: RTMPMessage, on chunkStream: UInt8) {
        writer.write(message, chunkStreamID: chunkStream, into: &outgoing)
    }

    /// Returns the bytes to send and empties ``outgoing``.
    package mutating func takeOutgoing() -> [UInt8] {
        defer { outgoing = [] }
        return outgoing
    }

    /// The next AMF0 command from the server (its values: name, transaction id, arguments),
    /// applying the control messages before it; nil when more bytes are needed.
    /// - Throws: ``RTMPError/Code/protocolViolation`` for a malformed chunk, control message or
    ///   AMF0 command, ``RTMPError/Code/limitExceeded`` beyond the reader's limits.
    package mutating func nextCommand() throws(RTMPError) -> [AMF0Value]? {
        while let m = try nextMessage() {
            if let values = try Self.command(m) { return values }
        }
        return nil
    }

    /// The next message that is not protocol control (a command, data, audio, video, or a type
    /// the session does not know), applying the control messages before it; nil when more bytes
    /// are needed.
    /// - Throws: ``RTMPError/Code/protocolViolation`` for a malformed chunk or control message,
    ///   ``RTMPError/Code/limitExceeded`` beyond the reader's limits.
    package mutating func nextMessage() throws(RTMPError) -> RTMPMessage? {
        while let m = try reader.nextMessage() {
            guard try applyControl(m) else { return m }
            controlMessageCount &+= 1  // one per message parsed: cannot reach Int.max
        }
        return nil
    }

    /// The values of an AMF0 command message (or of an AMF3 one, whose AMF0 body follows a
    /// format byte); nil for another type.
    /// - Throws: ``RTMPError/Code/protocolViolation`` for malformed AMF0.
    package static func command(_ m: RTMPMessage) throws(RTMPError) -> [AMF0Value]? {
        let body: ArraySlice<UInt8>
        switch m.kind {
        case .commandAMF0: body = m.payload[...]
        case .commandAMF3: body = m.payload.dropFirst()
        default: return nil
        }
        do throws(FLVError) {
            return try AMF0.decodeAll(body)
        } catch {
            throw RTMPError.wrapping(error, as: .protocolViolation, "malformed AMF0 command from the peer")
        }
    }

    /// Applies a protocol control message; false for any other message.
    private mutating func applyControl(_ m: RTMPMessage) throws(RTMPError) -> Bool {
        switch m.kind {
        case .setChunkSize:
            let size = Int(try m.uint32() & 0x7FFF_FFFF)
            guard size >= 1 else { throw RTMPError.invalid(.protocolViolation, "Set Chunk Size 0") }
            reader.chunkSize = size
        case .abort:
            reader.abort(chunkStreamID: try m.uint32())
        case .windowAcknowledgementSize:
            acknowledgementWindow = Swift.max(Int64(try m.uint32()), Self.minimumAcknowledgementWindow)
        case .userControl:
            // Ping request (event 6): answer with a ping response (event 7) and the same time.
            if m.payload.count >= 6, m.payload[0] == 0, m.payload[1] == 6 {
                send(RTMPMessage(.userControl, payload: [0, 7] + m.payload[2..<6]), on: RTMPChunkStream.control)
            }
        case .acknowledgement, .setPeerBandwidth:
            break  // nothing to do: the peer's count of our bytes, its idea of our bandwidth
        default:
            return false
        }
        return true
    }
}

/// The chunk streams each side sends on: 2 protocol control, 3 commands, 4 audio, 5 data and
/// stream status, 6 video.
package enum RTMPChunkStream {
    package static let control: UInt8 = 2, command: UInt8 = 3, audio: UInt8 = 4, data: UInt8 = 5, video: UInt8 = 6
}
