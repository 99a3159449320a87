import H264
import H264Fixtures
import Testing

extension FormatConversion {
    /// The two-pass reference for the one-pass conversion: split, then ``AVCCWriter`` (what
    /// the deprecated `annexBToAVCC(_:appendingTo:...)` did).
    static func splitThenWrite(_ stream: ArraySlice<UInt8>, appendingTo out: inout [UInt8], lengthSize: AVCC.LengthSize = .four,
                               placement: ParameterSetPlacement = .outOfBand,
                               leadingData: AnnexB.LeadingDataPolicy = .reject) throws(H264Error) -> AVCDecoderConfigurationRecord {
        var splitter = AnnexB.Splitter(stream, leadingData: leadingData)
        var writer = AVCCWriter(lengthSize: lengthSize, placement: placement)
        while let unit = try splitter.next() { try writer.add(unit, to: &out) }
        return try writer.configuration()
    }

    /// The streaming form over chunks: an ``AnnexBStreamParser`` feeding an ``AVCCWriter``,
    /// as ``AVCCWriter``'s documentation shows it.
    static func parseThenWrite(read: () throws -> ArraySlice<UInt8>?, write: ([UInt8]) throws -> Void) throws -> AVCDecoderConfigurationRecord {
        var parser = AnnexBStreamParser()
        var writer = AVCCWriter()
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
}

/// The deprecated Annex-B -> AVCC spellings still build and give what the one public path
/// gives. Called through a protocol the deprecated members witness, so that this test builds
/// without warnings.
@Suite struct FormatConversionDeprecatedTests {
    @Test(arguments: [Fixture.baselineCAVLC, .mainCABACBFrames, .resolutionChange])
    func deprecatedFormsAgreeWithTheOnePath(_ fixture: Fixture) throws {
        let annexB = fixture.bytes()
        let whole = try FormatConversion.annexBToAVCC(annexB[...])
        var appended: [UInt8] = [0xAB]
        let record = try LegacyConversion.appending(annexB[...], to: &appended)
        #expect(appended == [0xAB] + whole.bytes)
        #expect(record == whole.configuration)
        var chunked: [UInt8] = []
        let chunkedRecord = try LegacyConversion.chunked(read: FormatConversionChunkedTests.reader(annexB, size: 7), write: { chunked += $0 })
        #expect(chunked == whole.bytes)
        #expect(chunkedRecord == whole.configuration)
    }
}

private protocol LegacyAnnexBToAVCC {
    static func annexBToAVCC(_ stream: ArraySlice<UInt8>, appendingTo out: inout [UInt8], lengthSize: AVCC.LengthSize,
                             placement: FormatConversion.ParameterSetPlacement,
                             leadingData: AnnexB.LeadingDataPolicy) throws(H264Error) -> AVCDecoderConfigurationRecord
    static func annexBToAVCC(lengthSize: AVCC.LengthSize, placement: FormatConversion.ParameterSetPlacement,
                             leadingData: AnnexB.LeadingDataPolicy, read: () throws -> ArraySlice<UInt8>?,
                             write: ([UInt8]) throws -> Void) throws -> AVCDecoderConfigurationRecord
}

extension FormatConversion: LegacyAnnexBToAVCC {}

private enum LegacyConversion {
    static func appending(_ stream: ArraySlice<UInt8>, to out: inout [UInt8]) throws -> AVCDecoderConfigurationRecord {
        try appending(FormatConversion.self, stream, to: &out)
    }

    static func chunked(read: () throws -> ArraySlice<UInt8>?, write: ([UInt8]) throws -> Void) throws -> AVCDecoderConfigurationRecord {
        try chunked(FormatConversion.self, read: read, write: write)
    }

    private static func appending<C: LegacyAnnexBToAVCC>(_: C.Type, _ stream: ArraySlice<UInt8>, to out: inout [UInt8]) throws -> AVCDecoderConfigurationRecord {
        try C.annexBToAVCC(stream, appendingTo: &out, lengthSize: .four, placement: .outOfBand, leadingData: .reject)
    }

    private static func chunked<C: LegacyAnnexBToAVCC>(_: C.Type, read: () throws -> ArraySlice<UInt8>?,
                                                       write: ([UInt8]) throws -> Void) throws -> AVCDecoderConfigurationRecord {
        try C.annexBToAVCC(lengthSize: .four, placement: .outOfBand, leadingData: .reject, read: read, write: write)
    }
}
