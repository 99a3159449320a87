/// Follows a stream's parameter sets access unit by access unit, for a muxer that carries
/// them out of band (an MP4 `avcC` box, an FLV sequence header): it says which
/// `AVCDecoderConfigurationRecord` is in force for each access unit and when it changes.
///
/// The record holds the latest SPS and PPS of every id seen so far, and the SPS extensions of
/// the latest access unit that had any. SPSs come first, then PPSs; within each, those of the
/// access unit that made the record come first (they are the ones in force, and the first SPS
/// gives the record's profile and level and a container its picture size), then the others
/// by id. An access unit whose in-band parameter sets repeat those already held changes
/// nothing; a new or different one makes a new record (a format change: new parameter sets, a
/// resolution change).
///
/// ```swift
/// var tracker = DecoderConfigurationTracker()
/// for au in accessUnits {
///     let (record, changed) = try tracker.update(with: au.nalUnits)
///     if changed { writeSampleDescription(record) }
///     writeSample(tracker.removingParameterSets(from: au.nalUnits))
/// }
/// ```
///
/// Parameter sets are copied out of the caller's buffers, so a tracker keeps no access unit
/// alive. Memory: at most 32 SPSs and 256 PPSs.
public struct DecoderConfigurationTracker: Sendable {
    /// The record in force, nil before the first access unit with (or after) an SPS and a PPS.
    public private(set) var configuration: AVCDecoderConfigurationRecord?
    /// The NAL unit length size the records announce.
    public let lengthSize: AVCC.LengthSize
    private var spsByID: [Int: NALUnit] = [:]
    private var ppsByID: [Int: NALUnit] = [:]
    private var extensions: [NALUnit] = []
    private var dirty = false
    /// Ids of the SPSs and PPSs of the latest access unit that carried any, in its order.
    private var recentSPS: [Int] = []
    private var recentPPS: [Int] = []

    /// Creates a tracker that already knows `parameterSets` (an encoder's SPS and PPS), so
    /// that access units without parameter sets in band can come first.
    public init(parameterSets: [NALUnit] = [], lengthSize: AVCC.LengthSize = .four) {
        self.lengthSize = lengthSize
        remember(parameterSets)
    }

    /// Takes the NAL units of the next access unit in decoding order.
    /// - Returns: the record in force for this access unit, and whether it differs from the
    ///   record in force before it (true for the first).
    /// - Throws: ``H264Error/Code/missingParameterSet`` when no SPS and PPS have been seen
    ///   yet, and the errors of ``AVCDecoderConfigurationRecord/init(parameterSets:lengthSize:)``.
    /// - Complexity: O(size of the access unit's parameter sets); the record is rebuilt only
    ///   when one of them is new.
    public mutating func update<C: Collection>(with units: C) throws(H264Error)
    -> (configuration: AVCDecoderConfigurationRecord, changed: Bool) where C.Element == NALUnit {
        remember(units)
        if let configuration, !dirty { return (configuration, false) }
        guard !spsByID.isEmpty, !ppsByID.isEmpty else {
            throw H264Error.invalid(.missingParameterSet, "no SPS and PPS before this access unit")
        }
        let spsOrder = recentSPS + spsByID.keys.sorted().filter { !recentSPS.contains($0) }
        let ppsOrder = recentPPS + ppsByID.keys.sorted().filter { !recentPPS.contains($0) }
        let sets = spsOrder.compactMap { spsByID[$0] } + ppsOrder.compactMap { ppsByID[$0] } + extensions
        let record = try AVCDecoderConfigurationRecord(parameterSets: sets, lengthSize: lengthSize)
        dirty = false
        let changed = record != configuration
        configuration = record
        return (record, changed)
    }

    /// `units` without the parameter sets the record carries (SPS, PPS, SPS extension); a
    /// parameter set whose id cannot be read stays.
    public func removingParameterSets<C: Collection>(from units: C) -> [NALUnit] where C.Element == NALUnit {
        units.filter { unit in
            switch unit.type {
            case .sps, .pps: return unit.parameterSetID == nil
            case .spsExtension: return false
            default: return true
            }
        }
    }

    private mutating func remember<C: Collection>(_ units: C) where C.Element == NALUnit {
        var newExtensions: [NALUnit] = []
        var sps: [Int] = [], pps: [Int] = []
        defer {
            if !sps.isEmpty { recentSPS = sps }
            if !pps.isEmpty { recentPPS = pps }
        }
        for unit in units {
            switch unit.type {
            case .sps, .pps:
                guard let id = unit.parameterSetID else { continue }
                let isSPS = unit.type == .sps
                if isSPS { if !sps.contains(id) { sps.append(id) } } else if !pps.contains(id) { pps.append(id) }
                if (isSPS ? spsByID[id] : ppsByID[id])?.bytes.elementsEqual(unit.bytes) == true { continue }
                let copy = NALUnit(unchecked: Array(unit.bytes)[...])
                if isSPS { spsByID[id] = copy } else { ppsByID[id] = copy }
                dirty = true
            case .spsExtension:
                newExtensions.append(NALUnit(unchecked: Array(unit.bytes)[...]))
            default:
                continue
            }
        }
        if !newExtensions.isEmpty && newExtensions != extensions {
            extensions = newExtensions
            dirty = true
        }
    }
}
