/// `display_orientation( payloadSize )`, ITU-T H.264 D.1.27 (payload type 47).
public struct SEIDisplayOrientation: Sendable, Hashable {
    /// `display_orientation_cancel_flag`.
    public var cancel = false
    /// `hor_flip`.
    public var horizontalFlip = false
    /// `ver_flip`.
    public var verticalFlip = false
    /// `anticlockwise_rotation`, in units of 2^-16 of a full turn.
    public var anticlockwiseRotation: UInt16 = 0
    /// `display_orientation_repetition_period` (0...16384).
    public var repetitionPeriod: UInt16 = 0
    /// `display_orientation_extension_flag`.
    public var extensionFlag = false

    /// Creates a display orientation.
    public init() {}

    /// The rotation in degrees, anticlockwise.
    public var rotationDegrees: Double { Double(anticlockwiseRotation) * 360 / 65536 }

    /// Reads, writes or traces the payload (D.1.27).
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.flag(&cancel, "display_orientation_cancel_flag")
        guard !cancel else { return }
        try c.flag(&horizontalFlip, "hor_flip")
        try c.flag(&verticalFlip, "ver_flip")
        try c.u(16, &anticlockwiseRotation, "anticlockwise_rotation")
        try c.ue(&repetitionPeriod, "display_orientation_repetition_period", 0...16384)
        try c.flag(&extensionFlag, "display_orientation_extension_flag")
    }
}
