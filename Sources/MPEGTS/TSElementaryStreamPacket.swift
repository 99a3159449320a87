import H264

/// One PES packet of an elementary stream this module does not parse (audio, metadata, another
/// codec): its payload and times, passed through as they are (ISO/IEC 13818-1 2.4.3.6).
///
/// The muxer writes it with ``TSWriter/write(_:)-(TSElementaryStreamPacket)`` on a PID its
/// ``TSWriter/Options/otherStreams`` declare; the demuxer hands one out per PES packet of a
/// stream that is not H.264 (``TSEvent/elementaryStreamPacket(_:)``).
public struct TSElementaryStreamPacket: Sendable, Hashable {
    /// The PID it travels on.
    public var pid: UInt16
    /// The stream's `stream_type` (from the PMT).
    public var streamType: TSStreamType
    /// The PES `stream_id` (0xC0 for the first audio stream, 0xBD for `private_stream_1`...).
    public var streamID: UInt8
    /// The PES packet's payload (`PES_packet_data_byte`s): for ADTS audio, one or more frames.
    public var payload: [UInt8]
    /// Its presentation time (and decoding time, when the PES carries one, else equal) on any
    /// clock: the muxer converts it to 90 kHz; the demuxer gives it on the 90 kHz clock,
    /// unrolled past the 33-bit wrap. Nil for a PES without a PTS.
    public var timestamps: SampleTimestamps?
    /// False when the demuxer ended the PES before its `PES_packet_length` was reached (a lost
    /// packet, a length that lies) or met a continuity gap inside it.
    public var isComplete: Bool

    /// Creates a packet.
    public init(pid: UInt16, streamType: TSStreamType, streamID: UInt8? = nil, payload: [UInt8],
                timestamps: SampleTimestamps?, isComplete: Bool = true) {
        self.pid = pid
        self.streamType = streamType
        self.streamID = streamID ?? streamType.defaultStreamID
        self.payload = payload
        self.timestamps = timestamps
        self.isComplete = isComplete
    }
}
