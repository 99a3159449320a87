import Foundation
import Testing
@testable import H264CLI
import H264

/// `h264 nals` and `h264 trace` list a damaged stream past its invalid NAL units.
@Suite struct NALListingTests {
    /// SPS, a NAL unit with forbidden_zero_bit set (at byte 16), then an AUD.
    static let stream: [UInt8] = [
        0, 0, 0, 1, 0x67, 0x42, 0xE0, 0x0A, 0x96, 0x52, 0x85, 0x89, 0xC8,
        0, 0, 1, 0xE5, 0x88, 0x84,
        0, 0, 1, 0x09, 0x10,
    ]

    @Test func invalidNALUnitsAreListedInPlace() throws {
        let entries = try AnnexB.entries(Self.stream[...], leadingData: .reject)
        try #require(entries.count == 3)
        if case .unit(let sps) = entries[0] { #expect(sps.type == .sps) } else { Issue.record("entry 0: \(entries[0])") }
        if case .invalid(let offset, let error) = entries[1] {
            #expect(offset == 16)
            #expect(error.code == .forbiddenBitSet)
        } else { Issue.record("entry 1: \(entries[1])") }
        if case .unit(let aud) = entries[2] { #expect(aud.type == .accessUnitDelimiter) } else { Issue.record("entry 2: \(entries[2])") }
    }

    @Test func leadingDataIsStillFatalWhenRejected() throws {
        let bytes: [UInt8] = [7, 7] + Self.stream
        #expect(throws: H264Error.self) { try AnnexB.entries(bytes[...], leadingData: .reject) }
        #expect(try AnnexB.entries(bytes[...], leadingData: .skip).count == 3)
    }

    @Test(.enabled(if: CLIRobustnessTests.binary != nil, "the h264 executable is not built"))
    func nalsAndTraceGoOnPastAnInvalidNALUnit() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("h264-listing-\(UUID().uuidString).264").path
        try Data(Self.stream).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }

        let nals = try CLIRobustnessTests.run(["nals", path])
        #expect(nals.status == 0 && nals.stderr.isEmpty)
        let lines = nals.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)  // the column header and three entries
        #expect(lines.dropFirst().map { $0.split(separator: " ").first.map(String.init) ?? "" } == ["4", "16", "22"])
        #expect(lines.contains { $0.contains("invalid NAL unit: forbiddenBitSet") })
        #expect(lines.last?.hasSuffix("Access unit delimiter") == true)

        let json = try CLIRobustnessTests.run(["nals", path, "--json"])
        #expect(json.output.split(separator: "\n").dropFirst().first == #"{"offset":16,"error":"forbiddenBitSet","reason":"forbidden_zero_bit is 1"}"#)

        let trace = try CLIRobustnessTests.run(["trace", path])
        #expect(trace.status == 0 && trace.stderr.isEmpty)
        #expect(trace.output.contains("# invalid NAL unit at 16: forbiddenBitSet"))
        #expect(trace.output.contains("# NAL 1 at 22: "))  // the AUD, traced after it
        #expect(trace.output.contains("primary_pic_type = 0"))
    }
}
