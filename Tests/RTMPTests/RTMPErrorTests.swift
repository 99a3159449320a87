import FLV
import H264
@testable import RTMP
import Testing

@Suite struct RTMPErrorTests {
    /// One reference wide, as `H264Error`: a typed `throws(RTMPError)` moves one word.
    @Test func errorIsOneWord() {
        #expect(MemoryLayout<RTMPError>.size == MemoryLayout<Int>.size)
        #expect(MemoryLayout<RTMPError?>.size == MemoryLayout<Int>.size)
    }

    /// A protocol fault is the module's own code, with its reason; equality is by code.
    @Test func protocolFaultIsRTMPCode() {
        #expect(throws: RTMPError(.protocolViolation, "any reason")) {
            try RTMPHandshake.c2(fromS0S1: [6] + [UInt8](repeating: 0, count: 1536))
        }
        do {
            _ = try RTMPHandshake.c2(fromS0S1: [6][...])
            Issue.record("handshake version 6 accepted")
        } catch {
            #expect(error.reason.contains("version 6"))
            #expect(error.description.hasPrefix("RTMPError.protocolViolation: "))
        }
    }

    /// A sample FLV cannot frame keeps the FLV error behind the RTMP one, and the core's error
    /// behind that: `underlying(as:)` finds either along the chain.
    @Test func flvErrorIsUnderlying() {
        let core = H264Error.invalid(.lengthPastEnd, "NAL length 9, 1 byte left")
        let flv = FLVError.h264(core, "sample at 40 ms")
        let error = RTMPError.wrapping(flv, as: .invalidArgument)
        #expect(error.code == .invalidArgument)
        #expect(error.reason == "h264: sample at 40 ms: lengthPastEnd: NAL length 9, 1 byte left")
        #expect(error.underlying(as: FLVError.self) == flv)
        #expect(error.underlying(as: H264Error.self) == core)
        #expect(error.underlying(as: RTMPError.self) == nil)
    }

    /// The core's error is wrapped the one way, as in every module: code `h264`.
    @Test func coreErrorIsWrappedAsH264() {
        let error = RTMPError.h264(.truncated(), "no access unit")
        #expect(error.code == .h264)
        #expect(error.description == "RTMPError.h264: no access unit: truncated: input ended early")
        #expect((error.underlying as? H264Error)?.code == .truncated)
        #expect(error == RTMPError(.h264, "another reason") && error != RTMPError(.io, "no access unit"))
    }
}
