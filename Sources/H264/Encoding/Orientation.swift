/// How a picture must be turned to be displayed upright, as capturers report it.
///
/// The encoder writes it into the stream as a display orientation SEI message (payloadType 47,
/// ITU-T H.264 D.1.27), which players apply when they present the picture.
public struct Orientation: Hashable, Sendable, CustomStringConvertible {
    /// A rotation by a multiple of 90 degrees.
    public enum Rotation: Int, Hashable, Sendable, CaseIterable {
        /// Upright as coded.
        case none = 0
        /// Turn the picture 90 degrees clockwise to display it.
        case clockwise90 = 90
        /// Turn the picture upside down to display it.
        case rotate180 = 180
        /// Turn the picture 270 degrees clockwise (90 anticlockwise) to display it.
        case clockwise270 = 270
    }

    /// The clockwise rotation to apply for display.
    public var rotation: Rotation
    /// True when the picture must be flipped left to right (before rotating) for display, as a
    /// front camera's preview is.
    public var mirrored: Bool

    /// Creates an orientation.
    public init(rotation: Rotation = .none, mirrored: Bool = false) {
        self.rotation = rotation
        self.mirrored = mirrored
    }

    /// No rotation, no mirroring.
    public static let identity = Orientation()

    /// `anticlockwise_rotation` of the SEI message: the anticlockwise angle in units of
    /// 2^-16 of a full turn (D.2.27).
    public var anticlockwiseRotation: UInt16 {
        // (360 - r) mod 360 degrees anticlockwise equals r clockwise; 2^16 / 360 units per degree.
        let degrees = (360 &- rotation.rawValue) % 360
        return UInt16(degrees * 65536 / 360)
    }

    public var description: String { "\(rotation.rawValue)°\(mirrored ? " mirrored" : "")" }
}
