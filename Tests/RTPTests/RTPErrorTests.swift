import H264
import RTP
import Testing

@Suite struct RTPErrorTests {
    /// One reference wide, as `H264Error`: a typed `throws(RTPError)` moves one word.
    @Test func errorIsOneWord() {
        #expect(MemoryLayout<RTPError>.size == MemoryLayout<Int>.size)
        #expect(MemoryLayout<RTPError?>.size == MemoryLayout<Int>.size)
    }

    /// A malformed packet is the module's own code, with its reason and place; equality by code.
    @Test func packetFaultIsRTPCode() {
        do {
            _ = try RTPPacket(parsing: [0x40, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x41][...])
            Issue.record("RTP version 1 accepted")
        } catch {
            #expect(error.code == .invalidPacket)
            #expect(error.description == "RTPError.invalidPacket: RTP version 1, expected 2")
            #expect(error.file == "RTP/RTPHeader.swift")
            #expect(error.underlying == nil)
            #expect(error == RTPError(.invalidPacket, "another reason") && error != RTPError(.truncated, error.reason))
        }
    }

    /// The core's error (a parameter set of `sprop-parameter-sets` the core refuses) is wrapped
    /// the one way: code `h264`, the core's error in `underlying`.
    @Test func coreErrorIsWrappedAsH264() {
        let error = RTPError.h264(.invalid(.emptyNALUnit, "no bytes"), "sprop-parameter-sets")
        #expect(error.code == .h264)
        #expect(error.reason == "sprop-parameter-sets: emptyNALUnit: no bytes")
        #expect(error.underlying(as: H264Error.self)?.code == .emptyNALUnit)
    }
}
