import H264
import Testing

@Suite struct H264ErrorTests {
    /// A typed `throws(H264Error)` moves the error by value on every throwing call: it is one
    /// reference, the contents live behind it (48 bytes by value before).
    @Test func errorIsOneWord() {
        #expect(MemoryLayout<H264Error>.size == MemoryLayout<Int>.size)
        #expect(MemoryLayout<H264Error?>.size == MemoryLayout<Int>.size)
    }

    /// The contents survive the move behind a reference; equality and hashing are by code.
    @Test func contentsAndEquality() {
        let line = #line + 1
        let error = H264Error.invalid(.limitExceeded, "too many")
        #expect(error.code == .limitExceeded)
        #expect(error.reason == "too many")
        #expect(error.line == line)
        #expect(error.file.hasSuffix("H264ErrorTests.swift"))
        #expect(error.underlying == nil)
        #expect(error.description == "H264Error.limitExceeded: too many")
        #expect(error == H264Error(.limitExceeded, "another reason"))
        #expect(error != H264Error(.truncated, "too many"))
        #expect(Set([error, H264Error(.limitExceeded, "x"), .truncated()]).count == 2)
    }

    /// The factories of the family's shell and of the core keep the caller's place, not the
    /// shell's.
    @Test func factoriesRecordTheCallersPlace() {
        let line = #line + 1
        let errors = [H264Error.truncated(), .outOfRange("log2_max_frame_num_minus4", 13), H264Error(.unsupported, "x")]
        #expect(errors.map(\.line) == [line, line, line])
        #expect(errors.allSatisfy { $0.file.hasSuffix("H264ErrorTests.swift") })
        #expect(errors[1].description == "H264Error.valueOutOfRange: log2_max_frame_num_minus4 = 13 is out of range")
    }

    /// A family member caught as `any CodedError` prints its code and reason: the one path a
    /// caller handling every module takes.
    @Test func caughtAsAnyCodedError() {
        do {
            throw H264Error.invalid(.missingStartCode, "first bytes are 47 40")
        } catch let error as any CodedError {
            #expect("\(error.code): \(error.reason)" == "missingStartCode: first bytes are 47 40")
        } catch {
            Issue.record("not a CodedError: \(error)")
        }
    }
}
