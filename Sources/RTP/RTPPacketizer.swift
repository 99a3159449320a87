import H264

/// Packs access units into RTP packets, RFC 6184 packetization-mode 1 (non-interleaved) or 0
/// (single NAL unit).
///
/// In packetization-mode 1 each NAL unit that fits the MTU goes into a single NAL unit packet,
/// or, together with the small NAL units next to it (SPS, PPS, SEI, AUD, small slices), into one
/// STAP-A (unless ``Options/aggregates`` is off); a NAL unit larger than the MTU, a
/// parameter set included, is split into FU-A fragments, never dropped. An SPS and the PPS
/// after it that fit one packet together always share one STAP-A, at the access unit's
/// timestamp: the form WebRTC receivers (Chrome) need before an IDR picture.
///
/// In packetization-mode 0 every NAL unit is one packet; a NAL unit larger than the MTU cannot
/// be sent and ``packetize(_:into:)-(RTPAccessUnit,_)`` throws. The encoder must then cut pictures into slices
/// that fit: `X264Encoder.Options.maxSliceSize` (x264's `--slice-max-size`) set to the
/// MTU less the 12-byte RTP header.
///
/// Whatever the mode, the marker bit is set on the last packet of an access unit only, never
/// on the last packet of each NAL unit (RFC 6184 5.1). Packets are appended to an
/// ``RTPPacketBuffer`` that the caller reuses, so the steady state allocates nothing.
///
/// ```swift
/// var packetizer = try RTPPacketizer(.webRTC(ssrc: 0x1234_5678))
/// var packets = RTPPacketBuffer()
/// for au in accessUnits {
///     packets.removeAll()
///     try packetizer.packetize(au, into: &packets)
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
    public struct Options: Sendable {
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
        /// Aggregate consecutive small NAL units into STAP-A packets (packetization-mode 1
        /// only). Off: every NAL unit that fits the MTU is a single NAL unit packet, for
        /// receivers that do not take STAP-A.
        public var aggregates: Bool
        /// SPS/PPS insertion before IDR access units.
        public var parameterSets: ParameterSetInsertion
        /// The SDP `packetization-mode`: 0 (single NAL unit packets only) or 1
        /// (non-interleaved: also STAP-A and FU-A).
        public var packetizationMode: Int

        /// Creates options.
        public init(mtu: Int = 1200, payloadType: UInt8 = 96, ssrc: UInt32, initialSequenceNumber: UInt16 = 0,
                    initialTimestamp: UInt32 = 0, aggregates: Bool = true, parameterSets: ParameterSetInsertion = .off,
                    packetizationMode: Int = 1) {
            self.mtu = mtu
            self.payloadType = payloadType
            self.ssrc = ssrc
            self.initialSequenceNumber = initialSequenceNumber
            self.initialTimestamp = initialTimestamp
            self.aggregates = aggregates
            self.parameterSets = parameterSets
            self.packetizationMode = packetizationMode
        }

        /// The settings WebRTC receivers expect: packetization-mode 1, MTU 1200 (room for the
        /// SRTP, UDP, IP and TURN overheads within 1,280 bytes), STAP-A on, and the SPS and PPS
        /// an IDR access unit uses put in front of it from the stream when it lacks them, so
        /// that they travel in one STAP-A with the IDR's timestamp. The SDP says
        /// `packetization-mode=1`.
        public static func webRTC(payloadType: UInt8 = 96, ssrc: UInt32, initialSequenceNumber: UInt16 = 0,
                                  initialTimestamp: UInt32 = 0) -> Options {
            Options(mtu: 1200, payloadType: payloadType, ssrc: ssrc, initialSequenceNumber: initialSequenceNumber,
                          initialTimestamp: initialTimestamp, aggregates: true, parameterSets: .fromStream, packetizationMode: 1)
        }
    }

    /// Smallest MTU accepted: the header and an FU-A with one byte of fragment.
    public static let minimumMTU = RTPHeader.fixedLength + 3
    /// Largest MTU accepted (the largest UDP payload).
    public static let maximumMTU = 65_507

    /// The settings.
    public let options: Options
    /// The former name of ``options``.
    @available(*, deprecated, renamed: "options")
    public var configuration: Options { options }
    /// The former name of ``Options``.
    @available(*, deprecated, renamed: "Options")
    public typealias Configuration = Options
    /// Sequence number of the next packet.
    public private(set) var nextSequenceNumber: UInt16
    /// Bytes of RTP payload a packet can hold.
    @usableFromInline let maxPayload: Int
    /// The parameter sets known (given, or seen in the stream) and which to insert.
    var inserter: ParameterSetInserter

    /// Creates a packetiser.
    /// - Throws: ``RTPError/Code/invalidArgument`` for an MTU outside
    ///   ``minimumMTU``...``maximumMTU``, a payload type above 127 or a packetization-mode
    ///   other than 0 or 1 (mode 2, interleaved, is not sent).
    public init(_ options: Options) throws(RTPError) {
        guard (Self.minimumMTU...Self.maximumMTU).contains(options.mtu) else {
            throw RTPError.invalid(.invalidArgument, "MTU \(options.mtu) is outside \(Self.minimumMTU)...\(Self.maximumMTU)")
        }
        guard options.payloadType < 128 else {
            throw RTPError.invalid(.invalidArgument, "payload type \(options.payloadType) is above 127")
        }
        guard options.packetizationMode == 0 || options.packetizationMode == 1 else {
            throw RTPError.invalid(.invalidArgument, "packetization-mode \(options.packetizationMode) is not 0 or 1")
        }
        self.options = options
        if case .given(let sets) = options.parameterSets {
            inserter = ParameterSetInserter(parameterSets: sets)
        } else {
            inserter = ParameterSetInserter()
        }
        self.nextSequenceNumber = options.initialSequenceNumber
        self.maxPayload = options.mtu - RTPHeader.fixedLength
    }

    /// Appends the RTP packets of one access unit to `packets` (which is not cleared first).
    ///
    /// The marker bit is set on the access unit's last packet, and on no other.
    ///
    /// - Parameters:
    ///   - accessUnit: the NAL units and timestamp; an access unit with no NAL units yields no packet.
    ///   - packets: the output buffer.
    /// - Throws: in packetization-mode 0 only, ``RTPError/Code/nalUnitTooLarge`` when a NAL unit
    ///   (an inserted parameter set included) is larger than the MTU less the RTP header;
    ///   nothing is appended and no sequence number is used. Have the encoder cut slices to fit
    ///   (`X264Encoder.Options.maxSliceSize`, x264 `--slice-max-size`), or use mode 1.
    /// - Complexity: O(n) in the access unit's bytes; no allocation once `packets` has grown to
    ///   the largest access unit (parameter-set insertion builds one small array per IDR).
    public mutating func packetize(_ accessUnit: RTPAccessUnit, into packets: inout RTPPacketBuffer) throws(RTPError) {
        let timestamp = options.initialTimestamp &+ UInt32(truncatingIfNeeded: accessUnit.timestamp90kHz)
        let firstPacket = packets.count
        switch options.parameterSets {
        case .off:
            try packetize(accessUnit.nalUnits, timestamp: timestamp, into: &packets)
        case .fromStream, .given:
            if let withSets = withParameterSets(accessUnit.nalUnits) {
                try packetize(withSets, timestamp: timestamp, into: &packets)
            } else {
                try packetize(accessUnit.nalUnits, timestamp: timestamp, into: &packets)
            }
        }
        if packets.count > firstPacket { packets.setMarker(packet: packets.count &- 1) }
    }

    @inline(__always)
    private mutating func header(_ timestamp: UInt32) -> RTPHeader {
        let h = RTPHeader(marker: false, payloadType: options.payloadType, sequenceNumber: nextSequenceNumber,
                          timestamp: timestamp, ssrc: options.ssrc)
        nextSequenceNumber &+= 1  // wraps at 2^16 by design
        return h
    }

    private mutating func packetize(_ units: [NALUnit], timestamp: UInt32, into packets: inout RTPPacketBuffer) throws(RTPError) {
        let maxPayload = self.maxPayload
        if options.packetizationMode == 0 {
            // Checked before anything is written, so that a refusal leaves no partial access unit.
            for unit in units where unit.count > maxPayload { throw Self.tooLargeForMode0(unit, maxPayload) }
            for unit in units {
                packets.beginPacket(header(timestamp))
                packets.appendPayload(unit.bytes)
                packets.endPacket()
            }
            return
        }
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
            if options.aggregates {
                var total = 1 &+ 2 &+ size
                while end < n {
                    let next = total &+ 2 &+ units[end].count
                    guard next <= maxPayload else { break }
                    // An SPS that would leave its PPS behind starts the next STAP-A instead, when
                    // the two fit one packet together.
                    if units[end].type == .sps && end &+ 1 < n && units[end &+ 1].type == .pps && end > i {
                        let pair = 1 &+ 2 &+ units[end].count &+ 2 &+ units[end &+ 1].count
                        if next &+ 2 &+ units[end &+ 1].count > maxPayload && pair <= maxPayload { break }
                    }
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
                    packets.appendPayload(UInt16(truncatingIfNeeded: c))
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

    @inline(never)
    private static func tooLargeForMode0(_ unit: NALUnit, _ maxPayload: Int) -> RTPError {
        RTPError.invalid(.nalUnitTooLarge, "\(unit.type) NAL unit of \(unit.count) bytes exceeds the \(maxPayload) bytes of payload "
            + "a packet holds in packetization-mode 0 (no FU-A): cut slices to fit (x264 slice-max-size) or use mode 1")
    }

    /// The access unit with SPS/PPS inserted, or nil when nothing is needed.
    private mutating func withParameterSets(_ units: [NALUnit]) -> [NALUnit]? {
        let idr = units.contains { $0.type == .idrSlice }
        let out = inserter.inserting(into: units, isRandomAccess: idr)
        return out.count == units.count ? nil : out
    }
}
