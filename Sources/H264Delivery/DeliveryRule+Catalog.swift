extension DeliveryRule {
    /// Every IDR access unit carries the SPS and PPS its slices use, so a receiver that joins
    /// there (or after loss) can start: late joiners never start on a stream that sends them once.
    public static let parameterSetsBeforeIDR = DeliveryRule(
        id: "parameter-sets.before-idr",
        clause: "RFC 6184 8.4; RFC 8216 3; libwebrtc needs SPS and PPS with every IDR",
        summary: "every IDR access unit carries the SPS and PPS its slices refer to (in band, or in the container's decoder configuration)",
        fix: "insert the SPS and PPS before every IDR (h264 edit --for; x264 --repeat-headers, X264Encoder repeatParameterSets)",
        remedy: .streamFix)

    /// Every slice refers to a PPS, and the PPS to an SPS, that came before it.
    public static let parameterSetsBeforeUse = DeliveryRule(
        id: "parameter-sets.before-use",
        clause: "H.264 7.4.1.2.1",
        summary: "the SPS and PPS a slice refers to precede it",
        fix: "send the stream from its beginning, or its parameter sets out of band (avcC, sprop-parameter-sets)",
        remedy: .sender)

    /// The first access unit with a picture is an IDR access unit.
    public static let firstPictureIDR = DeliveryRule(
        id: "idr.first",
        clause: "H.264 7.4.1.2.2; RFC 8216 3 (a segment initialises the decoder)",
        summary: "the stream begins with an IDR access unit",
        fix: "cut the stream at an IDR access unit",
        remedy: .sender)

    /// IDR access units come often enough for segments to start at one.
    public static let keyframeInterval = DeliveryRule(
        id: "idr.interval",
        clause: "RFC 8216 4.3.3.1 (segments no longer than the target duration, starting at an IDR); Apple HLS authoring specification (an IDR every 2 s)",
        summary: "an IDR access unit at least every maximum keyframe interval",
        fix: "encode with a shorter keyframe interval (x264 --keyint N, X264Encoder maxKeyframeIntervalDuration)",
        remedy: .encoderSetting)

    /// No frame reordering: WebRTC receivers decode in sending order and show each frame at once.
    public static let noFrameReordering = DeliveryRule(
        id: "reordering.none",
        clause: "RFC 7742 6.2 (Constrained Baseline, Constrained High); browser practice (libwebrtc has no reordering buffer)",
        summary: "no B slices and no picture presented after one decoded later",
        fix: "encode without B-frames (x264 --bframes 0, X264Encoder allowFrameReordering = false); cannot be fixed without re-encoding",
        remedy: .encoderSetting)

    /// The declared reorder depth covers the stream's.
    public static let reorderingDeclared = DeliveryRule(
        id: "reordering.declared",
        clause: "H.264 E.2.1 (max_num_reorder_frames)",
        summary: "no picture is preceded in decoding order and followed in output order by more frames than max_num_reorder_frames",
        fix: "write VUI bitstream_restriction with the stream's reorder depth (h264 edit --for)",
        remedy: .streamFix)

    /// A stream without reordering says so, so that decoders output each picture at once.
    public static let reorderingLatency = DeliveryRule(
        id: "reordering.latency",
        clause: "H.264 E.2.1, C.4.5.3 (without bitstream_restriction a decoder may hold MaxDpbFrames pictures before output)",
        summary: "a stream without frame reordering declares max_num_reorder_frames 0 (or uses pic_order_cnt_type 2)",
        fix: "write VUI bitstream_restriction with max_num_reorder_frames 0 and max_dec_frame_buffering max_num_ref_frames (h264 edit --for)",
        remedy: .streamFix)

    /// The profile is one WebRTC endpoints must or should decode.
    public static let constrainedProfile = DeliveryRule(
        id: "profile.constrained",
        clause: "RFC 7742 6.2; RFC 6184 Table 5",
        summary: "Constrained Baseline (42e0xx) or Constrained High (640cxx)",
        fix: "set the constraint flags when the stream keeps the constraints (h264 edit --for); else encode with "
            + "x264 --profile baseline (X264Encoder profile .baseline) or High without B-frames",
        remedy: .streamFix)

    /// The stream's profile and level fit the `profile-level-id` the SDP negotiated.
    public static let negotiatedProfileLevel = DeliveryRule(
        id: "level.negotiated",
        clause: "RFC 6184 8.1, 8.2.2; RFC 7742 6.2",
        summary: "profile and level within the negotiated profile-level-id (level-asymmetry-allowed honoured)",
        fix: "write the negotiated level_idc when the stream fits it (h264 edit --for); else encode at the negotiated level (x264 --level)",
        remedy: .streamFix)

    /// The stream stays within the limits of the level its SPS declares.
    public static let levelLimits = DeliveryRule(
        id: "level.limits",
        clause: "H.264 A.3.1 (Table A-1: MaxFS, MaxMBPS, MaxDpbMbs)",
        summary: "frame size, macroblock rate and reference frames within the declared level",
        fix: "declare the level the stream needs (h264 edit --for, --level)",
        remedy: .streamFix)

    /// SPS and PPS fit one STAP-A packet, or the sender fragments them.
    public static let parameterSetsFitMTU = DeliveryRule(
        id: "parameter-sets.fit-mtu",
        clause: "RFC 6184 5.7.1, 5.8 (STAP-A, FU-A); pion drops an SPS+PPS STAP-A larger than the MTU",
        summary: "the SPS and PPS fit one STAP-A within the MTU",
        fix: "send parameter sets larger than the MTU as FU-A fragments (RTPPacketizer does), never drop them",
        remedy: .sender)

    /// SEI NAL units no larger than the target accepts.
    public static let seiSize = DeliveryRule(
        id: "sei.size",
        clause: "receiver practice (SEI travels in the same packets as the picture; large user data SEI is dropped or breaks depacketisers)",
        summary: "SEI NAL units no larger than the target's limit",
        fix: "drop SEI NAL units over the limit (h264 edit --for); x264 writes its settings in a user data SEI (h264 edit --remove-sei user_data_unregistered)",
        remedy: .streamFix)

    /// An access unit delimiter opens every access unit.
    public static let accessUnitDelimiters = DeliveryRule(
        id: "aud.every-access-unit",
        clause: "ITU-T H.222.0 2.14.1 (AVC in MPEG-2 TS); Apple HLS authoring specification",
        summary: "an access unit delimiter at the start of every access unit",
        fix: "insert access unit delimiters (h264 edit --for, --aud insert; x264 --aud, X264Encoder accessUnitDelimiters)",
        remedy: .streamFix)

    /// The container's keyframe flag is set exactly on random access points.
    public static let keyframeFlag = DeliveryRule(
        id: "flv.keyframe-flag",
        clause: "Adobe FLV specification E.4.3.1 (FrameType 1: keyframe, a seekable frame)",
        summary: "the keyframe flag set on random access points (IDR or recovery point) and on nothing else",
        fix: "flag from the bitstream, as FLVWriter does (AccessUnit isRandomAccessPoint)",
        remedy: .sender)

    /// A new sequence header whenever the parameter sets change.
    public static let sequenceHeaderPerFormatChange = DeliveryRule(
        id: "flv.sequence-header",
        clause: "Adobe FLV specification E.4.3.1 (AVCPacketType 0: AVCDecoderConfigurationRecord); ISO/IEC 14496-15 5.3.3",
        summary: "a sequence header before the first picture and again whenever an SPS or PPS changes (resolution, rotation)",
        fix: "send a new sequence header on every parameter set change, as FLVWriter does (ParameterSetInserter configurationChange)",
        remedy: .sender)

    /// Every rule of the catalog.
    public static let all: [DeliveryRule] = [
        parameterSetsBeforeIDR, parameterSetsBeforeUse, firstPictureIDR, keyframeInterval, noFrameReordering,
        reorderingDeclared, reorderingLatency, constrainedProfile, negotiatedProfileLevel, levelLimits,
        parameterSetsFitMTU, seiSize, accessUnitDelimiters, keyframeFlag, sequenceHeaderPerFormatChange,
    ]
}
