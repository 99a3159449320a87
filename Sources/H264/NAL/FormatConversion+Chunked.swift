extension FormatConversion {
    /// Converts an Annex-B stream read in chunks to length-prefixed NAL units written in
    /// chunks (``AnnexBStreamParser`` then ``AVCCWriter``), and returns the avcC record, known
    /// once the stream has ended. Memory: the parser's (one NAL unit, at most its limit), one
    /// chunk of output, and the record's parameter sets, whatever the stream's length.
    ///
    /// Deprecated: one path per job. ``AVCCWriter`` is the streaming form (its documentation
    /// shows this loop); ``annexBToAVCC(_:lengthSize:placement:leadingData:)`` converts a whole
    /// stream in memory.
    /// - Parameters:
    ///   - lengthSize: the size of the length prefixes.
    ///   - placement: whether parameter sets also stay in band.
    ///   - leadingData: what to do with bytes before the first start code.
    ///   - read: the next chunk of the stream, or nil at its end.
    ///   - write: takes the next bytes of the output (one call per chunk read, and one at the end).
    /// - Throws: the parser's and writer's ``H264Error``s (``H264Error/Code/missingParameterSet``
    ///   for a stream without an SPS and PPS, from the record), and what the closures throw.
    @available(*, deprecated, message: "feed an AnnexBStreamParser's NAL units to an AVCCWriter (see AVCCWriter), or convert a whole stream with annexBToAVCC(_:lengthSize:placement:leadingData:)")
    public static func annexBToAVCC(lengthSize: AVCC.LengthSize = .four, placement: ParameterSetPlacement = .outOfBand,
                                    leadingData: AnnexB.LeadingDataPolicy = .reject,
                                    read: () throws -> ArraySlice<UInt8>?,
                                    write: ([UInt8]) throws -> Void) throws -> AVCDecoderConfigurationRecord {
        var parser = AnnexBStreamParser(leadingData: leadingData)
        var writer = AVCCWriter(lengthSize: lengthSize, placement: placement)
        var out: [UInt8] = []
        while let chunk = try read() {
            parser.append(chunk)
            while let unit = try parser.next() { try writer.add(unit, to: &out) }
            try write(out)
            out.removeAll(keepingCapacity: true)
        }
        parser.finish()
        while let unit = try parser.next() { try writer.add(unit, to: &out) }
        try write(out)
        return try writer.configuration()
    }

    /// Converts length-prefixed NAL units read in chunks to an Annex-B stream written in
    /// chunks (``AVCCStreamParser`` then ``AnnexBWriter``: the record's parameter sets put in
    /// where a decoder needs them, as ``avccToAnnexB(_:configuration:lengthSize:)`` does).
    /// Memory: one NAL unit, one chunk of output and the parameter sets by id.
    /// - Parameters:
    ///   - configuration: the avcC record.
    ///   - lengthSize: the size of the length prefixes when it differs from the record's.
    ///   - read: the next chunk of input, or nil at its end.
    ///   - write: takes the next bytes of the stream.
    /// - Throws: the reader's and writer's ``H264Error``s (``H264Error/Code/truncated`` for
    ///   input that ends inside a NAL unit), and what the closures throw.
    public static func avccToAnnexB(configuration: AVCDecoderConfigurationRecord, lengthSize: AVCC.LengthSize? = nil,
                                    read: () throws -> ArraySlice<UInt8>?,
                                    write: ([UInt8]) throws -> Void) throws {
        var reader = AVCCStreamParser(lengthSize: lengthSize ?? configuration.nalUnitLengthSize)
        var writer = AnnexBWriter(configuration: configuration)
        var out: [UInt8] = []
        var ended = false
        while !ended {
            if let chunk = try read() { reader.append(chunk) } else { reader.finish(); ended = true }
            while let unit = try reader.next() { try writer.add(unit, to: &out) }
            if ended { writer.finish(to: &out) }
            try write(out)
            out.removeAll(keepingCapacity: true)
        }
    }
}
