import H264

/// One entry of a NAL unit listing (`h264 nals`, `h264 trace`): a NAL unit, or a NAL unit
/// whose header is invalid, in its place in the stream.
enum NALListingEntry {
    case unit(NALUnit)
    /// A NAL unit that starts at `offset` and cannot be one (`forbidden_zero_bit` set, a
    /// truncated header extension).
    case invalid(offset: Int, error: H264Error)

    /// The NAL units of an Annex-B stream in order, each invalid one reported in its place so
    /// that a listing goes on past it, as a damaged stream is still worth listing.
    /// - Throws: ``H264Error/Code/missingStartCode`` for bytes before the first start code
    ///   under `.reject`: that is not an H.264 elementary stream, or not from its start.
    /// - Complexity: O(n) in the stream's length (every call of the splitter moves past what it
    ///   reported).
    static func split(_ bytes: ArraySlice<UInt8>, leadingData: AnnexB.LeadingDataPolicy) throws(H264Error) -> [NALListingEntry] {
        var splitter = AnnexB.Splitter(bytes, leadingData: leadingData)
        var entries: [NALListingEntry] = []
        while true {
            let offset = splitter.position
            do throws(H264Error) {
                guard let unit = try splitter.next() else { break }
                entries.append(.unit(unit))
            } catch where error.code == .missingStartCode {
                throw error
            } catch {
                entries.append(.invalid(offset: offset, error: error))
            }
        }
        return entries
    }
}
