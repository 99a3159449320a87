import MediaSupport

/// What a receiver tells a sender about one source (RFC 3550 6.4.1, a report block): the
/// figures of RFC 3550 A.3 (loss) and A.8 (interarrival jitter), kept by
/// ``RTPReceptionStatistics``.
public struct RTCPReportBlock: Hashable, Sendable {
    /// The source reported on.
    public var ssrc: UInt32
    /// Packets lost since the previous report, as a fraction of those expected, times 256
    /// (0 when more arrived than were expected: duplicates).
    public var fractionLost: UInt8
    /// Packets lost since the start: expected minus received, clamped to 24 signed bits.
    public var cumulativeLost: Int32
    /// The extended highest sequence number received: cycles of the 16-bit number in the high
    /// 16 bits.
    public var extendedHighestSequenceNumber: UInt32
    /// The interarrival jitter, in RTP timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the NTP time of the last sender report received (LSR; 0 before one).
    public var lastSenderReport: UInt32
    /// The delay since that sender report, in 1/65536 s (DLSR; 0 before one).
    public var delaySinceLastSenderReport: UInt32

    /// Creates a report block.
    public init(ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequenceNumber: UInt32 = 0,
                jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }
}

extension RTCP {
    /// RTCP packet type of transport-layer feedback (RFC 4585 6.1).
    public static let transportFeedbackType: UInt8 = 205
    /// RTCP packet type of payload-specific feedback (RFC 4585 6.1): PLI, FIR.
    public static let payloadFeedbackType: UInt8 = 206

    /// A compound RTCP packet from a receiver (RFC 3550 6.1): a receiver report with the given
    /// blocks (at most 31), then an SDES with the CNAME item that every compound packet must
    /// carry (6.5.1), then `feedback` (PLI, FIR) when given, which RFC 4585 3.1 sends in the
    /// same compound packet.
    /// - Parameters:
    ///   - ssrc: the receiver's own SSRC.
    ///   - blocks: one per source received (more than 31 are cut to 31).
    ///   - cname: the canonical name (cut to 255 bytes).
    ///   - feedback: feedback packets to append (``pictureLossIndication(sender:mediaSource:)``,
    ///     ``fullIntraRequest(sender:mediaSource:sequenceNumber:)``).
    public static func receiverReport(ssrc: UInt32, blocks: [RTCPReportBlock], cname: String,
                                      feedback: [UInt8] = []) -> [UInt8] {
        let blocks = blocks.prefix(31)
        var out: [UInt8] = []
        out.reserveCapacity(8 + blocks.count * 24 + 16 + cname.utf8.count + feedback.count)
        // Receiver report: V=2, P=0, RC; length in 32-bit words minus one (RFC 3550 6.4.2).
        out += [0x80 | UInt8(blocks.count), receiverReportType]
        out.writeUInt16(UInt16(1 + blocks.count * 6))  // at most 187
        out.writeUInt32(ssrc)
        for b in blocks {
            out.writeUInt32(b.ssrc)
            let lost = UInt32(bitPattern: max(-0x80_0000, min(0x7F_FFFF, b.cumulativeLost))) & 0xFF_FFFF
            out.writeUInt32(UInt32(b.fractionLost) << 24 | lost)
            out.writeUInt32(b.extendedHighestSequenceNumber)
            out.writeUInt32(b.jitter)
            out.writeUInt32(b.lastSenderReport)
            out.writeUInt32(b.delaySinceLastSenderReport)
        }
        // SDES with one chunk: the SSRC, CNAME (type 1), the end, padded to 32 bits (6.5).
        let name = Array(cname.utf8.prefix(255))
        let chunk = 4 + 2 + name.count + 1  // SSRC, type and length, text, the null item
        let padded = (chunk + 3) / 4 * 4
        out += [0x81, sourceDescriptionType]
        out.writeUInt16(UInt16(padded / 4))  // (4 + padded) / 4 - 1 words
        out.writeUInt32(ssrc)
        out += [1, UInt8(name.count)]
        out += name
        out += repeatElement(0, count: padded - chunk + 1)
        out += feedback
        return out
    }

    /// A Picture Loss Indication (RFC 4585 6.3.1): payload-specific feedback, FMT 1, no
    /// feedback control information. 12 bytes; sent in a compound packet after a report
    /// (``receiverReport(ssrc:blocks:cname:feedback:)``).
    public static func pictureLossIndication(sender: UInt32, mediaSource: UInt32) -> [UInt8] {
        var out: [UInt8] = [0x81, payloadFeedbackType, 0, 2]
        out.writeUInt32(sender)
        out.writeUInt32(mediaSource)
        return out
    }

    /// A Full Intra Request (RFC 5104 4.3.1): payload-specific feedback, FMT 4, one FCI entry
    /// for `mediaSource` with the request's sequence number (incremented by the sender for
    /// each new request, 8 bits). 20 bytes; the media source field of the header is 0.
    public static func fullIntraRequest(sender: UInt32, mediaSource: UInt32, sequenceNumber: UInt8) -> [UInt8] {
        var out: [UInt8] = [0x84, payloadFeedbackType, 0, 4]
        out.writeUInt32(sender)
        out.writeUInt32(0)
        out.writeUInt32(mediaSource)
        out += [sequenceNumber, 0, 0, 0]
        return out
    }
}

/// The reception figures of one RTP source that a receiver report carries (RFC 3550 A.1, A.3,
/// A.8): the extended highest sequence number, the packets expected and received (in all and
/// since the last report), the interarrival jitter, and the last sender report's time.
///
/// Fed every packet's sequence number and timestamp with its arrival time on the RTP clock;
/// a source change (a new SSRC) starts the figures over. Memory: a few integers.
public struct RTPReceptionStatistics: Sendable {
    /// The source, once a packet arrived.
    public private(set) var ssrc: UInt32?
    /// Packets received (duplicates included, as RFC 3550 A.3 counts them).
    public private(set) var received = 0
    private var baseSequence: UInt32 = 0
    private var maxSequence: UInt16 = 0
    private var cycles: UInt32 = 0
    private var expectedPrior = 0
    private var receivedPrior = 0
    /// The jitter estimate times 16 (RFC 3550 A.8 keeps it scaled).
    private var scaledJitter: Int64 = 0
    private var lastTransit: Int64?
    private var lastSenderReport: (middle: UInt32, arrival: ContinuousClock.Instant)?

    /// Empty figures.
    public init() {}

    /// The extended highest sequence number received (cycles in the high 16 bits).
    public var extendedHighestSequenceNumber: UInt32 { cycles &+ UInt32(maxSequence) }  // cycles is a multiple of 2^16

    /// Packets expected from the first received to the highest (RFC 3550 A.3).
    public var expected: Int { Int(extendedHighestSequenceNumber) &- Int(baseSequence) &+ 1 }

    /// The interarrival jitter in RTP timestamp units.
    public var jitter: UInt32 { UInt32(clamping: scaledJitter >> 4) }

    /// Takes one packet.
    /// - Parameters:
    ///   - ssrc: its SSRC (another than before starts the figures over).
    ///   - sequenceNumber: its sequence number.
    ///   - timestamp: its RTP timestamp.
    ///   - arrival: its arrival time in units of the RTP clock (any origin, the same for every
    ///     packet: a monotonic clock read and scaled by the caller).
    /// - Complexity: O(1).
    public mutating func record(ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, arrival: Int64) {
        if self.ssrc != ssrc {
            self = RTPReceptionStatistics()
            self.ssrc = ssrc
            baseSequence = UInt32(sequenceNumber)
            maxSequence = sequenceNumber
        } else {
            let delta = sequenceNumber &- maxSequence
            if delta < 0x8000 {  // in order, possibly with a gap (RFC 3550 A.1's dropout check is the depacketiser's)
                if sequenceNumber < maxSequence { cycles &+= 1 << 16 }
                maxSequence = sequenceNumber
            }
        }
        received &+= 1
        // Jitter (A.8): D = (arrival - timestamp) difference between consecutive packets.
        let transit = arrival &- Int64(timestamp)
        if let last = lastTransit {
            var d = transit &- last
            // The RTP timestamp wraps: a difference beyond half the circle is the short way round.
            d = Int64(Int32(truncatingIfNeeded: d))
            scaledJitter &+= abs(d) &- ((scaledJitter &+ 8) >> 4)
        }
        lastTransit = transit
    }

    /// Notes a sender report of this source arriving now (its NTP time's middle 32 bits are
    /// the next report's LSR).
    public mutating func recordSenderReport(ntpTimestamp: UInt64, at instant: ContinuousClock.Instant) {
        lastSenderReport = (UInt32(truncatingIfNeeded: ntpTimestamp >> 16), instant)
    }

    /// The report block for now, and the interval's counts reset (RFC 3550 A.3).
    public mutating func makeReportBlock(at now: ContinuousClock.Instant) -> RTCPReportBlock? {
        guard let ssrc else { return nil }
        let expectedNow = expected
        let lost = expectedNow &- received
        let expectedInterval = expectedNow &- expectedPrior
        let receivedInterval = received &- receivedPrior
        expectedPrior = expectedNow
        receivedPrior = received
        let lostInterval = expectedInterval &- receivedInterval
        let fraction = expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(clamping: (lostInterval << 8) / expectedInterval)
        var lsr: UInt32 = 0, dlsr: UInt32 = 0
        if let sr = lastSenderReport {
            lsr = sr.middle
            let (seconds, attoseconds) = sr.arrival.duration(to: now).components
            // seconds clamped to 2^20 (the field holds 2^16 s): no overflow.
            dlsr = UInt32(clamping: min(max(0, seconds), 1 << 20) &* 65_536 &+ attoseconds / 15_258_789_062_500)  // 10^18 / 65536
        }
        return RTCPReportBlock(ssrc: ssrc, fractionLost: fraction, cumulativeLost: Int32(clamping: lost),
                               extendedHighestSequenceNumber: extendedHighestSequenceNumber, jitter: jitter,
                               lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }
}
