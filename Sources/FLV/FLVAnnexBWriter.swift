import H264

/// Turns the H.264 video of an FLV file, event by event, into an Annex-B stream: each sample's
/// length-prefixed NAL units behind 4-byte start codes, with the parameter sets of the sequence
/// header in force inserted where a decoder needs them (`ParameterSetInserter`): before each
/// keyframe (or sample with an IDR slice) that does not carry them, the SPS and PPS its slices
/// refer to, after any access unit delimiter and before everything else.
///
/// FFmpeg's `h264_mp4toannexb` puts every SPS and PPS of the sequence header right before the
/// first IDR slice instead (after SEI); for a sequence header with one SPS and one PPS the NAL
/// units are otherwise the same.
///
/// Whatever the sequence headers hold, the parameter sets inserted are at most as many bytes as
/// the input plus `ParameterSetInserter.maximumBytesPerAccessUnit`.
///
/// Memory: the sequence header in force and the parameter sets by id.
public struct FLVAnnexBWriter: Sendable {
    /// The parameter-set insertion, with its counts.
    public private(set) var inserter: ParameterSetInserter
    private var configuration: AVCDecoderConfigurationRecord?
    private var configurationBytes: [UInt8] = []

    /// Creates a writer.
    /// - Parameter maximumInsertedBytesPerAccessUnit: see `ParameterSetInserter`.
    public init(maximumInsertedBytesPerAccessUnit: Int = ParameterSetInserter.defaultMaximumBytesPerAccessUnit) {
        inserter = ParameterSetInserter(maximumBytesPerAccessUnit: maximumInsertedBytesPerAccessUnit)
    }

    /// Takes the next video event; appends to `out` the Annex-B bytes of a sample.
    /// - Throws: ``FLVError/Code/missingDecoderConfiguration`` for a sample before any sequence
    ///   header; ``FLVError/Code/invalidDecoderConfiguration`` for a sequence header that is
    ///   not an avcC record; ``FLVError/Code/h264`` for a malformed sample (with
    ///   the core's error, e.g. `H264Error.Code.lengthPastEnd`). The writer goes on with the
    ///   next event.
    public mutating func add(_ event: FLVVideoEvent, to out: inout [UInt8]) throws(FLVError) {
        switch event {
        case .decoderConfiguration(let avcC, _):
            guard !avcC.elementsEqual(configurationBytes) else { return }  // the same header again
            let record = try AVCDecoderConfigurationRecord.flvSequenceHeader(avcC)
            configuration = record
            configurationBytes = Array(avcC)
            inserter.receiveOutOfBand(record.parameterSets)
        case .sample(let sample):
            guard let configuration else {
                throw FLVError.invalid(.missingDecoderConfiguration, "FLV sample at \(sample.dts) ms before any AVC sequence header")
            }
            let units: [NALUnit]
            do throws(H264Error) {
                units = try AVCC.split(sample.data, lengthSize: configuration.nalUnitLengthSize)
            } catch {
                throw FLVError.h264(error, "FLV sample at \(sample.dts) ms")
            }
            let random = sample.isKeyframe || units.contains { $0.type == .idrSlice }
            for unit in inserter.inserting(into: units, isRandomAccess: random) { AnnexB.append(unit, to: &out) }
        case .metadata, .endOfSequence:
            break
        }
    }
}
