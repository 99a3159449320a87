import H264

extension MP4Sample {
    /// The sample with the record's parameter sets in front of its NAL units (after an access
    /// unit delimiter), unless it carries an SPS and a PPS of its own.
    ///
    /// The writers use it for the first sample after a format change (`avc1` allows in-band
    /// copies of the sample entry's parameter sets): players that keep the first description's
    /// configuration, or do not switch on a new init segment (FFmpeg 5.1 with several `stsd`
    /// entries or HLS init segments), then decode on; the others ignore the copies.
    /// - Throws: ``MP4Error/Code/h264`` when the sample's NAL unit lengths do not add up.
    public func carryingParameterSets(of record: AVCDecoderConfigurationRecord) throws(MP4Error) -> MP4Sample {
        do {
            let units = try AVCC.split(data, lengthSize: record.nalUnitLengthSize)
            guard !(units.contains { $0.type == .sps } && units.contains { $0.type == .pps }) else { return self }
            var out: [UInt8] = []
            out.reserveCapacity(data.count &+ 256)  // an array count plus a little
            var rest = units[...]
            if let first = rest.first, first.type == .accessUnitDelimiter {
                try AVCC.append(first, lengthSize: record.nalUnitLengthSize, to: &out)
                rest = rest.dropFirst()
            }
            for unit in record.parameterSets { try AVCC.append(unit, lengthSize: record.nalUnitLengthSize, to: &out) }
            for unit in rest { try AVCC.append(unit, lengthSize: record.nalUnitLengthSize, to: &out) }
            var copy = self
            copy.data = out[...]
            return copy
        } catch {
            throw MP4Error.h264(error, "parameter sets for the first sample after a format change")
        }
    }
}
