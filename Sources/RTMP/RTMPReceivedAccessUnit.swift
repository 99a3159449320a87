import FLV
import H264

/// One access unit a publisher sent to an ``RTMPServer``: the payload of a video message
/// (legacy AVC `AVCPacketType` 1, or enhanced RTMP `avc1` `CodedFrames`/`CodedFramesX`), with
/// its times on a 1 kHz clock.
///
/// It is an `AccessUnitSample`, so `MP4Recorder`, `HLSRecorder`, `FLVSampleBuilder` and
/// ``AsyncRTMPPublisher`` (a restream) take it as it is:
/// - ``nalUnits``: on a keyframe, the SPS and PPS of the sequence header in force first (unless
///   the payload carries its own), so that a consumer that starts there, or has missed the
///   sequence header, has them; then the payload's NAL units, views into ``data``.
/// - ``timestamps``: 1 kHz (milliseconds). The decoding time is the message timestamp, the
///   32-bit RTMP time unrolled to 64 bits (each time taken as the nearest one, forwards or
///   backwards, to the message before it, so a stream that runs past 49.7 days keeps counting);
///   the presentation time is the decoding time plus the composition time. A negative
///   composition time (PTS before DTS, which H.264 never needs but some encoders send) is
///   **clamped**: the presentation time is then the decoding time, and
///   ``compositionTime`` keeps the value sent (counted in
///   ``RTMPIngestStream/Statistics/negativeCompositionTimes``).
///
/// ``flvSample`` is the same frame as an `FLVVideoSample`, times as sent, for `FLVWriter`.
public struct RTMPReceivedAccessUnit: AccessUnitSample, Hashable {
    /// The NAL units in decoding order: on a keyframe the sequence header's parameter sets
    /// first (see above), then the payload's.
    public var nalUnits: [NALUnit]
    /// The payload as sent: NAL units each behind a length of ``lengthSize`` bytes (the
    /// sequence header's `lengthSizeMinusOne` + 1; 4 before any sequence header).
    public var data: ArraySlice<UInt8>
    /// The length size of ``data``.
    public var lengthSize: AVCC.LengthSize
    /// `FrameType` 1 (keyframe) as the publisher sent it. The sample's own
    /// `isRandomAccessPoint` comes from its NAL units (an IDR picture, a recovery point).
    public var isKeyframe: Bool
    /// The composition time as sent (PTS - DTS in milliseconds; 0 for `CodedFramesX`).
    public var compositionTime: Int32
    /// Decoding and presentation times in milliseconds (see above).
    public var timestamps: SampleTimestamps?

    /// Flags derived from the NAL units (`AccessUnitFlags(accessUnit:)`), computed when asked.
    public var flags: AccessUnitFlags { AccessUnitFlags(accessUnit: nalUnits) }

    /// Creates a received access unit.
    public init(nalUnits: [NALUnit], data: ArraySlice<UInt8>, lengthSize: AVCC.LengthSize = .four, isKeyframe: Bool,
                compositionTime: Int32, timestamps: SampleTimestamps?) {
        self.nalUnits = nalUnits
        self.data = data
        self.lengthSize = lengthSize
        self.isKeyframe = isKeyframe
        self.compositionTime = compositionTime
        self.timestamps = timestamps
    }

    /// The frame as FLV carries it: the payload as sent, the decoding time, the presentation
    /// time the composition time sent gives (not clamped), the keyframe flag sent.
    public var flvSample: FLVVideoSample {
        let dts = timestamps?.dts ?? 0
        return FLVVideoSample(dts: dts, pts: dts &+ Int64(compositionTime), isKeyframe: isKeyframe, data: data)  // 64 + 24 bits
    }
}
