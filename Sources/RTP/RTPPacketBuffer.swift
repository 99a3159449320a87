import MediaSupport

/// RTP packets stored back to back in one reusable byte buffer.
///
/// The packetiser appends packets here; after sending them, call ``removeAll()``, which keeps
/// the capacity, so a steady stream of access units causes no allocation.
public struct RTPPacketBuffer: Sendable {
    /// All packets' bytes, back to back.
    public private(set) var bytes: [UInt8] = []
    /// Where each packet lies in ``bytes``.
    public private(set) var packetRanges: [Range<Int>] = []

    /// Creates an empty buffer.
    public init() {}

    /// Number of packets held.
    @inlinable public var count: Int { packetRanges.count }

    /// True when no packet is held.
    @inlinable public var isEmpty: Bool { packetRanges.isEmpty }

    /// The bytes of packet `index` (header and payload).
    @inlinable public subscript(index: Int) -> ArraySlice<UInt8> { bytes[packetRanges[index]] }

    /// Removes every packet, keeping the storage for reuse.
    /// - Complexity: O(1) when the storage is not shared.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        packetRanges.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with each packet's bytes in order, without copying.
    public func forEachPacket(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { all in
            for r in packetRanges { try body(UnsafeRawBufferPointer(rebasing: all[r])) }
        }
    }

    // MARK: Building (used by the packetiser)

    /// Starts a packet with `header`.
    mutating func beginPacket(_ header: RTPHeader) {
        packetRanges.append(bytes.count..<bytes.count)
        header.write(to: &bytes)
    }

    /// Appends payload bytes to the packet begun last.
    mutating func appendPayload(_ payload: ArraySlice<UInt8>) {
        bytes.append(contentsOf: payload)
    }

    /// Appends one payload byte to the packet begun last.
    mutating func appendPayload(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends a big-endian 16-bit payload field (a STAP-A NAL unit size) to the packet begun last.
    mutating func appendPayload(_ value: UInt16) {
        bytes.writeUInt16(value)
    }

    /// Closes the packet begun last at the current end of ``bytes``.
    mutating func endPacket() {
        let last = packetRanges.count &- 1  // a packet was begun, so count >= 1
        packetRanges[last] = packetRanges[last].lowerBound..<bytes.count
    }

    /// Sets the marker bit of packet `index`.
    mutating func setMarker(packet index: Int) {
        bytes[packetRanges[index].lowerBound &+ 1] |= 0x80  // every packet has a 12-byte header
    }
}
