extension Orientation {
    /// The `display_orientation( payloadSize )` SEI payload (payloadType 47, ITU-T H.264
    /// D.1.27) for this orientation, as an RBSP: the bytes that follow `payloadType` and
    /// `payloadSize`, ending with the payload's byte alignment bits.
    ///
    /// `hor_flip` carries ``mirrored`` (flip first, then rotate), `ver_flip` is 0, and
    /// `display_orientation_repetition_period` is 1: the orientation holds until the next
    /// picture that carries this message or the end of the coded video sequence.
    public var displayOrientationPayload: [UInt8] {
        var w = BitWriter()
        w.writeFlag(false)                           // display_orientation_cancel_flag
        w.writeFlag(mirrored)                        // hor_flip
        w.writeFlag(false)                           // ver_flip
        w.writeBits(UInt64(anticlockwiseRotation), 16) // anticlockwise_rotation
        w.writeUE(1)                                 // display_orientation_repetition_period
        w.writeFlag(false)                           // display_orientation_extension_flag
        if !w.byteAligned { w.writeTrailingBits() }  // bit_equal_to_one, bit_equal_to_zero...
        return w.bytes
    }

    /// The SEI payloadType of the display orientation message.
    public static let displayOrientationPayloadType = 47
}
