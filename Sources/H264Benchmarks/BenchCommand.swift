import CommandLineSupport
import Foundation
import H264

/// The benchmark executable's one command: throughput of the framing layer against `memcpy` of
/// the same buffer.
enum BenchCommand {
    static let usage = """
    usage: swift run -c release H264Benchmarks [FILE] [--json] [--size-mb N] [--repetitions N]
                                               [--only KEYS] [--slice-file F] [--mtu N]

    Measures, on FILE (an Annex-B stream) or on a generated high-bitrate-like stream of about
    N MB (default 150: random payloads with emulation prevention, NAL units of realistic sizes),
    the throughput in GB/s of: batch Annex-B splitting, streaming splitting in 1,500-byte
    chunks (and in h264-reader's published setups: the whole buffer as one chunk, 1,440- and
    184-byte chunks), Annex-B -> AVCC conversion, RBSP extraction, the access-unit layer (boundaries,
    keyframes, POC, timestamps; whole stream, and streaming in 1 MiB chunks), parsing every NAL header, SPS, PPS, SEI and slice header,
    RTP packetising and depacketising (MTU 1200, --mtu), MPEG-TS muxing and demuxing, and memcpy of the same buffer; slice headers
    parsed per second; BGRA -> I420 conversion in megapixels per second (1280x720, BT.601);
    heap allocations per NAL unit (and per access unit) of splitting, conversion, the
    access-unit layer and RTP packetising, counted by the C allocator's entry points that this
    executable interposes (CAllocationCounter), in a pass after a warm-up pass. Each is run several times; the best run counts. Times are
    this thread's CPU time, so that a loaded machine slows every figure, memcpy's included,
    alike. Build with -c release to measure.

      --json            one JSON object: memcpy_gbps, memcpy_1500_gbps (memcpy in 1,500-byte
                        pieces: the ceiling of a job that writes as it goes),
                        split_batch_gbps, split_streaming_gbps, split_streaming_whole_gbps,
                        split_streaming_1440_gbps, split_streaming_184_gbps,
                        annexb_to_avcc_gbps, rbsp_gbps,
                        access_units_gbps, access_units_streaming_gbps, parse_headers_gbps,
                        slice_headers_per_s, slice_headers_reused_per_s (the same
                        headers parsed into one kept header: SliceHeader.parse(_:context:into:)),
                        rtp_packetize_gbps, rtp_depacketize_gbps, ts_mux_gbps and ts_demux_gbps
                        (GB/s of transport stream bytes written, or read to access units),
                        bgra_to_i420_mpps,
                        allocations_per_nal and allocations_per_access_unit (objects keyed by
                        measurement; slice_headers: per slice header of the slice file;
                        slice_headers_reused: the same, parsed into one header),
                        setup_ns and setup_allocations (objects keyed by type: creating a
                        per-stream parser, store, editor or depacketiser, one first call, and
                        dropping it; what a service pays per stream and a fuzz target per input),
                        nal_units, slice_file_slices, input_bytes, slice_file
      --size-mb N       size of the generated stream (ignored with FILE)
      --repetitions N   runs per measurement (default 5)
      --only KEYS       only these measurements (comma-separated JSON keys)
      --slice-file F    the stream for slice_headers_per_s (default
                        ../shared/corpus/openh264/jm_1080p_allslice.264 from the current
                        directory when present, else the measured stream)
    """

    /// What a measurement is given: the stream and the slice-header stream's NAL units.
    struct Input: Sendable {
        let stream: [UInt8]
        let sliceUnits: [NALUnit]
        /// The RTP measurements' MTU.
        var mtu = 1200
    }

    /// One measurement: a JSON key, a label, and either the work over the whole stream (timed
    /// here; it returns a number that depends on its result, so that nothing is optimised
    /// away) or a rate the measurement times itself (higher is better) with its unit.
    struct Measurement: Sendable {
        enum Kind: Sendable {
            case throughput(@Sendable (ArraySlice<UInt8>) throws -> Int)
            case rate(unit: String, @Sendable (Input) throws -> Double)
        }
        let key: String
        let label: String
        let kind: Kind

        init(key: String, label: String, _ run: @escaping @Sendable (ArraySlice<UInt8>) throws -> Int) {
            self.key = key
            self.label = label
            kind = .throughput(run)
        }

        init(key: String, label: String, unit: String, rate: @escaping @Sendable (Input) throws -> Double) {
            self.key = key
            self.label = label
            kind = .rate(unit: unit, rate)
        }
    }

    /// The measurements, in output order. Adding one is adding one line here.
    static let measurements: [Measurement] = [
        Measurement(key: "memcpy_gbps", label: "memcpy", memcpyOnce),
        Measurement(key: "memcpy_1500_gbps", label: "memcpy (1500 B pieces)") { memcpyInPieces($0, piece: 1500) },
        Measurement(key: "split_batch_gbps", label: "Annex-B split (batch)", splitBatch),
        Measurement(key: "split_streaming_gbps", label: "Annex-B split (streaming, 1500 B)") { try splitStreaming($0, chunk: 1500) },
        Measurement(key: "split_streaming_whole_gbps", label: "Annex-B split (streaming, one chunk)") {
            try splitStreaming($0, chunk: $0.count)
        },
        Measurement(key: "split_streaming_1440_gbps", label: "Annex-B split (streaming, 1440 B)") { try splitStreaming($0, chunk: 1440) },
        Measurement(key: "split_streaming_184_gbps", label: "Annex-B split (streaming, 184 B)") { try splitStreaming($0, chunk: 184) },
        Measurement(key: "annexb_to_avcc_gbps", label: "Annex-B -> AVCC", annexBToAVCC),
        Measurement(key: "rbsp_gbps", label: "RBSP extraction", rbspExtraction),
        Measurement(key: "access_units_gbps", label: "access units (POC, timestamps)", ParsingBench.accessUnits),
        Measurement(key: "access_units_streaming_gbps", label: "access units (streaming, 1 MiB chunks)",
                    ParsingBench.accessUnitsStreaming),
        Measurement(key: "parse_headers_gbps", label: "parse NAL/SPS/PPS/SEI/slice headers", ParsingBench.parseHeaders),
        Measurement(key: "check_webrtc_gbps", label: "check --profile webrtc", DeliveryBench.check),
        Measurement(key: "edit_for_hls_gbps", label: "edit --for hls (check + fix)") { stream in
            try DeliveryBench.fix(stream, plan: DeliveryBench.hlsPlan(stream))
        },
        Measurement(key: "slice_headers_per_s", label: "slice headers", unit: "/s") { try ParsingBench.sliceHeadersPerSecond($0.sliceUnits) },
        Measurement(key: "slice_headers_reused_per_s", label: "slice headers, parsed into one", unit: "/s") {
            try ParsingBench.reusedSliceHeadersPerSecond($0.sliceUnits)
        },
        Measurement(key: "ts_mux_gbps", label: "MPEG-TS mux", unit: "GB/s") {
            try TSBench.muxGBps(stream: $0.stream, seconds: 0.3)
        },
        Measurement(key: "ts_demux_gbps", label: "MPEG-TS demux", unit: "GB/s") {
            try TSBench.demuxGBps(stream: $0.stream, seconds: 0.3)
        },
        Measurement(key: "rtp_packetize_gbps", label: "RTP packetise", unit: "GB/s") {
            try RTPBench.packetizeGBps(stream: $0.stream, mtu: $0.mtu, seconds: 0.3)
        },
        Measurement(key: "rtp_depacketize_gbps", label: "RTP depacketise", unit: "GB/s") {
            try RTPBench.depacketizeGBps(stream: $0.stream, mtu: $0.mtu, seconds: 0.3)
        },
        Measurement(key: "bgra_to_i420_mpps", label: "BGRA -> I420 (1280x720)", unit: "Mpx/s") { _ in
            try EncodingBench.bgraToI420MegapixelsPerSecond(iterations: 100)
        },
    ]

    static func run(_ args: inout Arguments) throws {
        let json = args.flag("--json")
        let sizeMB = try args.intOption("--size-mb") ?? 150
        let repetitions = try args.intOption("--repetitions", in: 1...1000) ?? 5
        let only = try args.option("--only").map { Set($0.split(separator: ",").map(String.init)) }
        let sliceFileOption = try args.option("--slice-file")
        let mtu = try args.intOption("--mtu", in: 100...65_535) ?? 1200
        let paths = try args.positionals(min: 0, max: 1)
        guard sizeMB > 0 && sizeMB <= 4096 else { throw CLIError("--size-mb must be 1...4096") }
        let stream = try paths.first.map(readFile) ?? SyntheticStream.make(bytes: sizeMB << 20)
        let defaultSliceFile = "../shared/corpus/openh264/jm_1080p_allslice.264"
        let sliceFile = sliceFileOption ?? (FileManager.default.fileExists(atPath: defaultSliceFile) ? defaultSliceFile : nil)
        let input = Input(stream: stream,
                          sliceUnits: ParsingBench.headerUnits(try sliceFile.map(readFile) ?? stream), mtu: mtu)
        var object = JSONObject()
        if !json { print("input: \(stream.count) bytes, best of \(repetitions)") }
        // Rounds interleave the measurements, so that a change in machine load affects all alike.
        // Throughputs keep the shortest time, rates the highest value.
        var best = measurements.map { m -> Double in
            if case .throughput = m.kind { return .infinity } else { return 0 }
        }
        var sink = 0
        for _ in 0..<repetitions {
            for (k, m) in measurements.enumerated() where only?.contains(m.key) ?? true {
                switch m.kind {
                case .throughput(let run):
                    let (seconds, result) = try time { () throws -> Int in try run(stream[...]) }
                    sink &+= result
                    best[k] = min(best[k], seconds)
                case .rate(_, let rate):
                    best[k] = max(best[k], try rate(input))
                }
            }
        }
        if sink == 42 { print("") }  // keeps the results alive
        let rates = zip(measurements, best).map { m, b -> Double in
            if case .throughput = m.kind { return b > 0 ? Double(stream.count) / b / 1e9 : .infinity }
            return b
        }
        let memcpyRate = measurements.firstIndex { $0.key == "memcpy_gbps" }.map { rates[$0] } ?? 0
        for (k, m) in measurements.enumerated() where only?.contains(m.key) ?? true {
            var unit = "GB/s"
            if case .rate(let u, _) = m.kind { unit = u }
            object.add(dynamicKey: m.key, unit == "/s" ? rates[k].rounded() : (rates[k] * 1000).rounded() / 1000)
            if !json {
                let ratio = memcpyRate > 0 && unit == "GB/s" ? String(format: "%.2fx memcpy", rates[k] / memcpyRate) : ""
                let value = unit == "/s" ? String(format: "%11.0f", rates[k]) : String(format: "%11.3f", rates[k])
                print("\(m.label.padding(toLength: 38, withPad: " ", startingAt: 0)) \(value) \(unit.padding(toLength: 6, withPad: " ", startingAt: 0)) \(ratio)")
            }
        }
        if (only == nil || only!.contains("allocations_per_nal")) && AllocationBench.isAvailable {
            let rows = try AllocationBench.rows(stream: stream, sliceUnits: input.sliceUnits)
            var perNAL = JSONObject()
            var perAU = JSONObject()
            for row in rows {
                let n = Double(row.allocations) / Double(max(row.nalUnits, 1))
                perNAL.add(dynamicKey: row.key, (n * 1000).rounded() / 1000)
                var line = "allocations per NAL unit: \(row.key.padding(toLength: 24, withPad: " ", startingAt: 0))"
                    + String(format: " %8.3f (%d in %d NAL units", n, row.allocations, row.nalUnits)
                if let aus = row.accessUnits {
                    let a = Double(row.allocations) / Double(max(aus, 1))
                    perAU.add(dynamicKey: row.key, (a * 1000).rounded() / 1000)
                    line += String(format: ", %.3f per access unit", a)
                }
                if !json { print(line + ")") }
            }
            object.add("allocations_per_nal", perNAL)
            object.add("allocations_per_access_unit", perAU)
            object.add("nal_units", rows.first?.nalUnits ?? 0)
            object.add("slice_file_slices", rows.last?.nalUnits ?? 0)
        }
        if only == nil || only!.contains("setup_ns") {
            var best: [String: (nanoseconds: Double, allocations: Int)] = [:]
            var order: [String] = []
            for _ in 0..<repetitions {
                for r in try SetupBench.results() {
                    if best[r.key] == nil { order.append(r.key) }
                    best[r.key] = (min(best[r.key]?.nanoseconds ?? .infinity, r.nanoseconds), r.allocations)
                }
            }
            var nanoseconds = JSONObject()
            var allocations = JSONObject()
            for key in order {
                guard let r = best[key] else { continue }
                nanoseconds.add(dynamicKey: key, (r.nanoseconds * 10).rounded() / 10)
                if AllocationBench.isAvailable { allocations.add(dynamicKey: key, r.allocations) }
                if !json {
                    print("setup (create, first use, drop): \(key.padding(toLength: 24, withPad: " ", startingAt: 0))"
                                + String(format: " %9.1f ns, %d allocations", r.nanoseconds, r.allocations))
                }
            }
            object.add("setup_ns", nanoseconds)
            if AllocationBench.isAvailable { object.add("setup_allocations", allocations) }
        }
        object.add("input_bytes", stream.count)
        object.add("slice_file", sliceFile ?? (paths.first ?? "generated"))
        if json { print(object.rendered) }
    }

    /// The bytes of the file at `path`.
    static func readFile(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("cannot read '\(path)'") }
        return [UInt8](data)
    }

    /// Runs `work` once; returns the seconds of this thread's CPU time it took and its result.
    static func time(_ work: () throws -> Int) throws -> (Double, Int) {
        let start = threadCPUNanoseconds()
        let result = try work()
        return ((threadCPUNanoseconds() - start) * 1e-9, result)
    }

    /// This thread's CPU time: on a loaded machine a figure stays what the thread achieved
    /// while it ran, not how long it waited for a core.
    static func threadCPUNanoseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
    }

    // MARK: - The measurements

    nonisolated(unsafe) private static var copyTarget: [UInt8] = []

    static func memcpyOnce(_ stream: ArraySlice<UInt8>) -> Int {
        if copyTarget.count != stream.count { copyTarget = [UInt8](repeating: 1, count: stream.count) }
        copyTarget.withUnsafeMutableBytes { dst in
            stream.withUnsafeBytes { src in _ = memcpy(dst.baseAddress!, src.baseAddress!, src.count) }
        }
        return Int(copyTarget[copyTarget.count / 2])
    }

    /// memcpy of the stream into the same target, 1,500 bytes per call: what a job that writes
    /// its output a NAL unit at a time can reach. For a buffer of hundreds of MB, one memcpy
    /// writes with non-temporal stores; calls of a few KB write through the cache, which reads
    /// each target line first (Docs/Benchmarks.md, "The copy ceiling").
    static func memcpyInPieces(_ stream: ArraySlice<UInt8>, piece: Int) -> Int {
        if copyTarget.count != stream.count { copyTarget = [UInt8](repeating: 1, count: stream.count) }
        copy(stream, into: &copyTarget, piece: piece)
        return Int(copyTarget[copyTarget.count / 2])
    }

    /// Copies `stream` to the start of `target` (at least as long) with one memcpy per `piece` bytes.
    static func copy(_ stream: ArraySlice<UInt8>, into target: inout [UInt8], piece: Int) {
        precondition(target.count >= stream.count && piece > 0)
        target.withUnsafeMutableBytes { dst in
            stream.withUnsafeBytes { src in
                var i = 0
                while i < src.count {
                    let n = min(piece, src.count &- i)
                    _ = memcpy(dst.baseAddress! + i, src.baseAddress! + i, n)
                    i &+= n
                }
            }
        }
    }

    static func splitBatch(_ stream: ArraySlice<UInt8>) throws -> Int {
        var splitter = AnnexB.Splitter(stream, leadingData: .skip)
        var n = 0
        while let unit = try splitter.next() { n &+= unit.count }
        return n
    }

    /// The number of NAL units in `stream`.
    static func splitCount(_ stream: ArraySlice<UInt8>) throws -> Int {
        var splitter = AnnexB.Splitter(stream, leadingData: .skip)
        var n = 0
        while try splitter.next() != nil { n &+= 1 }
        return n
    }

    static func splitStreaming(_ stream: ArraySlice<UInt8>, chunk: Int) throws -> Int {
        var parser = AnnexBStreamParser(leadingData: .skip)
        var n = try feed(&parser, stream, chunk: chunk)
        parser.finish()
        while let unit = try parser.next() { n &+= unit.count }
        return n
    }

    /// Hands `stream` to `parser` in `chunk`-byte chunks, taking the NAL units after each (the
    /// stream is not finished); returns their total size.
    @inline(__always)
    static func feed(_ parser: inout AnnexBStreamParser, _ stream: ArraySlice<UInt8>, chunk: Int) throws -> Int {
        var n = 0
        var i = stream.startIndex
        while i < stream.endIndex {
            let end = min(i + max(chunk, 1), stream.endIndex)
            parser.append(stream[i..<end])
            while let unit = try parser.next() { n &+= unit.count }
            i = end
        }
        return n
    }

    nonisolated(unsafe) private static var avccTarget = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    static func annexBToAVCC(_ stream: ArraySlice<UInt8>) throws -> Int {
        let needed = FormatConversion.avccCapacity(forAnnexBByteCount: stream.count)
        if avccTarget.count < needed {
            avccTarget.deallocate()
            avccTarget = .allocate(byteCount: needed, alignment: 64)
            avccTarget.initializeMemory(as: UInt8.self, repeating: 1)  // touched once, like memcpy's target
        }
        // The output buffer is reused across runs, like memcpy's.
        return try FormatConversion.annexBToAVCC(stream, into: avccTarget, leadingData: .skip).byteCount
    }

    static func rbspExtraction(_ stream: ArraySlice<UInt8>) throws -> Int {
        var splitter = AnnexB.Splitter(stream, leadingData: .skip)
        var n = 0
        while let unit = try splitter.next() { n &+= unit.rbsp.count }
        return n
    }
}

/// A generated stream that looks like high-bitrate H.264 to the framing layer: an SPS and PPS,
/// then access units of an AUD and one slice each, IDR every 30 pictures; slice payloads are
/// random bytes (like CABAC data) with emulation prevention applied. I pictures ~400 kB,
/// P pictures ~100 kB.
enum SyntheticStream {
    static func make(bytes target: Int) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        var seed = rng.next() as UInt64
        func next() -> UInt64 {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let sps: [UInt8] = [0x67, 0x64, 0x00, 0x28, 0xAC, 0xD9, 0x40, 0x78, 0x02, 0x27, 0xE5, 0xC0, 0x44, 0x00, 0x00, 0x03,
                            0x00, 0x04, 0x00, 0x00, 0x03, 0x00, 0xF0, 0x3C, 0x60, 0xC6, 0x58]
        let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]
        var out: [UInt8] = []
        out.reserveCapacity(target + (1 << 20))
        var payload: [UInt8] = []
        var picture = 0
        while out.count < target {
            let idr = picture % 30 == 0
            if idr {
                for ps in [sps, pps] { out += [0, 0, 0, 1]; out += ps }
            }
            out += [0, 0, 0, 1, 0x09, 0xF0]
            let size = idr ? 300_000 + Int(next() % 200_000) : 60_000 + Int(next() % 80_000)
            payload.removeAll(keepingCapacity: true)
            payload.append(idr ? 0x65 : 0x41)
            payload.append(0x88)  // first_mb_in_slice 0, ...
            var k = 2
            while k < size {
                withUnsafeBytes(of: next()) { payload.append(contentsOf: $0) }
                k += 8
            }
            payload[payload.count - 1] |= 1  // rbsp_stop_one_bit somewhere in the last byte
            out += [0, 0, 1]
            EmulationPrevention.appendEBSP(of: payload, to: &out)
            picture += 1
        }
        return out
    }
}
