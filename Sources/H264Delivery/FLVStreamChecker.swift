import FLV
import H264

/// A ``StreamChecker`` for the H.264 video of an FLV file or RTMP recording, as it arrives:
/// each NALU tag is one access unit, checked with its keyframe flag and the sequence header
/// sent before it as ``DeliveryContainerFacts`` (what the ``DeliveryProfile/rtmp`` rules need).
///
/// ```swift
/// var checker = FLVStreamChecker(profile: .rtmp)
/// for chunk in chunks { try checker.append(chunk) }
/// try checker.finish()
/// print(checker.checker.violations)
/// ```
///
/// Pictures are checked without the slice-level parse of an Annex-B stream (no picture order
/// counts: the reordering rules see B slices only). Times come from the tags (milliseconds).
///
/// Memory: the FLV reader's (one tag and the last chunk) and the checker's.
public struct FLVStreamChecker: Sendable {
    /// The checker, with the violations found.
    public private(set) var checker: StreamChecker
    private var reader = FLVStreamParser()
    private var configuration: AVCDecoderConfigurationRecord?
    private var pendingConfiguration: [NALUnit]?

    /// Creates a checker for `profile`.
    public init(profile: DeliveryProfile) {
        checker = StreamChecker(profile: profile)
    }

    /// Checks the next chunk of the file.
    /// - Throws: ``DeliveryError/Code/flv`` with the FLV reader's error (a malformed tag, or a
    ///   sequence header that is not an avcC record, the core's error behind the reader's): the
    ///   file cannot be read further.
    public mutating func append(_ chunk: ArraySlice<UInt8>) throws(DeliveryError) {
        reader.append(chunk)
        while let event = try Self.flv({ () throws(FLVError) in try reader.nextVideoEvent() }) {
            switch event {
            case .decoderConfiguration(let bytes, _):
                do throws(H264Error) {
                    let record = try AVCDecoderConfigurationRecord(parsing: bytes)
                    configuration = record
                    pendingConfiguration = record.parameterSets
                } catch {
                    throw DeliveryError.h264(error, "sequence header")
                }
            case .sample(let sample):
                check(sample)
            case .metadata, .endOfSequence:
                break
            }
        }
    }

    /// Ends the file: checks the rules that need the whole stream.
    /// - Throws: ``DeliveryError/Code/flv`` with the FLV reader's `truncated` when the file ends
    ///   inside a tag.
    public mutating func finish() throws(DeliveryError) {
        checker.finish()
        try Self.flv { () throws(FLVError) in try reader.finish() }
    }

    /// Runs `body`, a call into the FLV reader, wrapping its error as ``DeliveryError/Code/flv``.
    private static func flv<Value>(_ body: () throws(FLVError) -> Value) throws(DeliveryError) -> Value {
        do { return try body() } catch { throw DeliveryError.wrapping(error, as: .flv) }
    }

    private mutating func check(_ sample: FLVVideoSample) {
        var reader = AVCC.Reader(sample.data, lengthSize: configuration?.nalUnitLengthSize ?? .four)
        var units: [NALUnit] = []
        while true {
            do throws(H264Error) {
                guard let unit = try reader.next() else { break }
                units.append(unit)
            } catch {
                break  // the rest of the tag cannot be framed: checked as far as it was read
            }
        }
        var au = AccessUnit(nalUnits: units, index: checker.accessUnitCount, flags: AccessUnitFlags(accessUnit: units),
                            sliceTypes: units.filter(\.type.isVCL).compactMap { $0.sliceHeaderLeadingElements().sliceType?.kind })
        au.dts = sample.dts
        au.pts = sample.pts
        au.timeBase = TimeBase(numerator: 1, denominator: 1000)
        checker.check(au, container: DeliveryContainerFacts(keyframeFlag: sample.isKeyframe, decoderConfiguration: pendingConfiguration))
        pendingConfiguration = nil
    }
}
