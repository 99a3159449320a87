@testable import FLV
import H264
import Testing

@Suite struct FLVErrorTests {
    /// One reference wide, as `H264Error`: a typed `throws(FLVError)` moves one word.
    @Test func errorIsOneWord() {
        #expect(MemoryLayout<FLVError>.size == MemoryLayout<Int>.size)
        #expect(MemoryLayout<FLVError?>.size == MemoryLayout<Int>.size)
    }

    /// A container fault is the module's own code; the contents survive behind the reference;
    /// equality is by code.
    @Test func containerFaultIsFLVCode() {
        let bytes: [UInt8] = [0x46, 0x4C, 0x58, 1, 1, 0, 0, 0, 9, 0, 0, 0, 0]
        #expect(throws: FLVError(.invalidContainer, "any reason")) { try FLVReader(bytes[...]) }
        // Bytes missing are the module's truncated, mapped from the shared reader's failure.
        #expect(throws: FLVError(.truncated, "any reason")) { try FLVReader([0x46, 0x4C, 0x56, 1, 1, 0, 0][...]) }
        let error = FLVError.invalid(.invalidContainer, "no FLV signature")
        #expect(error.reason == "no FLV signature")
        #expect(error.description == "FLVError.invalidContainer: no FLV signature")
        #expect(error != FLVError(.truncated, "no FLV signature"))
    }

    /// An error of the core inside a tag is wrapped the one way: code `h264`, the core's error
    /// in `underlying`, its code and reason after the context.
    @Test func coreErrorIsWrappedAsH264() {
        let core = H264Error.invalid(.forbiddenBitSet, "forbidden_zero_bit = 1")
        let error = FLVError.h264(core, "video tag at 40 ms")
        #expect(error.code == .h264)
        #expect(error.reason == "video tag at 40 ms: forbiddenBitSet: forbidden_zero_bit = 1")
        #expect(error.description == "FLVError.h264: video tag at 40 ms: forbiddenBitSet: forbidden_zero_bit = 1")
        #expect(error.underlying(as: H264Error.self) == core)
        #expect(error.underlying(as: H264Error.self)?.reason == "forbidden_zero_bit = 1")
        #expect(error.underlying(as: FLVError.self) == nil)
        #expect(error == FLVError(.h264, "another reason"))
    }
}
