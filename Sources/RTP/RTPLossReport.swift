import H264

/// Running totals of what an ``RTPDepacketizer`` received, lost and threw away.
public struct RTPLossReport: Hashable, Sendable {
    /// Packets accepted (well-formed, in the window, not duplicated).
    public var packetsReceived = 0
    /// Sequence numbers never received: declared lost when the reorder window moved past them.
    public var packetsLost = 0
    /// Packets accepted that arrived after a packet with a higher sequence number (put back in
    /// order by the reorder window).
    public var reorderedPackets = 0
    /// Packets whose sequence number was already held in the reorder window.
    public var duplicatePackets = 0
    /// Packets that arrived after their sequence number had been processed or declared lost
    /// (late arrivals and copies of processed packets).
    public var lateOrDuplicate = 0
    /// Packets that arrived after their sequence number had been declared lost (the reorder
    /// window moved past it, or ``RTPDepacketizer/Options/maximumReorderDelay`` gave up on it),
    /// or that lie before the first packet received: too late to be used, ignored. Also in
    /// ``lateOrDuplicate``; not taken off ``packetsLost`` (what they carried did not reach the
    /// access units).
    public var latePackets = 0
    /// Sequence numbers declared lost because a packet after them had waited
    /// ``RTPDepacketizer/Options/maximumReorderDelay`` (also in ``packetsLost``).
    public var packetsLostToDelay = 0
    /// Packets ignored because they came before the first sequence number announced
    /// (``RTPDepacketizer/expectFirst(sequenceNumber:)``: an RTSP `PLAY` reply's `RTP-Info`).
    public var packetsBeforeStart = 0
    /// Packets ignored because their sequence number was far from the expected one (more than
    /// ``RTPDepacketizer/maximumMisorder`` behind or ``RTPDepacketizer/maximumDropout`` ahead).
    public var outOfRange = 0
    /// Times the depacketiser started over at a new sequence number: two consecutive packets
    /// far from the expected sequence (a sender that restarted).
    public var resynchronizations = 0
    /// NAL units dropped: FU-A NAL units of which some fragments arrived and others did not, and
    /// NAL units past the access unit limits (``RTPDepacketizer/Options/maximumAccessUnitSize``,
    /// ``RTPDepacketizer/Options/maximumNALUnitsPerAccessUnit``).
    public var nalUnitsDropped = 0
    /// Access units delivered (by an ``RTPReceiver``: to its caller, ``accessUnitsSkipped`` not
    /// included).
    public var accessUnitsDelivered = 0
    /// Access units delivered with ``RTPReceivedAccessUnit/mayBeIncomplete`` set.
    public var incompleteAccessUnits = 0
    /// Access units known to be lost whole, a lower bound: each gap in sequence numbers between
    /// an access unit that ended with its marker bit and a packet that begins an access unit
    /// with another timestamp (as ``RTPReceivedAccessUnit/mayBeIncomplete`` tells it) held
    /// whole access units only, and counts one (it may have held
    /// more: the timestamps of lost packets are unknown). Each is also an
    /// ``RTPDepacketizerEvent/accessUnitsLost(afterTimestamp:beforeTimestamp:)`` event. Other
    /// gaps are counted in ``packetsLost`` and flag the access units around them
    /// ``RTPReceivedAccessUnit/mayBeIncomplete``.
    public var accessUnitsLost = 0
    /// Access units delivered with ``RTPReceivedAccessUnit/referenceMayBeLost`` set: times a
    /// loss may have taken a reference picture (see ``RTPDepacketizer/needsKeyframe``).
    public var referenceLosses = 0
    /// Packets rejected with an error: malformed, larger than
    /// ``RTPDepacketizer/maximumPacketSize``, of another SSRC or payload type, or breaking
    /// RFC 6184 in a way not tolerated. (A packet of another SSRC is kept on probation: when the
    /// next packet of that SSRC makes the depacketiser change source, it is processed too and
    /// also counted in ``packetsReceived``.)
    public var packetsRejected = 0
    /// RFC 6184 violations accepted by a lenient depacketiser (one per ``RTPTolerance`` per
    /// packet), each also reported as an ``RTPDepacketizerEvent/tolerated(_:sequenceNumber:)`` event.
    public var toleratedViolations = 0
    /// Times a packet had the timestamp of the access unit a marker bit had just ended: a
    /// sender that sets the marker on every NAL unit instead of on the last packet of the
    /// access unit (WebRTC receivers then drop pictures), so one picture was delivered as
    /// several ``RTPReceivedAccessUnit``s. Reported once as
    /// ``RTPDepacketizerEvent/markerBeforeEndOfAccessUnit(timestamp:)``.
    public var earlyMarkers = 0
    /// Events not kept because the caller did not take them (see ``RTPDepacketizer/maximumPendingEvents``).
    public var eventsDiscarded = 0
    /// Times the depacketiser moved to another SSRC: two packets of it in sequence with none of
    /// the SSRC being received between them (a sender that restarted, or a stray packet that
    /// came first). Each is also an ``RTPDepacketizerEvent/sourceChanged(ssrc:)`` event.
    public var sourceChanges = 0

    // Counted by an RTPReceiver (0 from a depacketiser alone).

    /// Access units an ``RTPReceiver`` did not deliver because nothing decodable had arrived
    /// yet (``RTPReceiver/Options/skipsUntilDecodable``); not in ``accessUnitsDelivered``.
    public var accessUnitsSkipped = 0
    /// RTCP packets read by an ``RTPReceiver`` (each packet of a compound packet), on the RTCP
    /// port or multiplexed on the RTP port.
    public var rtcpPacketsReceived = 0
    /// RTCP datagrams an ``RTPReceiver`` ignored because they failed ``RTCP/packets(in:)``'s
    /// checks (the errors are in ``RTPReceiver/errors``).
    public var rtcpDatagramsRejected = 0
    /// RTCP sender reports read by an ``RTPReceiver``, of any SSRC.
    public var senderReports = 0
    /// RTCP BYE packets an ``RTPReceiver`` ignored: none of their SSRCs was the stream's (or the
    /// stream had not begun).
    public var byesIgnored = 0

    /// Creates an empty report.
    public init() {}
}

extension RTPLossReport: CustomStringConvertible {
    /// One line for a log: packets received and lost, access units delivered (with those that
    /// may be incomplete, those lost whole and those after a reference picture loss, when not
    /// zero), then every other count that is not zero (`1200 packets received, 3 lost; 398
    /// access units delivered, 2 may be incomplete, at least 1 lost, 1 after a reference
    /// picture loss; reordered 5`).
    public var description: String {
        var text = "\(packetsReceived) packets received, \(packetsLost) lost; \(accessUnitsDelivered) access units delivered"
        if incompleteAccessUnits > 0 { text += ", \(incompleteAccessUnits) may be incomplete" }
        if accessUnitsLost > 0 { text += ", at least \(accessUnitsLost) lost" }
        if referenceLosses > 0 { text += ", \(referenceLosses) after a reference picture loss" }
        let others: [(String, Int)] = [
            ("reordered", reorderedPackets), ("duplicate", duplicatePackets), ("late or duplicate", lateOrDuplicate),
            ("late", latePackets), ("lost to the reorder delay", packetsLostToDelay), ("before the start", packetsBeforeStart),
            ("out of range", outOfRange), ("resynchronizations", resynchronizations), ("NAL units dropped", nalUnitsDropped),
            ("packets rejected", packetsRejected), ("tolerated violations", toleratedViolations), ("early markers", earlyMarkers),
            ("events discarded", eventsDiscarded), ("source changes", sourceChanges), ("access units skipped", accessUnitsSkipped),
            ("RTCP packets", rtcpPacketsReceived), ("RTCP datagrams rejected", rtcpDatagramsRejected),
            ("sender reports", senderReports), ("BYEs ignored", byesIgnored),
        ]
        let listed = others.filter { $0.1 != 0 }.map { "\($0.0) \($0.1)" }
        if !listed.isEmpty { text += "; " + listed.joined(separator: ", ") }
        return text
    }
}

/// One thing an ``RTPDepacketizer`` lost or dropped, in the order it happened.
public enum RTPDepacketizerEvent: Hashable, Sendable {
    /// `count` consecutive sequence numbers starting at `firstSequenceNumber` never arrived.
    case packetsLost(firstSequenceNumber: UInt16, count: Int)
    /// A NAL unit sent as FU-A fragments was dropped: `reason` says why (a lost fragment, a
    /// fragment without a start, joining the stream inside the NAL unit (`truncated`), an
    /// interrupted or oversized NAL unit).
    case nalUnitDropped(timestamp: UInt32, nalUnitType: NALUnitType, fragmentsReceived: Int, reason: RTPError)
    /// A packet whose sequence number had already been received or given up on was ignored.
    case packetIgnored(sequenceNumber: UInt16, duplicate: Bool)
    /// The sequence numbering restarted at `sequenceNumber` (see ``RTPLossReport/resynchronizations``);
    /// what was held before was flushed.
    case resynchronized(sequenceNumber: UInt16)
    /// The packet `sequenceNumber` broke RFC 6184 in a way a lenient depacketiser accepts.
    case tolerated(RTPTolerance, sequenceNumber: UInt16)
    /// The first time a marker bit ended an access unit before its last packet (the next one
    /// had the same timestamp); later times are counted in ``RTPLossReport/earlyMarkers``.
    case markerBeforeEndOfAccessUnit(timestamp: UInt32)
    /// The depacketiser moved to the SSRC `ssrc` (see ``RTPLossReport/sourceChanges``); the
    /// access unit in progress and the packets held were delivered first.
    case sourceChanged(ssrc: UInt32)
    /// A gap in sequence numbers between the access unit of `afterTimestamp`, ended by its
    /// marker bit, and a packet that begins the access unit of `beforeTimestamp` held whole
    /// access units only, one or more (see ``RTPLossReport/accessUnitsLost``); the access unit
    /// of `beforeTimestamp` is not flagged ``RTPReceivedAccessUnit/mayBeIncomplete`` for it.
    case accessUnitsLost(afterTimestamp: UInt32, beforeTimestamp: UInt32)
    /// The access unit of `timestamp` is delivered with
    /// ``RTPReceivedAccessUnit/referenceMayBeLost``: a reference picture may have been lost in
    /// it or since the access unit delivered before it (see ``RTPDepacketizer/needsKeyframe``).
    case referencePictureLost(timestamp: UInt32)
}
