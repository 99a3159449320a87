import H264

/// The fixed header of an RTP packet (RFC 3550 section 5.1) as this library writes it: version 2,
/// no padding, no header extension, no CSRCs.
///
/// ```
///  0                   1                   2                   3
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// |                           timestamp                           |
/// |           synchronization source (SSRC) identifier            |
/// ```
public struct RTPHeader: Hashable, Sendable {
    /// Length of the fixed header in bytes.
    public static let fixedLength = 12

    /// The marker bit: for H.264 (RFC 6184 5.1), set on the last packet of an access unit.
    public var marker: Bool
    /// The payload type (0...127); dynamic types 96...127 are used for H.264.
    public var payloadType: UInt8
    /// The sequence number, incremented by one per packet and wrapping at 2^16.
    public var sequenceNumber: UInt16
    /// The media timestamp: a 90 kHz clock for H.264.
    public var timestamp: UInt32
    /// The synchronization source identifier.
    public var ssrc: UInt32

    /// Creates a header.
    @inlinable
    public init(marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32) {
        self.marker = marker
        self.payloadType = payloadType & 0x7F
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
    }

    /// Appends the 12 header bytes to `out`.
    /// - Complexity: O(1).
    @inlinable
    public func write(to out: inout [UInt8]) {
        // Bytes 0-7 as one big-endian word: V=2, P=X=CC=0, M, PT, sequence number, timestamp.
        let first: UInt64 = 0x80 << 56 | UInt64(marker ? 0x80 | payloadType : payloadType) << 48
            | UInt64(sequenceNumber) << 32 | UInt64(timestamp)
        var words = (first.bigEndian, ssrc.bigEndian)
        withUnsafeBytes(of: &words) { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<12])) }
    }
}

/// A received RTP packet: its header and a view of its payload in the caller's bytes.
public struct RTPPacket: Sendable {
    /// The fixed header fields.
    public var header: RTPHeader
    /// The payload, after CSRCs and the header extension and before the padding.
    public var payload: ArraySlice<UInt8>

    /// Parses an RTP packet (RFC 3550 5.1), skipping CSRCs, a header extension and padding.
    ///
    /// - Parameter packet: one whole UDP datagram.
    /// - Throws: ``RTPError/Code/truncated`` for fewer than 12 bytes or CSRCs or an extension
    ///   running past the end; ``RTPError/Code/invalidPacket`` for a version other than 2 or
    ///   a padding count of zero or larger than what follows the header.
    /// - Complexity: O(1).
    @inlinable
    public init(parsing packet: ArraySlice<UInt8>) throws(RTPError) {
        let count = packet.count
        guard count >= RTPHeader.fixedLength else {
            throw .invalid(.truncated, "RTP packet of \(count) bytes is shorter than the 12-byte header")
        }
        let s = packet.startIndex
        let b0 = packet[s]
        guard b0 >> 6 == 2 else { throw RTPError.invalid(.invalidPacket, "RTP version \(b0 >> 6), expected 2") }
        let b1 = packet[s &+ 1]  // s + 11 is inside the packet, so these additions cannot overflow
        @inline(__always) func u16(_ i: Int) -> UInt16 { UInt16(packet[s &+ i]) << 8 | UInt16(packet[s &+ i &+ 1]) }
        @inline(__always) func u32(_ i: Int) -> UInt32 { UInt32(u16(i)) << 16 | UInt32(u16(i &+ 2)) }
        header = RTPHeader(marker: b1 & 0x80 != 0, payloadType: b1 & 0x7F, sequenceNumber: u16(2),
                           timestamp: u32(4), ssrc: u32(8))
        // Every offset below is at most 12 + 15 * 4 + 4 + 65535 * 4, far from overflowing Int.
        var start = RTPHeader.fixedLength + Int(b0 & 0x0F) * 4
        guard start <= count else { throw .invalid(.truncated, "\(b0 & 0x0F) CSRCs run past the end of the RTP packet") }
        if b0 & 0x10 != 0 {
            guard start + 4 <= count else { throw .invalid(.truncated, "RTP header extension runs past the end of the packet") }
            start += 4 + Int(u16(start + 2)) * 4
            guard start <= count else { throw .invalid(.truncated, "RTP header extension runs past the end of the packet") }
        }
        var end = count
        if b0 & 0x20 != 0 {
            let padding = Int(packet[s + count - 1])
            guard padding > 0, padding <= count - start else {
                throw RTPError.invalid(.invalidPacket, "RTP padding count \(padding) is zero or longer than the payload")
            }
            end -= padding
        }
        payload = packet[(s + start)..<(s + end)]
    }
}
