import H264

/// `h264 convert --to annexb --aud insert`: an access unit delimiter at the start of every
/// access unit that lacks one.
enum AUDInsertion {
    /// Rewrites an Annex-B stream with 4-byte start codes, an AUD first in every access unit
    /// (7.4.1.2.4) that has a primary picture and no AUD; `primary_pic_type` from the slice
    /// types of the access unit (Table 7-5; 7 when a slice header could not be parsed). Access
    /// units that have an AUD keep it.
    /// - Returns: the stream and the number of delimiters inserted.
    /// - Throws: the first error when no access unit could be assembled.
    /// - Complexity: O(n) in the stream size.
    static func insert(into annexB: [UInt8], leadingData: AnnexB.LeadingDataPolicy = .skip) throws -> (bytes: [UInt8], inserted: Int) {
        let (accessUnits, errors) = AccessUnits.assemble(annexB: annexB[...], leadingData: leadingData)
        if accessUnits.isEmpty, let first = errors.first { throw first }
        var out: [UInt8] = []
        out.reserveCapacity(annexB.count &+ accessUnits.count &* 6)  // both bounded by memory
        var inserted = 0
        for au in accessUnits {
            if !au.flags.hasNoPicture, !au.nalUnits.contains(where: { $0.type == .accessUnitDelimiter }) {
                // Slices the layer could not parse leave the type open: 7 allows every slice type.
                let slices = au.nalUnits.reduce(0) { $0 &+ ($1.type == .slice || $1.type == .idrSlice ? 1 : 0) }
                let aud = au.sliceTypes.count >= slices ? AccessUnitDelimiter(sliceTypes: au.sliceTypes) : AccessUnitDelimiter()
                AnnexB.append(try aud.nalUnit(), to: &out)
                inserted += 1
            }
            for unit in au.nalUnits { AnnexB.append(unit, to: &out) }
        }
        return (out, inserted)
    }
}
