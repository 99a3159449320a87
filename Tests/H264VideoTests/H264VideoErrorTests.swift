import H264
import H264Video
import Testing

@Suite struct H264VideoErrorTests {
    /// One reference wide, as `H264Error`: a typed `throws(H264VideoError)` moves one word.
    @Test func errorIsOneWord() {
        #expect(MemoryLayout<H264VideoError>.size == MemoryLayout<Int>.size)
        #expect(MemoryLayout<H264VideoError?>.size == MemoryLayout<Int>.size)
    }

    /// The module's own code, its reason and description; equality by code.
    @Test func y4mFaultIsTheModulesCode() {
        do {
            _ = try Y4MHeader(line: Array("YUV4MPEG2 W8 H2 Cmono".utf8))
            Issue.record("a mono Y4M header was accepted")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.description.hasPrefix("H264VideoError.unsupported: Y4M colour space 'mono'"))
            #expect(error.file == "H264Video/Y4MHeader.swift")
            #expect(error == H264VideoError(.unsupported, "another reason"))
            #expect(error != H264VideoError(.invalidArgument, error.reason))
        }
    }

    /// The core's error (a frame `VideoFrame` refuses) is wrapped the one way: code `h264`.
    @Test func coreErrorIsWrappedAsH264() {
        let error = H264VideoError.h264(.invalid(.invalidArgument, "plane 0 has 3 bytes, 8 needed"), "raw frame 0")
        #expect(error.code == .h264)
        #expect(error.reason == "raw frame 0: invalidArgument: plane 0 has 3 bytes, 8 needed")
        #expect(error.underlying(as: H264Error.self)?.code == .invalidArgument)
    }
}
