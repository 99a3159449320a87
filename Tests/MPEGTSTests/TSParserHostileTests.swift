import H264
import H264Fixtures
import MPEGTS
import TestSupport
import Testing

/// The hostile-stream classes: lying PES lengths, PMT churn, endless PES, every PID.
@Suite struct TSParserHostileTests {
    /// A packet on `pid` with `payload` (padded with 0xFF), PUSI as given.
    static func packet(pid: UInt16, cc: UInt8, start: Bool, _ payload: [UInt8]) -> [UInt8] {
        var p: [UInt8] = [0x47, (start ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | (cc & 15)]
        p += payload.prefix(184)
        p += Array(repeating: 0xFF, count: 188 - p.count)
        return p
    }

    /// A PAT and PMT naming `streams` (PID, type) of program 1 on PMT PID 0x1000, PMT version `version`.
    static func tables(_ streams: [(UInt16, UInt8)], version: UInt8 = 0, cc: UInt8 = 0) throws -> [UInt8] {
        var writer = try TSWriter(options: .init(otherStreams: streams.filter { $0.0 != 0x100 }.map {
            TSElementaryStreamInfo(pid: $0.0, streamType: TSStreamType(rawValue: $0.1)) }))
        writer.writeTables()
        var bytes = writer.takeBytes()
        // Set the PMT's version and fix its CRC: the PMT is the second packet.
        let start = 188 + 5
        let length = 3 + (Int(bytes[start + 1] & 0x0F) << 8 | Int(bytes[start + 2]))
        bytes[start + 5] = 0xC1 | (version & 0x1F) << 1
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes[start..<(start + length - 4)] {
            crc ^= UInt32(b) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ 0x04C1_1DB7 : crc << 1 }
        }
        for k in 0..<4 { bytes[start + length - 4 + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(k))) }
        bytes[3] = 0x10 | cc & 15
        bytes[188 + 3] = 0x10 | cc & 15
        return bytes
    }

    /// PES_packet_length that says less, and more, than the PES holds: the excess is ignored
    /// and reported, the short PES is marked incomplete; both as problems, never a trap.
    @Test func pesLengthLies() throws {
        var ts = try Self.tables([(0x100, 0x1B), (0x101, 0x0F)])
        // Says 20 payload bytes, carries 170.
        ts += Self.packet(pid: 0x101, cc: 0, start: true, [0, 0, 1, 0xC0, 0, 23, 0x80, 0, 0] + Array(repeating: 0xAA, count: 170))
        // Says 1,000 payload bytes, carries 175 before the next PES starts.
        ts += Self.packet(pid: 0x101, cc: 1, start: true, [0, 0, 1, 0xC0, 0x03, 0xEB, 0x80, 0, 0] + Array(repeating: 0xBB, count: 175))
        ts += Self.packet(pid: 0x101, cc: 2, start: true, [0, 0, 1, 0xC0, 0, 178, 0x80, 0, 0] + Array(repeating: 0xCC, count: 175))
        let (events, parser) = TSTestSupport.demux(ts)
        let pes = events.compactMap { if case .elementaryStreamPacket(let p) = $0 { p } else { nil } }
        #expect(pes.map(\.payload.count) == [20, 175, 175])
        #expect(pes.map(\.isComplete) == [true, false, true])
        let codes = events.compactMap { if case .problem(let e) = $0 { e.code } else { nil } }
        #expect(codes == [.invalidPES, .invalidPES])
        #expect(parser.statistics.problems == 2)
    }

    /// A new PMT version with every packet, each moving the video to another PID and type:
    /// the streams followed never exceed the limit, and every version is reported once.
    @Test func pmtChurn() throws {
        var ts: [UInt8] = []
        for k in 0..<2000 {
            let pids = (0..<8).map { (UInt16(0x100 + (k * 8 + $0) % 3000), UInt8($0 == 0 ? 0x1B : 0x0F)) }
            ts += try Self.tables(pids, version: UInt8(k % 32), cc: UInt8(truncatingIfNeeded: k))
        }
        let (events, parser) = TSTestSupport.demux(ts, chunk: 4096, options: .init(maximumStreams: 4))
        let maps = events.filter { if case .programMap = $0 { true } else { false } }.count
        #expect(maps == 2000)
        #expect(parser.programMaps.count == 1)
        let limits = events.filter { if case .problem(let e) = $0 { e.code == .limitExceeded } else { false } }.count
        #expect(limits == 2000)  // 8 streams named, 4 followed, every time
    }

    /// A PES that never ends (no payload start after the first) on an opaque stream is dropped
    /// at the PES limit; on the H.264 stream it is bounded by the core's limits.
    @Test func endlessPES() throws {
        var ts = try Self.tables([(0x100, 0x1B), (0x101, 0x06)])
        ts += Self.packet(pid: 0x101, cc: 0, start: true, [0, 0, 1, 0xBD, 0, 0, 0x80, 0, 0])
        ts += Self.packet(pid: 0x100, cc: 0, start: true, [0, 0, 1, 0xE0, 0, 0, 0x80, 0, 0, 0, 0, 1, 0x65])
        for k in 1..<3000 {
            ts += Self.packet(pid: 0x101, cc: UInt8(truncatingIfNeeded: k), start: false, Array(repeating: 0x11, count: 184))
            ts += Self.packet(pid: 0x100, cc: UInt8(truncatingIfNeeded: k), start: false, Array(repeating: 0x22, count: 184))
        }
        let options = TSParser.Options(maximumPESBytes: 64 << 10, accessUnitLimits: AccessUnitLimits(maxAccessUnitBytes: 100_000),
                                       maximumNALUnitSize: 100_000)
        let (events, _) = TSTestSupport.demux(ts, chunk: 10_000, options: options)
        let codes = events.compactMap { if case .problem(let e) = $0 { e.code } else { nil } }
        #expect(codes.contains(.limitExceeded))  // the opaque PES
        #expect(codes.contains(.h264))  // the NAL unit past its limit
        #expect(!events.contains { if case .elementaryStreamPacket = $0 { true } else { false } })
    }

    /// Packets on every PID there is, five times over (a PID has 13 bits: the "10^6 PIDs" of
    /// the hostile classes are these 8,191 repeated), with PATs naming 200 programs: the
    /// tables stay within their bounds and nothing grows with the packets.
    @Test func everyPID() throws {
        var ts: [UInt8] = []
        var pat: [UInt8] = [0, 0xB0, 0, 0, 1, 0xC1, 0, 0]
        for n in 0..<200 { pat += [UInt8(n >> 8), UInt8(n & 0xFF) | 1, 0xE0 | UInt8((0x20 + n) >> 8), UInt8((0x20 + n) & 0xFF)] }
        let length = pat.count - 3 + 4
        pat[1] = 0xB0 | UInt8(length >> 8); pat[2] = UInt8(length & 0xFF)
        var crc: UInt32 = 0xFFFF_FFFF
        for b in pat { crc ^= UInt32(b) << 24; for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ 0x04C1_1DB7 : crc << 1 } }
        pat += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        var cc = [UInt8](repeating: 0, count: 8192)
        for k in 0..<41_000 {
            let pid = UInt16(k % 8191)
            if pid == 0 {
                // The PAT spans five packets.
                ts += Self.packet(pid: 0, cc: cc[0], start: true, [0] + pat.prefix(183)); cc[0] &+= 1
                var rest = Array(pat.dropFirst(183))
                while !rest.isEmpty { ts += Self.packet(pid: 0, cc: cc[0], start: false, Array(rest.prefix(184))); cc[0] &+= 1; rest = Array(rest.dropFirst(184)) }
                continue
            }
            ts += Self.packet(pid: pid, cc: cc[Int(pid)], start: k % 3 == 0, [0, 0, 1, 0xE0, 0, 0, 0x80, 0, 0, 0, 0, 1, 0x09, 0xF0])
            cc[Int(pid)] &+= 1
        }
        let (events, parser) = TSTestSupport.demux(ts, chunk: 65_536)
        #expect(parser.statistics.packets == ts.count / 188)
        #expect(parser.programMaps.count <= TSParser.maximumPrograms)
        #expect(parser.statistics.ignoredPackets > 0)
        #expect(events.count < ts.count / 188 * 4)
    }
}
