extension AccessUnitFlags {
    /// Derives the flags of one access unit from its NAL units and the slice types of its
    /// primary coded picture.
    /// - Parameters:
    ///   - units: the access unit's NAL units.
    ///   - sliceTypes: the coding type (`slice_type % 5`) of each parsed primary slice.
    ///   - allSlicesParsed: false when some slice header could not be read; the picture then
    ///     counts as predicted unless it is IDR, the safe answer.
    ///   - recoveryFrameCount: `recovery_frame_cnt` of the access unit's recovery point SEI.
    ///   - maxNumRefFrames: `max_num_ref_frames` of the SPS in force. An intra reference picture
    ///     of a stream that keeps at most one reference frame is a random access point: once
    ///     it is decoded it is the only picture later ones can predict from.
    public init(units: [NALUnit], sliceTypes: [SliceType.Kind], allSlicesParsed: Bool, recoveryFrameCount: Int?,
                maxNumRefFrames: Int? = nil) {
        var evidence = Evidence()
        for unit in units { evidence.add(unit) }
        for kind in sliceTypes { evidence.add(kind) }
        self.init(evidence, allSlicesParsed: allSlicesParsed, recoveryFrameCount: recoveryFrameCount,
                  maxNumRefFrames: maxNumRefFrames)
    }

    /// What the flags depend on in an access unit's NAL units and slice types, gathered as they
    /// arrive (the assembler adds each as it joins the access unit: no second pass over them).
    struct Evidence: Sendable {
        /// Some NAL unit is an SPS or a PPS.
        var hasParameterSets = false
        /// Some NAL unit is a VCL NAL unit.
        var hasVCL = false
        /// Some VCL NAL unit is an IDR slice.
        var hasIDRSlice = false
        /// Some VCL NAL unit has nonzero `nal_ref_idc`.
        var hasReferenceSlice = false
        /// Some slice type was given.
        var hasSliceTypes = false
        /// Some slice type is P, B or SP.
        var hasPredictedSlice = false

        /// Adds one NAL unit of the access unit.
        mutating func add(_ unit: NALUnit) {
            let type = unit.type
            if type == .sps || type == .pps { hasParameterSets = true }
            guard type.isVCL else { return }
            hasVCL = true
            if type == .idrSlice { hasIDRSlice = true }
            if unit.nalRefIdc != 0 { hasReferenceSlice = true }
        }

        /// Adds the coding type of one parsed primary slice.
        mutating func add(_ kind: SliceType.Kind) {
            hasSliceTypes = true
            if kind == .p || kind == .b || kind == .sp { hasPredictedSlice = true }
        }
    }

    /// The flags from gathered evidence; see ``init(units:sliceTypes:allSlicesParsed:recoveryFrameCount:maxNumRefFrames:)``.
    init(_ evidence: Evidence, allSlicesParsed: Bool, recoveryFrameCount: Int?, maxNumRefFrames: Int?) {
        self.init()
        let hasVCL = evidence.hasVCL
        hasParameterSets = evidence.hasParameterSets
        isSync = evidence.hasIDRSlice
        isDependedOnByOthers = evidence.hasReferenceSlice
        hasNoPicture = !hasVCL
        let predicted = evidence.hasPredictedSlice
        dependsOnOthers = !isSync && (predicted || !allSlicesParsed)
        if let count = recoveryFrameCount {
            self.recoveryFrameCount = count
            isRandomAccess = !isSync
        }
        let intraOnly = hasVCL && allSlicesParsed && evidence.hasSliceTypes && !predicted
        if !isSync, intraOnly, isDependedOnByOthers, let refs = maxNumRefFrames, refs <= 1 {
            isRandomAccess = true
        }
        isIntraOnlyWithoutIDR = hasVCL && !isSync && self.recoveryFrameCount == nil && allSlicesParsed
            && evidence.hasSliceTypes && !predicted
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
        var sliceTypes: [SliceType.Kind] = []
        var allParsed = true
        var recovery: Int?
        for unit in units {
            if unit.type.isVCL {
                if let t = Self.sliceType(unit) { sliceTypes.append(t) } else { allParsed = false }
            } else if unit.type == .sei, recovery == nil {
                recovery = RecoveryPointLookup.recoveryFrameCount(in: unit)
            }
        }
        self.init(units: Array(units), sliceTypes: sliceTypes, allSlicesParsed: allParsed, recoveryFrameCount: recovery)
    }

    /// The coding type of a slice, read from the first bytes of its header.
    static func sliceType(_ unit: NALUnit) -> SliceType.Kind? {
        unit.sliceHeaderLeadingElements().sliceType?.kind
    }
}
