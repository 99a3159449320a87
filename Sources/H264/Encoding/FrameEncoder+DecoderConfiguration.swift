/// The decoder configuration (avcC) of any ``FrameEncoder``, built from its parameter sets.
extension FrameEncoder {
    /// The current decoder configuration as an `AVCDecoderConfigurationRecord` (the avcC box
    /// payload, FLV's AVC sequence header), with 4-byte NAL unit lengths; nil while the encoder
    /// has no SPS yet.
    ///
    /// - Throws: the errors of ``AVCDecoderConfigurationRecord/init(parameterSets:lengthSize:)``
    ///   for parameter sets that do not fit a record.
    public var decoderConfiguration: AVCDecoderConfigurationRecord? {
        get throws(H264Error) { try decoderConfiguration(lengthSize: .four) }
    }

    /// The current decoder configuration with NAL unit lengths of `lengthSize` bytes; nil while
    /// the encoder has no SPS yet.
    ///
    /// - Parameter lengthSize: the length size the samples will use (``EncodedFrame/avcc(lengthSize:)``).
    /// - Throws: the errors of ``AVCDecoderConfigurationRecord/init(parameterSets:lengthSize:)``.
    /// - Complexity: O(size of the parameter sets): the first SPS is parsed.
    public func decoderConfiguration(lengthSize: AVCC.LengthSize) throws(H264Error) -> AVCDecoderConfigurationRecord? {
        let sets = parameterSets.filter { $0.type == .sps || $0.type == .pps || $0.type == .spsExtension }
        guard sets.contains(where: { $0.type == .sps }) else { return nil }
        return try AVCDecoderConfigurationRecord(parameterSets: sets, lengthSize: lengthSize)
    }
}
