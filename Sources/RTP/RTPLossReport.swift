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
    /// Packets ignored because their sequence number was far from the expected one (more than
    /// ``RTPDepacketizer/maximumMisorder`` behind or ``RTPDepacketizer/maximumDropout`` ahead).
    public var outOfRange = 0
    /// Times the depacketiser started over at a new sequence number: two consecutive packets
    /// far from the expected sequence (a sender that restarted).
    public var resynchronizations = 0
    /// NAL units of which some FU-A fragments arrived and which were dropped because others did not.
    public var nalUnitsDropped = 0
    /// Access units delivered.
    public var accessUnitsDelivered = 0
    /// Access units delivered with ``RTPReceivedAccessUnit/mayBeIncomplete`` set.
    public var incompleteAccessUnits = 0
    /// Packets rejected with an error: malformed, of another SSRC or payload type, or breaking
    /// RFC 6184 in a way not tolerated.
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

    /// Creates an empty report.
    public init() {}
}

/// One thing an ``RTPDepacketizer`` lost or dropped, in the order it happened.
public enum RTPDepacketizerEvent: Hashable, Sendable {
    /// `count` consecutive sequence numbers starting at `firstSequenceNumber` never arrived.
    case packetsLost(firstSequenceNumber: UInt16, count: Int)
    /// A NAL unit sent as FU-A fragments was dropped: `reason` says why (a lost fragment, a
    /// fragment without a start, joining the stream inside the NAL unit (`truncated`), an
    /// interrupted or oversized NAL unit).
    case nalUnitDropped(timestamp: UInt32, nalUnitType: NALUnitType, fragmentsReceived: Int, reason: H264Error)
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
}
