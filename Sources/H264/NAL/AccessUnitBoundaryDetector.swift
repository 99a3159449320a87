/// Finds where access units begin in a sequence of NAL units, well enough for format
/// conversion: a new access unit starts at the first slice of a new picture
/// (`first_mb_in_slice == 0`) and at an access unit delimiter, SPS, PPS, SEI or NAL unit of
/// types 14 to 18 that follows a slice of the current access unit (7.4.1.2.3).
///
/// Provisional: the access-unit layer replaces it with the full first-slice detection of
/// 7.4.1.2.4 (frame_num, pic_parameter_set_id, field flags, idr_pic_id, POC changes), which
/// also separates pictures whose slices all start at macroblock 0 (arbitrary slice order).
struct AccessUnitBoundaryDetector: Sendable {
    /// True once the current access unit holds a VCL NAL unit.
    private var sawSlice = false

    init() {}

    /// Feeds the next NAL unit; true when it begins a new access unit (false for the very first
    /// NAL unit, which begins the first one).
    mutating func startsAccessUnit(_ unit: NALUnit) -> Bool {
        switch unit.type.rawValue {
        case 1, 2, 5:
            let first = sawSlice && Self.firstMBInSlice(unit) == 0
            sawSlice = true
            return first
        case 6, 7, 8, 9, 14, 15, 16, 17, 18:
            defer { sawSlice = false }
            return sawSlice
        default:
            return false
        }
    }

    /// `first_mb_in_slice`, the first `ue(v)` of a slice header, or nil when unreadable.
    static func firstMBInSlice(_ unit: NALUnit) -> UInt32? {
        // 8 payload bytes hold any ue(v) of up to 32 bits even with two emulation-prevention bytes.
        var reader = BitReader(EmulationPrevention.rbsp(from: unit.payload.prefix(8)))
        return try? reader.readUE()
    }
}
