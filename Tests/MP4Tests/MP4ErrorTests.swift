import H264
import MP4
import Testing

@Suite struct MP4ErrorTests {
    /// One reference wide, as `H264Error`; equality by code; the core's error survives in
    /// `underlying`.
    @Test func errorIsOneWordAndKeepsItsCause() {
        #expect(MemoryLayout<MP4Error>.size == MemoryLayout<Int>.size)
        let error = MP4Error.wrapping(H264Error.truncated(), as: .invalidDecoderConfiguration, "avcC")
        #expect(error.code == .invalidDecoderConfiguration && error.reason == "avcC: truncated: input ended early")
        #expect(error.underlying(as: H264Error.self)?.code == .truncated)
        #expect(error == MP4Error(.invalidDecoderConfiguration, "another reason"))
        #expect(error != MP4Error(.h264, "avcC"))
    }

    /// A core error is wrapped the one way, whatever its code (an avcC record's own code was
    /// once turned into `invalidDecoderConfiguration` here; the call sites that parse avcC
    /// records say so themselves now).
    @Test func coreErrorIsWrappedAsH264() {
        let error = MP4Error.h264(H264Error(.invalidDecoderConfiguration, "configurationVersion 0"), "sample 3")
        #expect(error.code == .h264)
        #expect(error.description == "MP4Error.h264: sample 3: invalidDecoderConfiguration: configurationVersion 0")
        #expect(error.underlying(as: H264Error.self) == H264Error(.invalidDecoderConfiguration, ""))
    }
}
