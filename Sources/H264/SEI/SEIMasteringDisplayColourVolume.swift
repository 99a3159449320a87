/// `mastering_display_colour_volume( payloadSize )`, ITU-T H.264 D.1.29 (payload type 137).
///
/// Values are kept as coded, without the range checks of D.2.29 (as FFmpeg 5.1 reads them).
public struct SEIMasteringDisplayColourVolume: Sendable, Hashable {
    /// `display_primaries_x[c]`, in 0.00002 units (three entries).
    public var displayPrimariesX: [UInt16] = [0, 0, 0]
    /// `display_primaries_y[c]` (three entries).
    public var displayPrimariesY: [UInt16] = [0, 0, 0]
    /// `white_point_x`.
    public var whitePointX: UInt16 = 0
    /// `white_point_y`.
    public var whitePointY: UInt16 = 0
    /// `max_display_mastering_luminance`, in 0.0001 cd/m².
    public var maxDisplayMasteringLuminance: UInt32 = 0
    /// `min_display_mastering_luminance`, in 0.0001 cd/m².
    public var minDisplayMasteringLuminance: UInt32 = 0

    /// Creates a mastering display colour volume.
    public init() {}

    /// Reads, writes or traces the payload (D.1.29).
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        if c.isReading { displayPrimariesX = [0, 0, 0]; displayPrimariesY = [0, 0, 0] }
        guard displayPrimariesX.count == 3, displayPrimariesY.count == 3 else {
            throw .outOfRange("display primaries count", Int64(displayPrimariesX.count))
        }
        for i in 0..<3 {
            try c.u(16, &displayPrimariesX[i], SyntaxName("display_primaries_x", i))
            try c.u(16, &displayPrimariesY[i], SyntaxName("display_primaries_y", i))
        }
        try c.u(16, &whitePointX, "white_point_x")
        try c.u(16, &whitePointY, "white_point_y")
        try c.u(32, &maxDisplayMasteringLuminance, "max_display_mastering_luminance")
        try c.u(32, &minDisplayMasteringLuminance, "min_display_mastering_luminance")
    }
}
