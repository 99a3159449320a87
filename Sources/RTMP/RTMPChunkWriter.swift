import FLV
import H264
import MediaSupport

/// Splits messages into RTMP chunks: a type-0 header on the first chunk, type-3 headers on
/// the rest, the extended timestamp repeated in every chunk when the timestamp needs it.
package struct RTMPChunkWriter: Sendable {
    /// The largest chunk payload we send (changed by sending Set Chunk Size).
    package var chunkSize = 128

    package init() {}

    /// Appends the chunks of `message` on chunk stream `chunkStreamID` (2...63).
    package func write(_ message: RTMPMessage, chunkStreamID: UInt8, into out: inout [UInt8]) {
        let csid = chunkStreamID & 0x3F
        let extended = message.timestamp >= 0xFF_FFFF
        out.append(csid)  // fmt 0
        out.writeUInt24(extended ? 0xFF_FFFF : message.timestamp)
        out.writeUInt24(UInt32(truncatingIfNeeded: message.payload.count))
        out.append(message.typeID)
        out.writeUInt32(message.streamID.byteSwapped)  // little-endian, the one field that is
        if extended { out.writeUInt32(message.timestamp) }
        var offset = 0
        let size = max(chunkSize, 1)
        while true {
            let end = min(offset + size, message.payload.count)  // both below payload.count + size
            out.append(contentsOf: message.payload[offset..<end])
            offset = end
            guard offset < message.payload.count else { break }
            out.append(0xC0 | csid)  // fmt 3
            if extended { out.writeUInt32(message.timestamp) }
        }
    }
}
