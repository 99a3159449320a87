import H264

/// An access unit rebuilt by the ``RTPDepacketizer``: the NAL units that arrived whole, in
/// decoding order, under one RTP timestamp.
///
/// It is an `AccessUnitSample`: what an ``RTPReceiver`` delivers has ``timestamps`` on the
/// 90 kHz RTP clock (``RTPSampleTiming``), so the library's muxers (`MP4Recorder`,
/// `FLVSampleBuilder`, an `RTPPacketizer` that sends it on) write it with the sender's timing.
public struct RTPReceivedAccessUnit: AccessUnitSample {
    /// The RTP timestamp (90 kHz clock) shared by the access unit's packets.
    public var timestamp: UInt32
    /// The NAL units: views into the depacketiser's buffer. Keeping them is safe (the buffer is
    /// copy-on-write) but makes the depacketiser allocate a new one for the next access unit.
    public var nalUnits: [NALUnit]
    /// True when the access unit ended with a packet carrying the marker bit (false when it was
    /// ended by a packet with a new timestamp, or by ``RTPDepacketizer/flush(_:)``).
    public var markerReceived: Bool
    /// True when packets may be missing from this access unit (a gap in sequence numbers was
    /// seen inside it or right before or after it) or a NAL unit of it was dropped. A "may":
    /// a gap right before it does not set it when the packets show the gap held none of it —
    /// the access unit before the gap had another timestamp, and the first NAL unit after the
    /// gap (whole, or the start of an FU-A) begins an access unit: an access unit delimiter,
    /// which nothing precedes (7.4.1.2.3), or a NAL unit of a kind (`nal_unit_type`, for a slice
    /// only with `first_mb_in_slice` 0) that has begun this stream's access units (after a
    /// marker bit, with no gap) and never followed another NAL unit in one. So a sender that
    /// puts an SEI or parameter sets before the first slice of some access units, and not of
    /// others, gets a flag where its slice follows a gap. When the access unit before the gap
    /// ended with its marker bit, the gap also counts in ``RTPLossReport/accessUnitsLost``.
    public var mayBeIncomplete: Bool
    /// True when a reference picture may have been lost in this access unit or since the one
    /// delivered before it: a NAL unit with `nal_ref_idc` other than 0 was dropped (or an FU-A
    /// fragment of one, whose FU indicator carries it, RFC 6184 5.8), or packets were lost
    /// whose content is unknown, unless the gap lay between two slices (or fragments of them)
    /// of one non-reference picture, all of whose slices have `nal_ref_idc` 0 (7.4.1). Pictures
    /// decoded from here may be corrupt until a random access point arrives whole:
    /// ``RTPDepacketizer/needsKeyframe`` tells when.
    public var referenceMayBeLost = false
    /// The SSRC of the packets.
    public var ssrc: UInt32
    /// The sender's wall-clock time of ``timestamp`` in NTP format, set by an ``RTPReceiver``
    /// once an RTCP sender report of ``ssrc`` has arrived (the latest one maps it:
    /// ``RTCPSenderReport/ntpTimestamp(at:clockRate:)``); nil before, and from an
    /// ``RTPDepacketizer`` alone. ``RTCP/unixSeconds(ntpTimestamp:)`` converts it.
    public var ntpTimestamp: UInt64?
    /// Presentation and decoding times on the 90 kHz clock: ``timestamp`` unwrapped, and a
    /// decoding time derived from the stream's reorder depth (``RTPSampleTiming``). Set by an
    /// ``RTPReceiver``; nil from an ``RTPDepacketizer`` alone.
    public var timestamps: SampleTimestamps?

    /// Flags derived from the NAL units (`AccessUnitFlags(accessUnit:)`), computed when asked.
    public var flags: AccessUnitFlags { AccessUnitFlags(accessUnit: nalUnits) }

    /// Creates a received access unit.
    public init(timestamp: UInt32, nalUnits: [NALUnit], markerReceived: Bool, mayBeIncomplete: Bool, ssrc: UInt32 = 0,
                ntpTimestamp: UInt64? = nil, timestamps: SampleTimestamps? = nil) {
        self.timestamp = timestamp
        self.nalUnits = nalUnits
        self.markerReceived = markerReceived
        self.mayBeIncomplete = mayBeIncomplete
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.timestamps = timestamps
    }
}
