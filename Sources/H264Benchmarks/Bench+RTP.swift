import Glibc
import H264
import RTP

/// Throughput of the RTP packetiser and depacketiser, for the benchmark executable (keys
/// `rtp_packetize_gbps`, `rtp_depacketize_gbps`). Measure in a release build.
enum RTPBench {
    /// GB/s (10^9 bytes of NAL units per second) of packetising `stream` (Annex-B) at `mtu`,
    /// repeated for at least `seconds`.
    static func packetizeGBps(stream: [UInt8], mtu: Int = 1200, seconds: Double = 0.5) throws -> Double {
        let aus = try accessUnits(stream)
        let nalBytes = aus.reduce(0) { $0 + $1.nalUnits.reduce(0) { $0 + $1.count } }
        var packetizer = try RTPPacketizer(.init(mtu: mtu, ssrc: 1))
        var packets = RTPPacketBuffer()
        var sink = 0
        var failure: RTPError?
        let gbps = measure(bytesPerPass: nalBytes, seconds: seconds) {
            do throws(RTPError) {
                for au in aus {
                    packets.removeAll()
                    try packetizer.packetize(au, into: &packets)
                    sink &+= packets.count
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return sink > 0 ? gbps : 0
    }

    /// GB/s of NAL unit bytes rebuilt by depacketising the packets of `stream` at `mtu`.
    static func depacketizeGBps(stream: [UInt8], mtu: Int = 1200, seconds: Double = 0.5) throws -> Double {
        let aus = try accessUnits(stream)
        let nalBytes = aus.reduce(0) { $0 + $1.nalUnits.reduce(0) { $0 + $1.count } }
        var packetizer = try RTPPacketizer(.init(mtu: mtu, ssrc: 1))
        var packets = RTPPacketBuffer()
        for au in aus { try packetizer.packetize(au, into: &packets) }
        var rebuilt = 0
        var failure: (any Error)?
        let gbps = measure(bytesPerPass: nalBytes, seconds: seconds) {
            do {
                var depacketizer = try RTPDepacketizer()
                for i in 0..<packets.count {
                    try depacketizer.push(packets[i]) { au in for u in au.nalUnits { rebuilt &+= u.count } }
                }
                depacketizer.flush { au in for u in au.nalUnits { rebuilt &+= u.count } }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return rebuilt > 0 ? gbps : 0
    }

    private static func accessUnits(_ stream: [UInt8]) throws -> [RTPAccessUnit] {
        RTPAccessUnit.accessUnits(annexB: stream[...])
    }

    /// Runs `body` until `seconds` of this thread's CPU time have passed (at least twice) and
    /// returns bytes per nanosecond. CPU time, not wall time: on a loaded machine the figure
    /// stays what one free core achieves. (Also used for other per-item rates.)
    static func measure(bytesPerPass: Int, seconds: Double, _ body: () -> Void) -> Double {
        body()  // warm up
        var passes = 0
        let start = BenchCommand.threadCPUNanoseconds()
        var elapsed = 0.0
        repeat {
            body()
            passes += 1
            elapsed = BenchCommand.threadCPUNanoseconds() - start
        } while passes < 2 || elapsed < seconds * 1e9
        return Double(bytesPerPass) * Double(passes) / elapsed
    }
}
