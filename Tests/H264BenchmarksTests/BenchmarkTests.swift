import Foundation
import H264Fixtures
import Testing
@testable import H264Benchmarks
import H264
import TestSupport

/// The benchmark executable: its keys, its measurements on a generated stream, its allocation
/// count, and a run of the built executable.
@Suite struct BenchmarkTests {
    @Test func benchJSONHasTheKeys() throws {
        #expect(BenchCommand.measurements.map(\.key) == ["memcpy_gbps", "memcpy_1500_gbps", "split_batch_gbps", "split_streaming_gbps",
                                                        "split_streaming_whole_gbps", "split_streaming_1440_gbps",
                                                        "split_streaming_184_gbps", "annexb_to_avcc_gbps", "rbsp_gbps", "access_units_gbps",
                                                        "access_units_streaming_gbps", "parse_headers_gbps", "check_webrtc_gbps", "edit_for_hls_gbps",
                                                        "slice_headers_per_s", "slice_headers_reused_per_s", "ts_mux_gbps", "ts_demux_gbps",
                                                        "rtp_packetize_gbps",
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

    /// The benchmark's allocation count sees Swift heap allocations, and only allocations.
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

    /// `H264Benchmarks --json --only ...` prints one object with exactly the measurements
    /// asked for, each a positive figure, and the input's size (a tiny run of the built
    /// executable). The slice headers come from a fixture (`--slice-file`): the generated
    /// stream's slices are random bytes after their first, which seldom make a header that
    /// parses, and the corpus's default file is not there in every checkout.
    @Test(.enabled(if: Support.benchmarks != nil, "needs the built H264Benchmarks executable"))
    func benchRunsEveryMeasurement() throws {
        let keys = ["access_units_gbps", "parse_headers_gbps", "slice_headers_per_s"]
        let sliceFile = try Support.temporaryFile(Fixture.slices4.bytes(), name: "slices-4.264")
        defer { try? FileManager.default.removeItem(atPath: sliceFile) }
        let run = try Support.run(try #require(Support.benchmarks), ["--size-mb", "1", "--repetitions", "1", "--json", "--only", keys.joined(separator: ","),
                                                                      "--slice-file", sliceFile])
            .checked("H264Benchmarks")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)")
        #expect(Set(object.keys) == Set(keys + ["input_bytes", "slice_file"]))
        #expect(object["slice_file"] as? String == sliceFile)
        for key in keys {
            let value = try #require(object[key] as? Double, "\(key) in \(run.output)")
            #expect(value > 0 && value.isFinite, "\(key) = \(value)")
        }
        let inputBytes = try #require(object["input_bytes"] as? Int)
        #expect(inputBytes >= 1 << 20 && inputBytes < 2 << 20, "a 1 MiB stream: \(inputBytes) bytes")
        // The counter is linked into this executable (the shipped h264 has none: CLIHelpTests).
        #expect(Support.readFile(try #require(Support.benchmarks)).contains(Array("h264_allocation_counting".utf8)))
    }

    /// Malformed numbers for each numeric option: exit status 1 and one line on stderr, never
    /// a signal; `--mtu` sets the RTP measurements' packet size.
    @Test(.enabled(if: Support.benchmarks != nil, "needs the built H264Benchmarks executable"))
    func malformedOptionsAreRejected() throws {
        let benchmarks = try #require(Support.benchmarks)
        for option in ["--size-mb", "--repetitions", "--mtu"] {
            for value in ["", "abc", "-1", "0", "99999999999999999999"] {
                var args = ["--only", "memcpy_gbps", option, value]
                for (other, small) in [("--size-mb", "1"), ("--repetitions", "1")] where other != option { args += [other, small] }
                let run = try Support.run(benchmarks, args, timeout: 60)
                #expect(!run.signalled && run.status == 1, "\(option) '\(value)': \(run.status)")
                #expect(run.stderr.split(separator: "\n").count == 1, "\(option) '\(value)': \(run.stderr)")
            }
        }
        let run = try Support.run(benchmarks, ["--only", "rtp_packetize_gbps", "--size-mb", "1", "--repetitions", "1", "--mtu", "300",
                                               "--json"], timeout: 60).checked("H264Benchmarks --mtu 300")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)")
        #expect((object["rtp_packetize_gbps"] as? Double).map { $0 > 0 } == true, "\(run.output)")
    }
}
