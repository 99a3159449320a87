extension Orientation {
    /// The display orientation SEI message (payloadType 47, ITU-T H.264 D.1.27) for this
    /// orientation.
    ///
    /// `hor_flip` carries ``mirrored`` (flip first, then rotate), `ver_flip` is 0, and
    /// `display_orientation_repetition_period` is 1: the orientation holds until the next
    /// picture that carries this message or the end of the coded video sequence.
    public var displayOrientation: SEIDisplayOrientation {
        var message = SEIDisplayOrientation()
        message.horizontalFlip = mirrored
        message.anticlockwiseRotation = anticlockwiseRotation
        message.repetitionPeriod = 1
        return message
    }

    /// The payload of ``displayOrientation``, written by its syntax description
    /// (``SEIMessage/payloadBytes()``): the bytes that follow `payloadType` and `payloadSize`,
    /// ending with the payload's byte alignment bits.
    public var displayOrientationPayload: [UInt8] {
        // Every field is in its range (a 16-bit rotation, a period of 1): writing cannot fail.
        (try? SEIMessage(.displayOrientation(displayOrientation)).payloadBytes()) ?? []
    }

    /// The SEI payloadType of the display orientation message.
    public static let displayOrientationPayloadType = SEIPayloadType.displayOrientation.rawValue
}

extension Orientation {
    /// The orientation a display orientation SEI message (D.2.27) asks for: the flips first,
    /// then the anticlockwise rotation, to the nearest quarter turn (a vertical flip is a
    /// horizontal one turned by 180 degrees). A cancelled message gives ``identity``.
    public init(_ message: SEIDisplayOrientation) {
        guard !message.cancel else {
            self = .identity
            return
        }
        // anticlockwise_rotation is in 2^-16 of a turn: the nearest quarter turn anticlockwise.
        let quarters = (Int(message.anticlockwiseRotation) &+ 8192) / 16384 % 4
        var clockwise = (4 &- quarters) % 4
        if message.verticalFlip { clockwise = (clockwise &+ 2) % 4 }
        self.init(rotation: Rotation(rawValue: clockwise &* 90) ?? .none, mirrored: message.horizontalFlip != message.verticalFlip)
    }

    /// Only the display orientation payload is decoded; every other payload stays raw bytes.
    private static let displayOrientationOptions: SEIParseOptions = {
        var o = SEIParseOptions.framingOnly
        o.keepAllPayloadsRaw = false
        o.rawPayloadTypes = Set((0...255).map { SEIPayloadType(rawValue: $0) }).subtracting([.displayOrientation])
        return o
    }()

    /// The orientation of the first display orientation SEI message among `units` (an access
    /// unit's NAL units), nil when there is none (or the SEI does not parse).
    /// - Complexity: O(n) in the SEI NAL units' sizes; other NAL units are only looked at.
    public static func displayOrientation<C: Collection>(in units: C) -> Orientation? where C.Element == NALUnit {
        for unit in units where unit.type == .sei {
            guard let sei = try? SEI.parse(unit, context: ParameterSetStore(), options: displayOrientationOptions) else { continue }
            for message in sei.messages {
                if case .displayOrientation(let payload) = message.payload { return Orientation(payload) }
            }
        }
        return nil
    }
}
