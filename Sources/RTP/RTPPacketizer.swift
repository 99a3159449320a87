import H264

/// Packs access units into RTP packets, RFC 6184 packetization-mode 1 (non-interleaved).
///
/// Each NAL unit that fits the MTU goes into a single NAL unit packet, or, together with the
/// small NAL units next to it (SPS, PPS, SEI, AUD, small slices), into one STAP-A; a NAL unit
/// larger than the MTU is split into FU-A fragments. The last packet of an access unit carries
/// the marker bit. Packets are appended to an ``RTPPacketBuffer`` that the caller reuses, so
/// the steady state allocates nothing.
///
/// ```swift
/// var packetizer = try RTPPacketizer(.init(mtu: 1200, ssrc: 0x1234_5678))
/// var packets = RTPPacketBuffer()
/// for au in accessUnits {
///     packets.removeAll()
///     packetizer.packetize(au, into: &packets)
///     packets.forEachPacket { send($0) }
/// }
/// ```
public struct RTPPacketizer: Sendable {
    /// Where the SPS and PPS put in front of an IDR access unit come from. Either way a
    /// `ParameterSetInserter` chooses them: the SPS and PPS the access unit's slices refer to,
    /// at most 256 KiB per access unit and in all at most the bytes packetised plus 256 KiB,
    /// whatever the stream defines.
    public enum ParameterSetInsertion: Sendable {
        /// Send access units as they are.
        case off
        /// Remember the last SPS and PPS of each id seen in the stream and put the ones an IDR
        /// access unit uses in front of it when it lacks them. The packetiser keeps a copy of
        /// each until it is replaced.
        case fromStream
        /// Put these SPS and PPS NAL units (the ones it uses) in front of every IDR access unit
        /// that lacks them.
        case given([NALUnit])
    }

    /// Packetiser settings.
    public struct Configuration: Sendable {
        /// Largest RTP packet in bytes, 12-byte header included (not the IP and UDP headers).
        public var mtu: Int
        /// The RTP payload type (96...127 for a dynamic mapping; the SDP must agree).
        public var payloadType: UInt8
        /// The synchronization source identifier.
        public var ssrc: UInt32
        /// Sequence number of the first packet.
        public var initialSequenceNumber: UInt16
        /// Added to every access unit's ``RTPAccessUnit/timestamp90kHz``.
        public var initialTimestamp: UInt32
        /// Aggregate consecutive small NAL units into STAP-A packets.
        public var aggregates: Bool
        /// SPS/PPS insertion before IDR access units.
        public var parameterSets: ParameterSetInsertion

        /// Creates a configuration.
        public init(mtu: Int = 1200, payloadType: UInt8 = 96, ssrc: UInt32, initialSequenceNumber: UInt16 = 0,
                    initialTimestamp: UInt32 = 0, aggregates: Bool = true, parameterSets: ParameterSetInsertion = .off) {
            self.mtu = mtu
            self.payloadType = payloadType
            self.ssrc = ssrc
            self.initialSequenceNumber = initialSequenceNumber
            self.initialTimestamp = initialTimestamp
            self.aggregates = aggregates
            self.parameterSets = parameterSets
        }
    }

    /// Smallest MTU accepted: the header and an FU-A with one byte of fragment.
    public static let minimumMTU = RTPHeader.fixedLength + 3
    /// Largest MTU accepted (the largest UDP payload).
    public static let maximumMTU = 65_507

    /// The settings.
    public let configuration: Configuration
    /// Sequence number of the next packet.
    public private(set) var nextSequenceNumber: UInt16
    /// Bytes of RTP payload a packet can hold.
    @usableFromInline let maxPayload: Int
    /// The parameter sets known (given, or seen in the stream) and which to insert.
    var inserter: ParameterSetInserter

    /// Creates a packetiser.
    /// - Throws: `H264Error.Code.invalidArgument` for an MTU outside
    ///   ``minimumMTU``...``maximumMTU`` or a payload type above 127.
    public init(_ configuration: Configuration) throws(H264Error) {
        guard (Self.minimumMTU...Self.maximumMTU).contains(configuration.mtu) else {
            throw H264Error.invalid(.invalidArgument, "MTU \(configuration.mtu) is outside \(Self.minimumMTU)...\(Self.maximumMTU)")
        }
        guard configuration.payloadType < 128 else {
            throw H264Error.invalid(.invalidArgument, "payload type \(configuration.payloadType) is above 127")
        }
        self.configuration = configuration
        if case .given(let sets) = configuration.parameterSets {
            inserter = ParameterSetInserter(parameterSets: sets)
        } else {
            inserter = ParameterSetInserter()
        }
        self.nextSequenceNumber = configuration.initialSequenceNumber
        self.maxPayload = configuration.mtu - RTPHeader.fixedLength
    }

    /// Appends the RTP packets of one access unit to `packets` (which is not cleared first).
    ///
    /// - Parameters:
    ///   - accessUnit: the NAL units and timestamp; an access unit with no NAL units yields no packet.
    ///   - packets: the output buffer.
    /// - Complexity: O(n) in the access unit's bytes; no allocation once `packets` has grown to
    ///   the largest access unit (parameter-set insertion builds one small array per IDR).
    public mutating func packetize(_ accessUnit: RTPAccessUnit, into packets: inout RTPPacketBuffer) {
        let timestamp = configuration.initialTimestamp &+ UInt32(truncatingIfNeeded: accessUnit.timestamp90kHz)
        let firstPacket = packets.count
        switch configuration.parameterSets {
        case .off:
            packetize(accessUnit.nalUnits, timestamp: timestamp, into: &packets)
        case .fromStream, .given:
            if let withSets = withParameterSets(accessUnit.nalUnits) {
                packetize(withSets, timestamp: timestamp, into: &packets)
            } else {
                packetize(accessUnit.nalUnits, timestamp: timestamp, into: &packets)
            }
        }
        if packets.count > firstPacket { packets.setMarker(packet: packets.count &- 1) }
    }

    @inline(__always)
    private mutating func header(_ timestamp: UInt32) -> RTPHeader {
        let h = RTPHeader(marker: false, payloadType: configuration.payloadType, sequenceNumber: nextSequenceNumber,
                          timestamp: timestamp, ssrc: configuration.ssrc)
        nextSequenceNumber &+= 1  // wraps at 2^16 by design
        return h
    }

    private mutating func packetize(_ units: [NALUnit], timestamp: UInt32, into packets: inout RTPPacketBuffer) {
        let maxPayload = self.maxPayload
        var i = 0
        let n = units.count
        while i < n {
            let unit = units[i]
            let size = unit.count
            if size > maxPayload {
                fragment(unit, timestamp: timestamp, into: &packets)
                i &+= 1
                continue
            }
            // How many of the following NAL units fit one STAP-A with this one?
            // The sums stay below maxPayload + 65_507, no overflow.
            var end = i &+ 1
            if configuration.aggregates {
                var total = 1 &+ 2 &+ size
                while end < n {
                    let next = total &+ 2 &+ units[end].count
                    guard next <= maxPayload else { break }
                    total = next
                    end &+= 1
                }
            }
            packets.beginPacket(header(timestamp))
            if end &- i == 1 {
                packets.appendPayload(unit.bytes)
            } else {
                var f: UInt8 = 0, nri: UInt8 = 0
                for k in i..<end {
                    f |= units[k].headerByte & 0x80
                    nri = max(nri, units[k].headerByte & 0x60)
                }
                packets.appendPayload(f | nri | RTPPayloadStructure.stapA)
                for k in i..<end {
                    let c = units[k].count  // <= maxPayload <= 65_507, fits 16 bits
                    packets.appendPayload(UInt8(truncatingIfNeeded: c >> 8))
                    packets.appendPayload(UInt8(truncatingIfNeeded: c))
                    packets.appendPayload(units[k].bytes)
                }
            }
            packets.endPacket()
            i = end
        }
    }

    /// FU-A fragments (RFC 6184 5.8) of a NAL unit larger than the payload.
    private mutating func fragment(_ unit: NALUnit, timestamp: UInt32, into packets: inout RTPPacketBuffer) {
        let h = unit.headerByte
        let indicator = h & 0xE0 | RTPPayloadStructure.fuA
        let type = h & 0x1F
        let chunk = maxPayload &- 2  // >= 1 by the MTU check
        var pos = unit.bytes.startIndex &+ 1
        let end = unit.bytes.endIndex
        var first = true
        while pos < end {
            let stop = end &- pos > chunk ? pos &+ chunk : end  // pos < end, so no overflow
            packets.beginPacket(header(timestamp))
            packets.appendPayload(indicator)
            packets.appendPayload((first ? 0x80 : 0) | (stop == end ? 0x40 : 0) | type)
            packets.appendPayload(unit.bytes[pos..<stop])
            packets.endPacket()
            first = false
            pos = stop
        }
    }

    /// The access unit with SPS/PPS inserted, or nil when nothing is needed.
    private mutating func withParameterSets(_ units: [NALUnit]) -> [NALUnit]? {
        let idr = units.contains { $0.type == .idrSlice }
        let out = inserter.inserting(into: units, isRandomAccess: idr)
        return out.count == units.count ? nil : out
    }
}
