import H264

extension AVCDecoderConfigurationRecord {
    /// Parses the payload of an FLV AVC sequence header (AVCPacketType 0), which must be an
    /// avcC record (ISO/IEC 14496-15 5.3.3.1).
    ///
    /// Every failure is ``FLVError/Code/invalidDecoderConfiguration``, with the core's error in
    /// `underlying`: some tools put Annex-B bytes there (`configurationVersion` then
    /// reads 0), and the message says so.
    static func flvSequenceHeader(_ bytes: ArraySlice<UInt8>) throws(FLVError) -> AVCDecoderConfigurationRecord {
        do throws(H264Error) {
            return try AVCDecoderConfigurationRecord(parsing: bytes)
        } catch {
            let annexB = bytes.starts(with: [0, 0, 1] as [UInt8]) || bytes.starts(with: [0, 0, 0, 1] as [UInt8])
            throw FLVError.wrapping(error, as: .invalidDecoderConfiguration,
                                    "AVC sequence header is not an avcC record" + (annexB ? " (it holds Annex-B bytes)" : ""))
        }
    }
}
