// The fuzz body of the MPEG-TS demuxer. Like FuzzBodies.swift, this file compiles into the fuzz
// binary and into IntegrationTests.
import H264
import MPEGTS

extension FuzzBodies {
    // MARK: - ts_demux

    /// Transport stream bytes through `TSParser`, whole and in chunks of 1...64 bytes (the last
    /// byte chooses), with the limits lowered so that hostile inputs reach them.
    ///
    /// Properties: both passes hand out the same access units (NAL units and times), PES
    /// packets and counts (the demuxer's output does not depend on how the input arrives); the
    /// events are at most one per input byte (plus the streams' ends); no PES handed out is
    /// larger than its limit; the programs followed stay within `maximumPrograms`.
    static func tsDemux(_ data: [UInt8]) {
        let options = TSParser.Options(maximumStreams: 4, maximumPESBytes: 8_192,
                                       accessUnitLimits: AccessUnitLimits(maxAccessUnitBytes: 16_384, maxNALUnitsPerAccessUnit: 64),
                                       maximumNALUnitSize: 16_384)
        func run(chunk: Int) -> (units: [[[UInt8]]], times: [SampleTimestamps?], pes: [[UInt8]], events: Int, parser: TSParser) {
            var parser = TSParser(options: options)
            var units: [[[UInt8]]] = []
            var times: [SampleTimestamps?] = []
            var pes: [[UInt8]] = []
            var events = 0
            func drain() {
                while let event = parser.next() {
                    events &+= 1
                    switch event {
                    case .accessUnit(let au):
                        units.append(au.nalUnits.map { Array($0.bytes) })
                        times.append(au.timestamps)
                    case .elementaryStreamPacket(let p): pes.append(p.payload)
                    default: break
                    }
                    if events > data.count &+ 64 { return }
                }
            }
            var i = 0
            while i < data.count {
                let end = min(data.count, i &+ chunk)
                parser.append(data[i..<end])
                drain()
                i = end
            }
            parser.finish()
            drain()
            return (units, times, pes, events, parser)
        }
        let whole = run(chunk: max(1, data.count))
        let pieces = run(chunk: Int(data.last ?? 0) % 64 &+ 1)
        check(whole.events <= data.count &+ 16, "\(whole.events) events from \(data.count) bytes")
        check(whole.units == pieces.units, "access units differ with the chunking: \(whole.units.count) and \(pieces.units.count)")
        check(whole.times == pieces.times, "access unit times differ with the chunking")
        check(whole.pes == pieces.pes, "PES packets differ with the chunking")
        check(whole.parser.statistics.packets == pieces.parser.statistics.packets, "packet counts differ with the chunking")
        check(whole.pes.allSatisfy { $0.count <= 8_192 }, "a PES past its limit")
        check(whole.parser.programMaps.count <= TSParser.maximumPrograms, "\(whole.parser.programMaps.count) programs")
    }
}

extension FuzzSeeds {
    /// Transport streams written from the fixture streams, with an audio stream beside the video.
    static func tsSeeds(_ streams: [[UInt8]]) -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for stream in streams {
            let units = AccessUnits.assemble(annexB: stream[...], timing: TimestampOptions(frameRate: (25, 1)),
                                             leadingData: .skip).accessUnits
            guard var writer = try? TSWriter(options: .init(otherStreams: [TSElementaryStreamInfo(pid: 0x101, streamType: .aacADTS)])) else {
                continue
            }
            for (k, au) in units.enumerated() where au.timestamps != nil {
                try? writer.write(au)
                if k % 2 == 0, let t = au.timestamps {
                    try? writer.write(TSElementaryStreamPacket(pid: 0x101, streamType: .aacADTS, payload: [0xFF, 0xF1, 0x50, 0x80, 0, 0x1F, 0xFC],
                                                               timestamps: t))
                }
            }
            seeds.append(writer.takeBytes())
        }
        return seeds
    }
}
