/// The per-picture step of SEI insertion, for any list of one access unit's NAL units: what
/// ``SEIInserter`` does to each picture of a stream, and what an encoder does to the access
/// units it makes (`X264Encoder` with per-frame SEI messages).
///
/// The messages go into one new SEI NAL unit right before the first VCL NAL unit (or the prefix
/// NAL unit in front of it), after the access unit delimiter, parameter sets and SEI NAL units
/// already there (ITU-T H.264 7.4.1.2.3; a buffering_period stays the first message). pic_timing
/// and recovery_point are one per picture: an inserted pic_timing replaces the picture's own
/// and takes over its `cpb_removal_delay` and `dpb_output_delay` (and, when the inserted one is
/// a frame's, `pic_struct` 0, the picture's own `pic_struct`, or 1 or 2 for a field picture,
/// with the clock timestamps padded to its `NumClockTS`); an inserted recovery_point
/// replaces the picture's own. When `outputTiming` differs from `inputTiming` (the SPS got
/// `pic_struct_present_flag`), the picture's own pic_timing is re-coded with it, a `pic_struct`
/// for the picture's structure and no clock timestamp.
public enum SEIAccessUnitInsertion {
    /// What one insertion did.
    public struct Result: Sendable {
        /// Messages inserted.
        public var insertedCount = 0
        /// Messages left out (a pic_timing the SPS cannot carry, a value out of its range) and
        /// SEI NAL units of the picture that could not be parsed (copied unchanged).
        public var problems: [H264Error] = []
    }

    /// Inserts `messages` into one access unit's NAL units.
    /// - Parameters:
    ///   - messages: the messages; a pic_timing is coded with `outputTiming` (its own `timing`
    ///     is replaced).
    ///   - nalUnits: the access unit, in decoding order.
    ///   - structure: the picture's structure (the `pic_struct` of re-coded pic_timing).
    ///   - inputTiming: the SPS facts the access unit's SEI NAL units are coded with; nil when
    ///     the SPS is unknown.
    ///   - outputTiming: the SPS facts of the output (the same, unless the SPS was edited).
    /// - Returns: how many messages went in, and the problems.
    /// - Complexity: O(size of the access unit's SEI NAL units and of the messages).
    public static func insert(_ messages: [SEIMessage], into nalUnits: inout [NALUnit], structure: PictureStructure = .frame,
                              inputTiming: SEITimingInfo?, outputTiming: SEITimingInfo?) -> Result {
        insert(messages, into: &nalUnits, unit: \.self, replace: { $0 = $1 }, make: { unit, _ in unit },
               structure: structure, inputTiming: inputTiming, outputTiming: outputTiming)
    }

    /// ``insert(_:into:structure:inputTiming:outputTiming:)`` over a list whose elements hold NAL
    /// units (with their framing): `make` builds the element of the new SEI NAL unit, told
    /// whether it is the access unit's first NAL unit.
    static func insert<Element>(_ messages: [SEIMessage], into units: inout [Element], unit: (Element) -> NALUnit,
                                replace: (inout Element, NALUnit) -> Void, make: (NALUnit, Bool) -> Element,
                                structure: PictureStructure, inputTiming: SEITimingInfo?, outputTiming: SEITimingInfo?) -> Result {
        var result = Result()
        let insertsPicTiming = messages.contains { $0.payloadType == .picTiming }
        let insertsRecovery = messages.contains { $0.payloadType == .recoveryPoint }
        let retimes = outputTiming != nil && outputTiming != inputTiming
        var delays: (cpb: UInt32, dpb: UInt32)? = nil
        var ownPicStruct: UInt8? = nil
        if insertsPicTiming || insertsRecovery || retimes {
            var k = 0
            while k < units.count, !isPictureStart(unit(units[k])) {
                guard unit(units[k]).type == .sei else { k &+= 1; continue }
                switch rewriteOwnSEI(unit(units[k]), inputTiming: inputTiming, outputTiming: outputTiming, structure: structure,
                                     removesPicTiming: insertsPicTiming, removesRecovery: insertsRecovery,
                                     delays: &delays, picStruct: &ownPicStruct) {
                case .unchanged: k &+= 1
                case .replaced(let new): replace(&units[k], new); k &+= 1
                case .removed: units.remove(at: k)
                case .failed(let error): result.problems.append(error); k &+= 1
                }
            }
        }
        var accepted: [SEIMessage] = []
        for var message in messages {
            if case .picTiming(var p) = message.payload {
                guard let timing = outputTiming, timing.picStructPresent else {
                    result.problems.append(H264Error.invalid(.unsupported,
                        "pic_timing left out: the SPS has no pic_struct_present_flag (set it with the pic_struct edit)"))
                    continue
                }
                p.timing = timing
                p.adoptPicStruct(ownPicStruct, structure: structure)
                if timing.cpbDpbDelaysPresent {
                    guard let delays else {
                        result.problems.append(H264Error.invalid(.unsupported,
                            "pic_timing left out: the SPS has HRD parameters and the picture no pic_timing to take cpb_removal_delay and dpb_output_delay from"))
                        continue
                    }
                    p.cpbRemovalDelay = delays.cpb
                    p.dpbOutputDelay = delays.dpb
                }
                message.payload = .picTiming(p)
            }
            do throws(H264Error) {
                _ = try message.payloadBytes()
                accepted.append(message)
            } catch {
                result.problems.append(error)
            }
        }
        guard !accepted.isEmpty else { return result }
        let sei: NALUnit
        do throws(H264Error) {
            sei = try SEINALUnit(messages: accepted).nalUnit()
        } catch {
            result.problems.append(error)
            return result
        }
        let position = units.firstIndex { isPictureStart(unit($0)) } ?? units.count
        units.insert(make(sei, position == 0), at: position)
        result.insertedCount = accepted.count
        return result
    }

    /// The first VCL NAL unit of the picture, or the prefix NAL unit that goes with it.
    private static func isPictureStart(_ unit: NALUnit) -> Bool { unit.type.isVCL || unit.type == .prefix }

    private enum Rewrite {
        case unchanged, replaced(NALUnit), removed, failed(H264Error)
    }

    /// The picture's own SEI NAL unit with its pic_timing removed (its delays kept in `delays`)
    /// or re-coded, and its recovery_point removed, as asked.
    private static func rewriteOwnSEI(_ unit: NALUnit, inputTiming: SEITimingInfo?, outputTiming: SEITimingInfo?, structure: PictureStructure,
                                      removesPicTiming: Bool, removesRecovery: Bool, delays: inout (cpb: UInt32, dpb: UInt32)?,
                                      picStruct: inout UInt8?) -> Rewrite {
        var sei: SEINALUnit
        do throws(H264Error) {
            sei = try SEI.parse(unit, context: PictureTimingContext(timing: inputTiming))
        } catch {
            return .failed(error)
        }
        var changed = false
        var kept: [SEIMessage] = []
        for var message in sei.messages {
            switch message.payload {
            case .picTiming(var p):
                if delays == nil { delays = (p.cpbRemovalDelay, p.dpbOutputDelay) }
                if picStruct == nil, p.timing.picStructPresent { picStruct = p.picStruct }
                if removesPicTiming { changed = true; continue }
                if let outputTiming, outputTiming != p.timing {
                    let hadPicStruct = p.timing.picStructPresent
                    p.timing = outputTiming
                    if !hadPicStruct {
                        p.picStruct = structure == .frame ? 0 : structure == .topField ? 1 : 2
                        p.clockTimestamps = [SEIClockTimestamp?](repeating: nil, count: SEIPicTiming.numClockTS[Int(p.picStruct)])
                    }
                    message.payload = .picTiming(p)
                    changed = true
                }
            case .recoveryPoint where removesRecovery:
                changed = true
                continue
            default:
                break
            }
            kept.append(message)
        }
        guard changed else { return .unchanged }
        guard !kept.isEmpty else { return .removed }
        sei.messages = kept
        do throws(H264Error) {
            return .replaced(try sei.nalUnit())
        } catch {
            return .failed(error)
        }
    }
}

extension SEIPicTiming {
    /// A frame's `pic_struct` (0) made to fit the picture: the picture's own `pic_struct` when
    /// it had one (field order, frame doubling: an encoder's choice), else 1 or 2 for a field;
    /// the clock timestamps padded with absent ones (or cut) to its `NumClockTS`.
    mutating func adoptPicStruct(_ own: UInt8?, structure: PictureStructure) {
        guard picStruct == 0 else { return }
        let chosen: UInt8
        switch structure {
        case .topField: chosen = 1
        case .bottomField: chosen = 2
        case .frame: chosen = own.map { $0 <= 8 ? $0 : 0 } ?? 0
        }
        guard chosen != 0 else { return }
        picStruct = chosen
        let count = SEIPicTiming.numClockTS[Int(chosen)]
        if clockTimestamps.count > count { clockTimestamps.removeLast(clockTimestamps.count &- count) }
        while clockTimestamps.count < count { clockTimestamps.append(nil) }
    }
}

/// The SPS facts of one picture for parsing its SEI NAL units.
private struct PictureTimingContext: SyntaxContext {
    let timing: SEITimingInfo?
    func seiTimingInfo(forSPS id: Int) -> SEITimingInfo? { timing }
    var activeSEITimingInfo: SEITimingInfo? { timing }
}
