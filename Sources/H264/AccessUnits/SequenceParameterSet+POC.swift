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
