import FLV
import H264
import MediaSupport

/// One RTMP message: a type, a message stream, a timestamp and a payload.
package struct RTMPMessage: Hashable, Sendable {
    /// RTMP message type ids.
    package enum Kind: UInt8 {
        case setChunkSize = 1, abort = 2, acknowledgement = 3, userControl = 4
        case windowAcknowledgementSize = 5, setPeerBandwidth = 6
        case audio = 8, video = 9, dataAMF3 = 15, commandAMF3 = 17, dataAMF0 = 18, commandAMF0 = 20
    }

    /// The message type id.
    package var typeID: UInt8
    /// The message stream id (0 for the connection).
    package var streamID: UInt32
    /// Timestamp in milliseconds.
    package var timestamp: UInt32
    /// The payload.
    package var payload: [UInt8]

    package init(_ kind: Kind, streamID: UInt32 = 0, timestamp: UInt32 = 0, payload: [UInt8]) {
        self.init(typeID: kind.rawValue, streamID: streamID, timestamp: timestamp, payload: payload)
    }

    package init(typeID: UInt8, streamID: UInt32, timestamp: UInt32, payload: [UInt8]) {
        self.typeID = typeID
        self.streamID = streamID
        self.timestamp = timestamp
        self.payload = payload
    }

    package var kind: Kind? { Kind(rawValue: typeID) }

    /// A protocol control message carrying one 32-bit value (Set Chunk Size, Acknowledgement,
    /// Window Acknowledgement Size).
    package static func control(_ kind: Kind, _ value: UInt32) -> RTMPMessage {
        var p: [UInt8] = []
        p.writeUInt32(value)
        return RTMPMessage(kind, payload: p)
    }

    /// An AMF0 command: name, transaction id, then the arguments.
    package static func command(_ name: String, transaction: Double, _ args: [AMF0Value], streamID: UInt32 = 0) -> RTMPMessage {
        RTMPMessage(.commandAMF0, streamID: streamID, payload: AMF0.encode([.string(name), .number(transaction)] + args))
    }

    /// The payload's 32-bit big-endian value (control messages).
    package func uint32() throws(RTMPError) -> UInt32 {
        var c = ByteReader<ByteReadError>(payload[...])
        do { return try c.readUInt32("control message value") } catch {
            throw RTMPError.invalid(.protocolViolation, "RTMP control message type \(typeID) shorter than 4 bytes")
        }
    }
}
