// The SPS's part of picture order count decoding lives here, next to POCParameters, which it
// builds and which only access-unit code (PictureOrderCount, the assembler) uses; the SPS's
// own folder holds its syntax and the values derived from it alone.
extension SequenceParameterSet {
    /// The values picture order count decoding (8.2.1) needs from this SPS.
    public var pocParameters: POCParameters {
        POCParameters(
            picOrderCntType: Int(picOrderCntType),
            maxFrameNum: Int64(maxFrameNum),
            maxPicOrderCntLsb: Int64(maxPicOrderCntLsb),
            offsetForNonRefPic: Int64(offsetForNonRefPic),
            offsetForTopToBottomField: Int64(offsetForTopToBottomField),
            offsetForRefFrame: offsetForRefFrame.map { Int64($0) })
    }
}
