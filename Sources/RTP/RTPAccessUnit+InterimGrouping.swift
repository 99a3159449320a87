import H264

extension RTPAccessUnit {
    /// Groups a stream's NAL units into access units by a simple rule, with timestamps one
    /// frame duration apart in decoding order.
    ///
    /// INTERIM: to be replaced by the access-unit layer (first VCL NAL unit of a primary coded
    /// picture, ITU-T H.264 7.4.1.2.4) once it is merged. The rule here: a new access unit starts
    /// at an AUD; at an SPS, PPS, SEI or types 14...18 that follow a slice of the current one; and
    /// at a slice (types 1, 2, 5) whose `first_mb_in_slice` is 0 when the current one already
    /// has a slice. Arbitrary slice order and redundant pictures are not recognised.
    ///
    /// - Parameters:
    ///   - units: the NAL units in decoding order.
    ///   - frameDuration90kHz: the time between access units (3600 for 25 frames per second).
    /// - Returns: the access units; the n-th has timestamp n * `frameDuration90kHz`.
    /// - Complexity: O(n) in the number of NAL units.
    public static func interimGrouping(_ units: [NALUnit], frameDuration90kHz: Int64) -> [RTPAccessUnit] {
        var result: [RTPAccessUnit] = []
        var current: [NALUnit] = []
        var hasSlice = false
        for unit in units {
            let t = unit.type.rawValue
            let startsNew: Bool
            switch t {
            case 9: startsNew = true
            case 6, 7, 8, 14...18: startsNew = hasSlice
            case 1, 2, 5: startsNew = hasSlice && firstMBInSlice(unit) == 0
            default: startsNew = false
            }
            if startsNew && !current.isEmpty {
                result.append(RTPAccessUnit(nalUnits: current, timestamp90kHz: Int64(result.count) * frameDuration90kHz))
                current.removeAll(keepingCapacity: true)
                hasSlice = false
            }
            current.append(unit)
            if t == 1 || t == 2 || t == 5 { hasSlice = true }
        }
        if !current.isEmpty {
            result.append(RTPAccessUnit(nalUnits: current, timestamp90kHz: Int64(result.count) * frameDuration90kHz))
        }
        return result
    }

    /// `first_mb_in_slice`, the first `ue(v)` of a slice header, or nil when unreadable.
    private static func firstMBInSlice(_ unit: NALUnit) -> UInt32? {
        // ue(v) of at most 63 bits fits 8 bytes; 16 bytes of EBSP leave room for escapes.
        var reader = BitReader(EmulationPrevention.rbsp(from: unit.payload.prefix(16)))
        return try? reader.readUE()
    }
}
