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

    /// An error of the core inside a tag keeps the core's error behind the FLV one.
    @Test func coreErrorIsUnderlying() {
        let core = H264Error.invalid(.forbiddenBitSet, "forbidden_zero_bit = 1")
        let error = FLVError.bitstream(core, "video tag at 40 ms")
        #expect(error.code == .invalidBitstream)
        #expect(error.underlying == core)
        #expect(error.underlying?.reason == "forbidden_zero_bit = 1")
    }
}
