import H264
import H264Fixtures
import Testing

@Suite struct FormatConversionChunkedTests {
    /// Chunks of `bytes` of `size`, then nil.
    static func reader(_ bytes: [UInt8], size: Int) -> () -> ArraySlice<UInt8>? {
        var at = 0
        return {
            guard at < bytes.count else { return nil }
            defer { at = min(at + size, bytes.count) }
            return bytes[at..<min(at + size, bytes.count)]
        }
    }

    /// Annex-B -> AVCC -> Annex-B in chunks of 1, 7 and 4,096 bytes gives exactly what the
    /// in-memory conversions give, record included.
    @Test(arguments: [Fixture.baselineCAVLC, .mainCABACBFrames, .resolutionChange, .seiHRD])
    func chunkedEqualsInMemory(_ fixture: Fixture) throws {
        let annexB = fixture.bytes()
        let whole = try FormatConversion.annexBToAVCC(annexB[...])
        let back = try FormatConversion.avccToAnnexB(whole.bytes[...], configuration: whole.configuration)
        for size in [1, 7, 4096] {
            var avcc: [UInt8] = []
            let record = try FormatConversion.parseThenWrite(read: Self.reader(annexB, size: size), write: { avcc += $0 })
            #expect(avcc == whole.bytes, "\(fixture), chunks of \(size)")
            #expect(try record.serialized() == whole.configuration.serialized(), "\(fixture), chunks of \(size)")
            var annexBAgain: [UInt8] = []
            try FormatConversion.avccToAnnexB(configuration: record, read: Self.reader(avcc, size: size), write: { annexBAgain += $0 })
            #expect(annexBAgain == back, "\(fixture), chunks of \(size)")
        }
    }

    /// Input that ends inside a NAL unit is a typed error, not a shorter output.
    @Test func truncatedAVCCThrows() throws {
        let whole = try FormatConversion.annexBToAVCC(Fixture.baselineCAVLC.bytes()[...])
        let cut = Array(whole.bytes.dropLast(3))
        #expect(throws: H264Error.self) {
            try FormatConversion.avccToAnnexB(configuration: whole.configuration, read: Self.reader(cut, size: 64), write: { _ in })
        }
    }
}
