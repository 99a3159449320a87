import MediaSupport

/// RTCP (RFC 3550 section 6): the packets a sender needs, a sender report and, on leaving, BYE;
/// and the reading of compound packets a receiver needs (``packets(in:)``).
///
/// Receivers such as FFmpeg, GStreamer and ``RTPReceiver`` end the stream when they receive a
/// BYE, so a sender that is done sends
/// ``senderReportAndBye(ssrc:ntpTimestamp:rtpTimestamp:packetCount:octetCount:)`` to the RTCP
/// port (the RTP port + 1, or the SDP's `a=rtcp`). A receiver reads sender reports
/// (``RTCPSenderReport``) for the mapping from RTP timestamps to wall-clock time.
public enum RTCP {
    /// RTCP packet type of a sender report.
    public static let senderReportType: UInt8 = 200
    /// RTCP packet type of a BYE.
    public static let byeType: UInt8 = 203

    /// A compound RTCP packet: a sender report with no reception report blocks, then a BYE for
    /// the same SSRC (a compound packet must begin with a report, RFC 3550 6.1).
    ///
    /// - Parameters:
    ///   - ssrc: the sender's SSRC.
    ///   - ntpTimestamp: wall-clock time in NTP format (seconds since 1900 in the high 32 bits,
    ///     the fraction in the low 32).
    ///   - rtpTimestamp: the RTP timestamp that corresponds to `ntpTimestamp`.
    ///   - packetCount: RTP packets sent (modulo 2^32).
    ///   - octetCount: RTP payload bytes sent, headers excluded (modulo 2^32).
    /// - Returns: 36 bytes.
    public static func senderReportAndBye(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32,
                                          packetCount: UInt32, octetCount: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(36)
        // Sender report: V=2, P=0, RC=0; length 6 (32-bit words after the first, RFC 3550 6.4.1).
        out += [0x80, senderReportType, 0, 6]
        out.writeUInt32(ssrc)
        out.writeUInt64(ntpTimestamp)
        out.writeUInt32(rtpTimestamp)
        out.writeUInt32(packetCount)
        out.writeUInt32(octetCount)
        // BYE: V=2, P=0, SC=1; length 1 (RFC 3550 6.6).
        out += [0x81, byeType, 0, 1]
        out.writeUInt32(ssrc)
        return out
    }

    /// A wall-clock time in NTP format (RFC 3550 4): seconds since 1 January 1900 in the high 32
    /// bits (wrapping in 2036, as NTP's era does), the fraction of a second in the low 32.
    /// - Parameter unixSeconds: seconds since 1 January 1970 (`Date().timeIntervalSince1970`);
    ///   a time before 1900, or not finite, gives 0.
    public static func ntpTimestamp(unixSeconds: Double) -> UInt64 {
        let seconds = unixSeconds + 2_208_988_800
        guard seconds.isFinite, seconds >= 0, seconds < 0x1p63 else { return 0 }
        let whole = seconds.rounded(.down)
        let fraction = UInt64(((seconds - whole) * 0x1p32).rounded(.down))
        return UInt64(whole) << 32 | min(fraction, 0xFFFF_FFFF)
    }
}
