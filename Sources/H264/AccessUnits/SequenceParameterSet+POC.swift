// The SPS's part of picture order count decoding lives here, next to POCParameters, which it
// builds and which only access-unit code (PictureOrderCount, the assembler) uses; the SPS's
// own folder holds its syntax and the values derived from it alone.
extension SequenceParameterSet {
    /// The values picture order count decoding (8.2.1) needs from this SPS.
    public var pocParameters: POCParameters {
        var parameters = POCParameters(picOrderCntType: 0, maxFrameNum: 0)
        writePOCParameters(into: &parameters)
        return parameters
    }

    /// Writes ``pocParameters`` into `parameters` in place: the storage of its
    /// `offsetForRefFrame` is reused (no allocation when it holds as many already).
    func writePOCParameters(into parameters: inout POCParameters) {
        parameters.picOrderCntType = Int(picOrderCntType)
        parameters.maxFrameNum = Int64(maxFrameNum)
        parameters.maxPicOrderCntLsb = Int64(maxPicOrderCntLsb)
        parameters.offsetForNonRefPic = Int64(offsetForNonRefPic)
        parameters.offsetForTopToBottomField = Int64(offsetForTopToBottomField)
        parameters.offsetForRefFrame.removeAll(keepingCapacity: true)
        parameters.offsetForRefFrame.reserveCapacity(offsetForRefFrame.count)
        for offset in offsetForRefFrame { parameters.offsetForRefFrame.append(Int64(offset)) }
    }
}
