extension AccessUnitFlags {
    /// Derives the flags of one access unit from its NAL units and the slice types of its
    /// primary coded picture.
    /// - Parameters:
    ///   - units: the access unit's NAL units.
    ///   - sliceTypes: `slice_type % 5` of each parsed primary slice.
    ///   - allSlicesParsed: false when some slice header could not be read; the picture then
    ///     counts as predicted unless it is IDR, the safe answer.
    ///   - recoveryFrameCount: `recovery_frame_cnt` of the access unit's recovery point SEI.
    ///   - maxNumRefFrames: `max_num_ref_frames` of the SPS in force. An intra reference picture
    ///     of a stream that keeps at most one reference frame is a random access point: once
    ///     it is decoded it is the only picture later ones can predict from.
    public init(units: [NALUnit], sliceTypes: [UInt8], allSlicesParsed: Bool, recoveryFrameCount: Int?,
                maxNumRefFrames: Int? = nil) {
        self.init()
        var hasVCL = false
        for unit in units {
            let type = unit.type
            if type == .sps || type == .pps { hasParameterSets = true }
            guard type.isVCL else { continue }
            hasVCL = true
            if type == .idrSlice { isSync = true }
            if unit.nalRefIdc != 0 { isDependedOnByOthers = true }
        }
        hasNoPicture = !hasVCL
        let predicted = sliceTypes.contains { $0 == 0 || $0 == 1 || $0 == 3 }
        dependsOnOthers = !isSync && (predicted || !allSlicesParsed)
        if let count = recoveryFrameCount {
            self.recoveryFrameCount = count
            isRandomAccess = !isSync
        }
        let intraOnly = hasVCL && allSlicesParsed && !sliceTypes.isEmpty && !predicted
        if !isSync, intraOnly, isDependedOnByOthers, let refs = maxNumRefFrames, refs <= 1 {
            isRandomAccess = true
        }
        isIntraOnlyWithoutIDR = hasVCL && !isSync && self.recoveryFrameCount == nil && allSlicesParsed
            && !sliceTypes.isEmpty && !predicted
    }
}

extension AccessUnitFlags {
    /// Derives the flags of one access unit from its NAL units alone, without parameter sets:
    /// for an encoder's output, or any access unit met out of context.
    ///
    /// Only NAL unit headers, the first two elements of each slice header (`first_mb_in_slice`,
    /// `slice_type`) and recovery point SEI messages are read. A slice header too damaged to
    /// read counts as predicted, the safe answer. The single-reference intra rule needs the SPS
    /// and is not applied.
    /// - Complexity: O(number of NAL units), plus the SEI NAL units' sizes.
    public init<C: Collection>(accessUnit units: C) where C.Element == NALUnit {
        var sliceTypes: [UInt8] = []
        var allParsed = true
        var recovery: Int?
        for unit in units {
            if unit.type.isVCL {
                if let t = Self.sliceType(unit) { sliceTypes.append(t) } else { allParsed = false }
            } else if unit.type == .sei, recovery == nil {
                recovery = RecoveryPointLookup.recoveryFrameCount(in: unit, context: .empty)
            }
        }
        self.init(units: Array(units), sliceTypes: sliceTypes, allSlicesParsed: allParsed, recoveryFrameCount: recovery)
    }

    /// `slice_type % 5` of a slice, read from the first bytes of its header.
    static func sliceType(_ unit: NALUnit) -> UInt8? {
        unit.sliceHeaderLeadingElements().sliceType?.kind.rawValue
    }
}
