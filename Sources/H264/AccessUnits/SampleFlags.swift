/// What a container needs to know about one access unit (a sample), derived from its NAL
/// units alone: the bitstream, not an encoder's say-so, is the authority.
///
/// These are the facts behind MP4's `sync` sample table and `sdtp` box (`sample_depends_on`,
/// `sample_is_depended_on`) and VideoToolbox's `NotSync`/`DependsOnOthers` attachments.
public struct SampleFlags: Hashable, Sendable, CustomStringConvertible {
    /// The access unit holds an IDR picture (`nal_unit_type` 5): decoding can start here.
    public var isSync: Bool
    /// Some VCL NAL unit has `nal_ref_idc` != 0: later pictures may predict from this one.
    /// When false the sample can be dropped without harming the others.
    public var isDependedOnByOthers: Bool
    /// Some slice is not an I or SI slice (`slice_type` other than 2, 4, 7, 9), so the
    /// picture predicts from earlier ones. False for IDR and all-intra pictures.
    public var dependsOnOthers: Bool
    /// The access unit carries an SPS or PPS.
    public var hasParameterSets: Bool
    /// The access unit holds at least one VCL NAL unit (a coded picture).
    public var hasPicture: Bool

    /// Creates flags from their values.
    public init(isSync: Bool, isDependedOnByOthers: Bool, dependsOnOthers: Bool, hasParameterSets: Bool,
                hasPicture: Bool) {
        self.isSync = isSync
        self.isDependedOnByOthers = isDependedOnByOthers
        self.dependsOnOthers = dependsOnOthers
        self.hasParameterSets = hasParameterSets
        self.hasPicture = hasPicture
    }

    /// Derives the flags of one access unit from its NAL units.
    ///
    /// Only NAL unit headers and the first two elements of each slice header
    /// (`first_mb_in_slice`, `slice_type`) are read. A slice header too damaged to read counts
    /// as predicted (`dependsOnOthers` true), the safe answer.
    /// - Complexity: O(number of NAL units).
    public init<C: Collection>(accessUnit units: C) where C.Element == NALUnit {
        var sync = false, referenced = false, predicted = false, parameterSets = false, picture = false
        for unit in units {
            let type = unit.type
            if type.isParameterSet { parameterSets = true }
            guard type.isVCL else { continue }
            picture = true
            if type == .idrSlice { sync = true }
            if unit.nalRefIdc != 0 { referenced = true }
            if type != .idrSlice && !SampleFlags.isIntraSlice(unit) { predicted = true }
        }
        self.init(isSync: sync, isDependedOnByOthers: referenced, dependsOnOthers: predicted,
                  hasParameterSets: parameterSets, hasPicture: picture)
    }

    /// True when the slice's `slice_type` is I or SI (2, 4, 7 or 9).
    static func isIntraSlice(_ unit: NALUnit) -> Bool {
        let payload = unit.payload
        // Two ue(v) of at most 32 + 31 bits each fit in 16 bytes, even with emulation prevention.
        let head = payload.prefix(16)
        var reader = BitReader(EmulationPrevention.rbsp(from: head))
        guard (try? reader.readUE()) != nil, let sliceType = try? reader.readUE() else { return false }
        return sliceType % 5 == 2 || sliceType % 5 == 4
    }

    public var description: String {
        var parts: [String] = [isSync ? "sync" : "non-sync"]
        if !isDependedOnByOthers { parts.append("disposable") }
        if !dependsOnOthers { parts.append("intra") }
        if hasParameterSets { parts.append("parameter-sets") }
        return parts.joined(separator: ",")
    }
}
