import Foundation
import Testing
@testable import H264CLI
import H264
import TestSupport

@Suite struct ConvertCommandTests {
    static let stream: [UInt8] = [
        0, 0, 0, 1, 0x09, 0x10,
        0, 0, 0, 1, 0x67, 0x42, 0xE0, 0x0A, 0x96, 0x52, 0x85, 0x89, 0xC8,
        0, 0, 0, 1, 0x68, 0xC9, 0x23, 0x88,
        0, 0, 0, 1, 0x65, 0x88, 0x84, 0x21,
        0, 0, 0, 1, 0x09, 0x30,
        0, 0, 1, 0x41, 0x9A, 0x02,
        0, 0, 0, 1, 0x09, 0x10,
        0, 0, 1, 0x65, 0x88, 0x84, 0x22,
    ]

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("h264-convert-\(getpid())-\(name)").path
    }

    @Test(arguments: [1, 2, 4])
    func roundTripThroughFiles(_ lengthSize: Int) throws {
        let input = Self.temporary("in-\(lengthSize).264"), avcc = Self.temporary("out-\(lengthSize).avcc")
        let config = Self.temporary("out-\(lengthSize).avcC"), back = Self.temporary("back-\(lengthSize).264")
        defer { for p in [input, avcc, config, back] { try? FileManager.default.removeItem(atPath: p) } }
        try Output.write(Self.stream, to: input)
        var args = Arguments([input, avcc, "--to", "avcc", "--length-size", "\(lengthSize)", "--avcc-config", config])
        try ConvertCommand.run(&args)
        let record = try AVCDecoderConfigurationRecord(parsing: try Input.readAll(config))
        #expect(record.nalUnitLengthSize.byteCount == lengthSize)
        #expect(record.parameterSetCount == 2)
        let samples = try AVCC.split(try Input.readAll(avcc), lengthSize: record.nalUnitLengthSize)
        #expect(samples.map(\.type) == [.accessUnitDelimiter, .idrSlice, .accessUnitDelimiter, .slice, .accessUnitDelimiter, .idrSlice])

        args = Arguments([avcc, back, "--to", "annexb", "--avcc-config", config])
        try ConvertCommand.run(&args)
        let units = try AnnexB.split(try Input.readAll(back))
        #expect(units.map(\.type) == [.accessUnitDelimiter, .sps, .pps, .idrSlice, .accessUnitDelimiter, .slice,
                                      .accessUnitDelimiter, .sps, .pps, .idrSlice])
    }

    @Test func keepParameterSetsAndErrors() throws {
        let input = Self.temporary("k.264"), avcc = Self.temporary("k.avcc"), config = Self.temporary("k.avcC")
        defer { for p in [input, avcc, config] { try? FileManager.default.removeItem(atPath: p) } }
        try Output.write(Self.stream, to: input)
        var args = Arguments([input, avcc, "--to", "avcc", "--avcc-config", config, "--keep-parameter-sets"])
        try ConvertCommand.run(&args)
        #expect(try AVCC.split(try Input.readAll(avcc)).count == 8)
        args = Arguments([input, avcc, "--to", "avcc", "--avcc-config", config, "--length-size", "3"])
        #expect(throws: H264Error(.invalidLengthSize, "")) { try ConvertCommand.run(&args) }
        args = Arguments([input, avcc, "--to", "mkv", "--avcc-config", config])
        #expect(throws: CLIError.self) { try ConvertCommand.run(&args) }
        args = Arguments([input, avcc, "--to", "avcc"])
        #expect(throws: CLIError.self) { try ConvertCommand.run(&args) }
    }

    @Test func benchJSONHasTheKeys() throws {
        #expect(BenchCommand.measurements.map(\.key) == ["memcpy_gbps", "memcpy_1500_gbps", "split_batch_gbps", "split_streaming_gbps",
                                                        "split_streaming_whole_gbps", "split_streaming_1440_gbps",
                                                        "split_streaming_184_gbps", "annexb_to_avcc_gbps", "rbsp_gbps", "access_units_gbps",
                                                        "access_units_streaming_gbps", "parse_headers_gbps", "check_webrtc_gbps", "edit_for_hls_gbps",
                                                        "slice_headers_per_s", "slice_headers_reused_per_s", "rtp_packetize_gbps",
                                                        "rtp_depacketize_gbps", "bgra_to_i420_mpps"])
        let stream = SyntheticStream.make(bytes: 1 << 20)
        #expect(try AnnexB.split(stream).count > 3)
        // The piecewise memcpy copies every byte, the last piece short.
        let part = stream.prefix(3 * 1500 + 11)
        var copied = [UInt8](repeating: 1, count: part.count + 100)
        BenchCommand.copy(part, into: &copied, piece: 1500)
        #expect(copied.prefix(part.count) == part && copied.dropFirst(part.count).allSatisfy { $0 == 1 })
        // Every measurement sees the same NAL payloads.
        for chunk in [1500, 1440, 184, stream.count] {
            #expect(try BenchCommand.splitBatch(stream[...]) == (try BenchCommand.splitStreaming(stream[...], chunk: chunk)))
        }
        // The parsing measurements run on it (its slice headers are random bits: errors are counted).
        #expect(ParsingBench.accessUnits(stream[...]) > 0)
        #expect(ParsingBench.accessUnitsStreaming(stream[...]) > 0)
        #expect(try ParsingBench.parseHeaders(stream[...]) > 0)
        #expect(ParsingBench.headerUnits(stream).contains { $0.type == .sps })
        #expect(DeliveryBench.check(stream[...]) > 0)
        #expect(try DeliveryBench.fix(stream[...], plan: DeliveryBench.hlsPlan(stream[...])) > 0)
    }

    /// The allocation count of `h264 bench` sees Swift heap allocations, and only allocations.
    @Test(.enabled(if: AllocationBench.isAvailable, "a sanitizer build: the sanitizer owns the allocator"))
    func benchCountsAllocations() throws {
        let n = Int.random(in: 100...200)
        var arrays: [[Int]] = []
        let counted = AllocationBench.count {
            // One buffer each, plus the outer array's growth. (No #expect inside: its own
            // allocations would count.)
            for i in 0..<n { arrays.append([i, i]) }
        }
        #expect(arrays.count == n)
        #expect(counted > n && counted < n + 20, "\(counted) allocations for \(n) arrays")
        var sum = 0
        #expect(AllocationBench.count { for i in 0..<n { sum &+= i } } == 0)
        #expect(sum == n * (n - 1) / 2)
    }

    /// `h264 bench --json --only ...` prints one object with exactly the measurements asked
    /// for, each a positive figure, and the input's size (a tiny run of the built tool).
    @Test(.enabled(if: Support.h264 != nil, "needs the built h264 tool"))
    func benchRunsEveryMeasurement() throws {
        let keys = ["access_units_gbps", "parse_headers_gbps", "slice_headers_per_s"]
        let run = try Support.run(try #require(Support.h264), ["bench", "--size-mb", "1", "--repetitions", "1", "--json", "--only", keys.joined(separator: ",")])
            .checked("h264 bench")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)")
        #expect(Set(object.keys) == Set(keys + ["input_bytes", "slice_file"]))
        for key in keys {
            let value = try #require(object[key] as? Double, "\(key) in \(run.output)")
            #expect(value > 0 && value.isFinite, "\(key) = \(value)")
        }
        let inputBytes = try #require(object["input_bytes"] as? Int)
        #expect(inputBytes >= 1 << 20 && inputBytes < 2 << 20, "a 1 MiB stream: \(inputBytes) bytes")
    }
}
