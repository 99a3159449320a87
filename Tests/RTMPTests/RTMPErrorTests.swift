import FLV
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

    /// A sample FLV cannot frame keeps the FLV error behind the RTMP one.
    @Test func flvErrorIsUnderlying() {
        let flv = FLVError(.invalidArgument, "composition time does not fit 24 bits")
        let error = RTMPError.argument(flv)
        #expect(error.code == .invalidArgument)
        #expect((error.underlying as? FLVError) == flv)
    }
}
