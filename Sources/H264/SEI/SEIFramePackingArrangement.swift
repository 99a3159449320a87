/// `frame_packing_arrangement( payloadSize )`, ITU-T H.264 D.1.26 (payload type 45).
///
/// FFmpeg 5.1 does not parse this payload for H.264 (its trace prints `payload_byte[i]`);
/// ``SEIParseOptions/ffmpegTrace`` keeps it raw for that reason.
public struct SEIFramePackingArrangement: Sendable, Hashable {
    /// `frame_packing_arrangement_id`.
    public var id: UInt32 = 0
    /// `frame_packing_arrangement_cancel_flag`.
    public var cancel = false
    /// `frame_packing_arrangement_type` (7 bits: 0 checkerboard ... 5 temporal, 6 2D).
    public var arrangementType: UInt8 = 0
    /// `quincunx_sampling_flag`.
    public var quincunxSampling = false
    /// `content_interpretation_type` (6 bits).
    public var contentInterpretationType: UInt8 = 0
    /// `spatial_flipping_flag`.
    public var spatialFlipping = false
    /// `frame0_flipped_flag`.
    public var frame0Flipped = false
    /// `field_views_flag`.
    public var fieldViews = false
    /// `current_frame_is_frame0_flag`.
    public var currentFrameIsFrame0 = false
    /// `frame0_self_contained_flag`.
    public var frame0SelfContained = false
    /// `frame1_self_contained_flag`.
    public var frame1SelfContained = false
    /// `frame0_grid_position_x`, `frame0_grid_position_y`, `frame1_grid_position_x`,
    /// `frame1_grid_position_y` (4 bits each; coded unless quincunx sampling or type 5).
    public var gridPositions: [UInt8] = [0, 0, 0, 0]
    /// `frame_packing_arrangement_reserved_byte`.
    public var reservedByte: UInt8 = 0
    /// `frame_packing_arrangement_repetition_period` (0...16384).
    public var repetitionPeriod: UInt16 = 0
    /// `frame_packing_arrangement_extension_flag`.
    public var extensionFlag = false

    /// Creates a frame packing arrangement.
    public init() {}

    /// Reads, writes or traces the payload (D.1.26).
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.ue(&id, "frame_packing_arrangement_id", 0...(UInt32.max - 1))
        try c.flag(&cancel, "frame_packing_arrangement_cancel_flag")
        if !cancel {
            try c.u(7, &arrangementType, "frame_packing_arrangement_type")
            try c.flag(&quincunxSampling, "quincunx_sampling_flag")
            try c.u(6, &contentInterpretationType, "content_interpretation_type")
            try c.flag(&spatialFlipping, "spatial_flipping_flag")
            try c.flag(&frame0Flipped, "frame0_flipped_flag")
            try c.flag(&fieldViews, "field_views_flag")
            try c.flag(&currentFrameIsFrame0, "current_frame_is_frame0_flag")
            try c.flag(&frame0SelfContained, "frame0_self_contained_flag")
            try c.flag(&frame1SelfContained, "frame1_self_contained_flag")
            if !quincunxSampling && arrangementType != 5 {
                if c.isReading { gridPositions = [0, 0, 0, 0] }
                guard gridPositions.count == 4 else { throw .outOfRange("frame packing grid positions", Int64(gridPositions.count)) }
                try c.u(4, &gridPositions[0], "frame0_grid_position_x")
                try c.u(4, &gridPositions[1], "frame0_grid_position_y")
                try c.u(4, &gridPositions[2], "frame1_grid_position_x")
                try c.u(4, &gridPositions[3], "frame1_grid_position_y")
            }
            try c.u(8, &reservedByte, "frame_packing_arrangement_reserved_byte")
            try c.ue(&repetitionPeriod, "frame_packing_arrangement_repetition_period", 0...16384)
        }
        try c.flag(&extensionFlag, "frame_packing_arrangement_extension_flag")
    }
}
