import H264

extension MP4Sample {
    /// Where decoding can start, judged from a sample's NAL units (not from its flags, which an
    /// input file may get wrong: an empty `stss`, or every sample marked sync).
    public enum RandomAccess: Sendable, Hashable {
        /// An IDR access unit: the sample and every one after it decode with nothing before
        /// (SAP type 1 or 2; what ISO/IEC 14496-15 makes a sync sample).
        case idr
        /// A recovery point SEI on a picture that is not IDR (open GOP, periodic intra refresh):
        /// pictures after it decode correctly only once `recovery_frame_cnt` more have been,
        /// and leading pictures may not decode at all (SAP type 3 or 4).
        case recoveryPoint
        /// Decoding cannot start here.
        case none
    }

    /// Where decoding can start at this sample.
    /// - Parameters:
    ///   - lengthSize: the NAL unit length size of the sample's description.
    ///   - recoveryPoints: look for recovery point SEI messages too (else a sample that is not
    ///     IDR is ``RandomAccess/none`` without reading its SEI).
    /// - Returns: ``RandomAccess/none`` also for a sample whose NAL unit lengths do not add up.
    /// - Complexity: O(NAL units) for the IDR test (one header byte each, nothing copied); with
    ///   `recoveryPoints`, plus the SEI NAL units' sizes when there is no IDR slice.
    public func randomAccess(lengthSize: AVCC.LengthSize, recoveryPoints: Bool) -> RandomAccess {
        var reader = AVCC.Reader(data, lengthSize: lengthSize)
        var hasSEI = false
        while true {
            let unit: NALUnit?
            do { unit = try reader.next() } catch { return .none }
            guard let unit else { break }
            if unit.type == .idrSlice { return .idr }
            if unit.type == .sei { hasSEI = true }
        }
        guard recoveryPoints, hasSEI, let units = try? AVCC.split(data, lengthSize: lengthSize) else { return .none }
        return AccessUnitFlags(accessUnit: units).recoveryFrameCount != nil ? .recoveryPoint : .none
    }
}
