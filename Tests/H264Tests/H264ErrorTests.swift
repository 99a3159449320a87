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
        #expect(error.description == "H264Error.limitExceeded: too many")
        #expect(error == H264Error(.limitExceeded, "another reason"))
        #expect(error != H264Error(.truncated, "too many"))
        #expect(Set([error, H264Error(.limitExceeded, "x"), .truncated()]).count == 2)
    }
}
