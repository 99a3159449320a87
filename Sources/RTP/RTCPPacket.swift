import H264
import MediaSupport

/// The sender information of an RTCP sender report (RFC 3550 6.4.1): the sender's wall clock
/// and its RTP clock read at the same instant, and what it had sent by then.
///
/// It maps RTP timestamps of the sender's stream to wall-clock time
/// (``ntpTimestamp(at:clockRate:)``): what a receiver needs to put a received picture on a wall
/// clock, or to align several senders.
public struct RTCPSenderReport: Hashable, Sendable {
    /// The sender's SSRC.
    public var ssrc: UInt32
    /// The wall-clock time in NTP format: seconds since 1 January 1900 in the high 32 bits,
    /// the fraction of a second in the low 32 (``RTCP/unixSeconds(ntpTimestamp:)`` converts it).
    public var ntpTimestamp: UInt64
    /// The RTP timestamp that corresponds to ``ntpTimestamp`` (on the 90 kHz clock for H.264).
    public var rtpTimestamp: UInt32
    /// RTP packets the sender had sent (modulo 2^32).
    public var packetCount: UInt32
    /// RTP payload bytes the sender had sent (modulo 2^32).
    public var octetCount: UInt32

    /// Creates sender information.
    public init(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
    }

    /// The wall-clock time (NTP format) of `timestamp` on this sender's RTP clock: the report's
    /// NTP time plus the distance from ``rtpTimestamp`` to `timestamp`, taken as the shorter way
    /// round the 32-bit timestamp circle (within 2^31 ticks, 6.6 hours at 90 kHz, before or
    /// after the report). Wraps as NTP time does.
    /// - Parameters:
    ///   - timestamp: an RTP timestamp of the same SSRC.
    ///   - clockRate: the RTP clock in Hz (90,000 for H.264, RFC 6184); a rate below 1 gives
    ///     the report's own time.
    /// - Complexity: O(1).
    public func ntpTimestamp(at timestamp: UInt32, clockRate: Int = 90_000) -> UInt64 {
        guard clockRate > 0 else { return ntpTimestamp }
        let ticks = Int64(Int32(bitPattern: timestamp &- rtpTimestamp))
        // |ticks| <= 2^31, so ticks * 2^32 lies in -2^63 ... (2^31 - 1) * 2^32: no overflow.
        let offset = (ticks << 32) / Int64(clockRate)
        return ntpTimestamp &+ UInt64(bitPattern: offset)
    }
}

/// One packet of a compound RTCP packet (RFC 3550 6), as a receiver uses it.
public enum RTCPPacket: Hashable, Sendable {
    /// A sender report (packet type 200): its sender information; reception report blocks and
    /// profile extensions are checked for length and skipped.
    case senderReport(RTCPSenderReport)
    /// A receiver report (packet type 201) from `ssrc`; its report blocks are skipped.
    case receiverReport(ssrc: UInt32)
    /// A BYE (packet type 203): the sources leaving (at most 31, RFC 3550 6.6); the optional
    /// reason is skipped.
    case bye(ssrcs: [UInt32])
    /// Any other packet type (SDES 202, APP 204, feedback 205 and 206, XR 207, ...), skipped.
    case other(packetType: UInt8)
}

extension RTCP {
    /// RTCP packet type of a receiver report.
    public static let receiverReportType: UInt8 = 201
    /// RTCP packet type of a source description (SDES).
    public static let sourceDescriptionType: UInt8 = 202
    /// Packets read from one compound RTCP packet at most; a datagram with more is rejected
    /// (`limitExceeded`). Senders put 2 to 4 in one (a report, SDES, BYE).
    public static let maximumPacketsPerCompound = 64
    /// Largest compound packet read (the largest UDP payload); a larger one is rejected.
    public static let maximumCompoundSize = 65_535

    /// True when `datagram`, received on the RTP port, is RTCP multiplexed with RTP (RFC 5761 4):
    /// version 2 and a second octet (the RTCP packet type, where RTP has its marker bit and
    /// payload type) in 192...223, the range RFC 5761 keeps free of RTP payload types (with or
    /// without the marker bit) so that the two can share a port. The RTCP packet types in use
    /// (SR 200, RR 201, SDES 202, BYE 203, APP 204, feedback 205 and 206, XR 207) are in it.
    /// - Complexity: O(1).
    public static func isMultiplexedRTCP(_ datagram: ArraySlice<UInt8>) -> Bool {
        guard datagram.count >= 2 else { return false }
        let s = datagram.startIndex
        return datagram[s] >> 6 == 2 && (192...223).contains(datagram[s &+ 1])
    }

    /// Reads a compound RTCP packet (RFC 3550 6.1), with the validity checks of RFC 3550 A.2:
    /// version 2 in every packet, padding only in the last, and lengths that add up to the
    /// datagram's. A compound packet that does not start with a report (a lone BYE, which some
    /// senders send) is accepted. Nothing is kept from a datagram that fails a check.
    ///
    /// - Parameter datagram: one UDP datagram from the RTCP port (or a multiplexed one from the
    ///   RTP port, see ``isMultiplexedRTCP(_:)``).
    /// - Returns: the packets, in order (at most ``maximumPacketsPerCompound``).
    /// - Throws: ``RTPError/Code/truncated`` for an empty datagram, fewer than 4 bytes left for a
    ///   header, a length field past the end of the datagram, or a report or BYE too short for
    ///   the fields its count announces; ``RTPError/Code/invalidPacket`` for a version other
    ///   than 2, padding in a packet that
    ///   is not the last, or a padding count of 0 or past the packet's start;
    ///   ``RTPError/Code/limitExceeded`` for more than ``maximumPacketsPerCompound`` packets or
    ///   more than ``maximumCompoundSize`` bytes.
    /// - Complexity: O(n) in the datagram's bytes.
    public static func packets(in datagram: ArraySlice<UInt8>) throws(RTPError) -> [RTCPPacket] {
        guard !datagram.isEmpty else { throw .invalid(.truncated, "empty RTCP datagram") }
        guard datagram.count <= maximumCompoundSize else {
            throw RTPError.invalid(.limitExceeded, "RTCP datagram of \(datagram.count) bytes, more than \(maximumCompoundSize)")
        }
        var r = ByteReader<RTPByteReads>(datagram)
        var out: [RTCPPacket] = []
        while !r.isAtEnd {
            guard out.count < maximumPacketsPerCompound else {
                throw RTPError.invalid(.limitExceeded, "more than \(maximumPacketsPerCompound) packets in a compound RTCP packet")
            }
            guard r.count >= 4 else { throw .invalid(.truncated, "\(r.count) bytes left for a 4-byte RTCP header") }
            let b0 = try r.readUInt8("RTCP header"), type = try r.readUInt8("RTCP header")
            guard b0 >> 6 == 2 else { throw RTPError.invalid(.invalidPacket, "RTCP version \(b0 >> 6), expected 2") }
            let size = Int(try r.readUInt16("RTCP length")) &* 4  // the bytes after the header: < 2^18
            guard size <= r.count else {
                throw RTPError.invalid(.truncated, "RTCP packet of \(size &+ 4) bytes, \(r.count &+ 4) left")
            }
            var body = try r.readBytes(size, "RTCP packet")
            if b0 & 0x20 != 0 {
                guard r.isAtEnd else { throw RTPError.invalid(.invalidPacket, "padding in an RTCP packet that is not the last") }
                let padding = Int(body.last ?? 0)
                guard padding > 0, padding <= size else {
                    throw RTPError.invalid(.invalidPacket, "RTCP padding count \(padding) is zero or longer than the packet")
                }
                body = body.dropLast(padding)
            }
            let count = Int(b0 & 0x1F)
            var p = ByteReader<RTPByteReads>(body)
            switch type {
            case senderReportType:
                guard body.count >= 24 + count * 24 else {
                    throw .invalid(.truncated, "RTCP sender report with \(count) report blocks in \(body.count) bytes")
                }
                out.append(.senderReport(RTCPSenderReport(ssrc: try p.readUInt32("SSRC"), ntpTimestamp: try p.readUInt64("NTP timestamp"),
                                                          rtpTimestamp: try p.readUInt32("RTP timestamp"),
                                                          packetCount: try p.readUInt32("sender's packet count"),
                                                          octetCount: try p.readUInt32("sender's octet count"))))
            case receiverReportType:
                guard body.count >= 4 + count * 24 else {
                    throw .invalid(.truncated, "RTCP receiver report with \(count) report blocks in \(body.count) bytes")
                }
                out.append(.receiverReport(ssrc: try p.readUInt32("SSRC")))
            case byeType:
                guard body.count >= count * 4 else { throw .invalid(.truncated, "RTCP BYE with \(count) sources in \(body.count) bytes") }
                var ssrcs: [UInt32] = []
                ssrcs.reserveCapacity(count)
                for _ in 0..<count { ssrcs.append(try p.readUInt32("SSRC")) }
                out.append(.bye(ssrcs: ssrcs))
            default:
                out.append(.other(packetType: type))
            }
        }
        return out
    }

    /// Seconds since 1 January 1970 of an NTP-format time (RFC 3550 4), taken in NTP era 0
    /// (1900 to 2036), the inverse of ``ntpTimestamp(unixSeconds:)``.
    public static func unixSeconds(ntpTimestamp: UInt64) -> Double {
        Double(ntpTimestamp >> 32) - 2_208_988_800 + Double(ntpTimestamp & 0xFFFF_FFFF) / 0x1p32
    }
}
