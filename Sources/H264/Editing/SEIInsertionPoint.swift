/// A picture ``SEIInserter`` is about to write, and what its messages may depend on.
public struct SEIInsertionPoint: Sendable {
    /// The picture's position among the stream's frames in decoding order, from 0 (a pair of
    /// field pictures is one frame: the point is its first field).
    public var decodeIndex: Int
    /// The picture's position in presentation (output) order, from 0: the frame number
    /// `ffprobe -show_frames` counts. Equal to ``decodeIndex`` without frame reordering.
    public var presentationIndex: Int
    /// The access unit as it came in (its flags say whether it is an IDR picture, a recovery
    /// point, an I picture without IDR; its slice types, its picture structure and POC).
    public var accessUnit: AccessUnit
    /// The pic_timing facts of the picture's SPS as the output carries it (after the
    /// `pic_struct_present_flag` edit, when the inserter makes it); nil when the SPS is unknown.
    public var timing: SEITimingInfo?
    /// The nominal frame rate of the SPS's VUI timing (`time_scale` ÷ (2 ×
    /// `num_units_in_tick`), rounded up: 30 for 29.97), nil without timing info.
    public var framesPerSecond: Int?

    /// Creates a point (for tests of a schedule).
    public init(decodeIndex: Int, presentationIndex: Int, accessUnit: AccessUnit, timing: SEITimingInfo?, framesPerSecond: Int?) {
        self.decodeIndex = decodeIndex
        self.presentationIndex = presentationIndex
        self.accessUnit = accessUnit
        self.timing = timing
        self.framesPerSecond = framesPerSecond
    }
}
