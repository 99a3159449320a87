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
