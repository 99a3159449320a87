extension AnnexB {
    /// One entry of ``entries(_:leadingData:)``: a NAL unit, or a NAL unit whose header is
    /// invalid, in its place in the stream.
    public enum Entry: Sendable {
        case unit(NALUnit)
        /// A NAL unit that starts at `offset` and cannot be one (`forbidden_zero_bit` set, a
        /// truncated header extension).
        case invalid(offset: Int, error: H264Error)
    }

    /// Splits an Annex-B stream like `split(_:leadingData:)`, but goes on past a NAL
    /// unit whose header is invalid and reports it in its place: what a listing or an editor of
    /// a damaged stream needs.
    /// - Throws: ``H264Error/Code/missingStartCode`` for bytes before the first start code
    ///   under `.reject` (never under `.skip`).
    /// - Complexity: O(n) in the stream's length (every call of the splitter moves past what it
    ///   reported).
    public static func entries(_ bytes: ArraySlice<UInt8>, leadingData: LeadingDataPolicy = .reject) throws(H264Error) -> [Entry] {
        var splitter = Splitter(bytes, leadingData: leadingData)
        var entries: [Entry] = []
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
