import H264
import MPEGTS

/// Throughput of the MPEG-TS muxer and demuxer, for the benchmark executable (keys
/// `ts_mux_gbps`, `ts_demux_gbps`): both in GB/s of transport stream bytes (written, or read
/// through to access units), the figure FFmpeg's `-c copy -f mpegts` is compared with
/// (Docs/Benchmarks.md). Measure in a release build.
enum TSBench {
    /// The stream's access units, timed (25 fps when it has no timing).
    static func accessUnits(_ stream: [UInt8]) -> [AccessUnit] {
        AccessUnits.assemble(annexB: stream[...], timing: TimestampOptions(frameRate: (25, 1)), leadingData: .skip)
            .accessUnits.filter { !$0.flags.hasNoPicture && $0.timestamps != nil }
    }

    /// The stream muxed once.
    static func mux(_ units: [AccessUnit]) throws -> [UInt8] {
        var writer = try TSWriter()
        var out: [UInt8] = []
        for au in units {
            try writer.write(au)
            out += writer.takeBytes()
        }
        return out
    }

    /// GB/s of TS bytes written from `stream`'s access units.
    static func muxGBps(stream: [UInt8], seconds: Double = 0.5) throws -> Double {
        let units = accessUnits(stream)
        let size = try mux(units).count
        var sink = 0
        var failure: TSError?
        let gbps = RTPBench.measure(bytesPerPass: size, seconds: seconds) {
            do throws(TSError) {
                var writer = try TSWriter()
                for au in units {
                    try writer.write(au)
                    sink &+= writer.takePackets(upTo: Int.max).count
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return sink > 0 ? gbps : 0
    }

    /// GB/s of TS bytes (the stream muxed) read in 64 KiB chunks through to access units.
    static func demuxGBps(stream: [UInt8], seconds: Double = 0.5) throws -> Double {
        let ts = try mux(accessUnits(stream))
        var units = 0
        let gbps = RTPBench.measure(bytesPerPass: ts.count, seconds: seconds) {
            var parser = TSParser()
            var i = 0
            while i < ts.count {
                parser.append(ts[i..<min(ts.count, i &+ 65_536)])
                while let event = parser.next() { if case .accessUnit = event { units &+= 1 } }
                i &+= 65_536
            }
            parser.finish()
            while let event = parser.next() { if case .accessUnit = event { units &+= 1 } }
        }
        return units > 0 ? gbps : 0
    }
}
