import H264
import MP4
import Testing

@Suite struct MP4ErrorTests {
    /// One reference wide, as `H264Error`; the core's error survives in `underlying`.
    @Test func errorIsOneWordAndKeepsItsCause() {
        #expect(MemoryLayout<MP4Error>.size == MemoryLayout<Int>.size)
        let error = MP4Error(.invalidDecoderConfiguration, "avcC", underlying: .truncated())
        #expect(error.code == .invalidDecoderConfiguration && error.reason == "avcC")
        #expect(error.underlying?.code == .truncated)
    }
}
