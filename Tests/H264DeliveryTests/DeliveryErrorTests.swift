import FLV
import H264
import H264Delivery
import Testing

@Suite struct DeliveryErrorTests {
    /// One reference wide, as `H264Error`: a typed `throws(DeliveryError)` moves one word.
    @Test func errorIsOneWord() {
        #expect(MemoryLayout<DeliveryError>.size == MemoryLayout<Int>.size)
        #expect(MemoryLayout<DeliveryError?>.size == MemoryLayout<Int>.size)
    }

    /// An FLV file that ends inside a tag: the FLV reader's error, wrapped as `flv`.
    @Test func flvReaderErrorIsWrappedAsFLV() {
        var checker = FLVStreamChecker(profile: .rtmp)
        let header: [UInt8] = [0x46, 0x4C, 0x56, 1, 1, 0, 0, 0, 9, 0, 0, 0, 0]
        let cut: [UInt8] = [9, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0]  // a video tag header, its body missing
        do {
            try checker.append((header + cut)[...])
            try checker.finish()
            Issue.record("an FLV file cut inside a tag was accepted")
        } catch {
            #expect(error.code == .flv)
            #expect(error.underlying(as: FLVError.self)?.code == .truncated)
            #expect(error.description.hasPrefix("DeliveryError.flv: truncated: "))
        }
    }

    /// A sequence header that is not an avcC record: the FLV reader refuses it with the core's
    /// error behind its own, and the checker wraps that as `flv`; the core's error is found
    /// along the chain.
    @Test func chainReachesTheCoresError() throws {
        var checker = FLVStreamChecker(profile: .rtmp)
        var writer = FLVWriter()
        try writer.writeTag(FLVTag(type: .video, timestamp: 0, body: FLVVideoPacket.sequenceHeader([0, 0, 0, 1, 0x67][...]).bytes[...]))
        let error = #expect(throws: DeliveryError(.flv, "")) { try checker.append(writer.bytes[...]) }
        #expect(error?.underlying(as: FLVError.self)?.code == .invalidDecoderConfiguration)
        #expect(error?.underlying(as: H264Error.self)?.code == .invalidDecoderConfiguration)
    }

    /// The core's error is wrapped the one way, as in every module: code `h264`.
    @Test func coreErrorIsWrappedAsH264() {
        let error = DeliveryError.h264(.invalid(.invalidArgument, "log2_max_frame_num_minus4 cannot grow"), "header edit")
        #expect(error.code == .h264)
        #expect(error.description == "DeliveryError.h264: header edit: invalidArgument: log2_max_frame_num_minus4 cannot grow")
        #expect(error == DeliveryError(.h264, "another reason") && error != DeliveryError(.flv, error.reason))
    }
}
