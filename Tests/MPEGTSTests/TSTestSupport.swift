import Foundation
import H264
import H264Fixtures
import MPEGTS
import TestSupport

/// What the MPEG-TS tests share: sources as access units, muxing, files.
enum TSTestSupport {
    /// Fixture streams of the kinds the issue names: B-frames (and pyramids), interlaced
    /// (fields, MBAFF), 4:2:2 10-bit, parameter-set changes, delimiters already present, and
    /// the plain ones.
    static let fixtures: [Fixture] = [.mainCABACBFrames, .highBPyramid, .paffFields, .paffPB, .mbaffTFF, .high422_10,
                                      .resolutionChange, .aud, .baselineCAVLC, .openGOP, .slices4]

    /// The access units of an Annex-B stream, timed (25 fps when the stream has no timing).
    static func accessUnits(_ annexB: [UInt8]) -> [AccessUnit] {
        AccessUnits.assemble(annexB: annexB[...], timing: TimestampOptions(frameRate: (25, 1)), leadingData: .skip)
            .accessUnits.filter { !$0.flags.hasNoPicture }
    }

    /// The stream muxed by ``TSWriter`` with `options`.
    static func mux(_ units: [AccessUnit], options: TSWriter.Options = .init()) throws -> (ts: [UInt8], offset: Int64) {
        var writer = try TSWriter(options: options)
        var out: [UInt8] = []
        for au in units {
            try writer.write(au)
            out += writer.takeBytes()
        }
        return (out, writer.timestampOffset ?? 0)
    }

    /// Each access unit's NAL units without delimiters, as byte arrays: what must survive a
    /// round trip (the muxer adds delimiters).
    static func payload(_ units: [NALUnit]) -> [[UInt8]] {
        units.filter { $0.type != .accessUnitDelimiter }.map { Array($0.bytes) }
    }

    static func temporaryFile(_ bytes: [UInt8], name: String) throws -> String {
        try Support.temporaryFile(bytes, name: name)
    }
}

extension TSTestSupport {
    /// Everything a parser hands out for `ts`, given in chunks of `chunk` bytes (0: whole),
    /// its events read after every `batch` chunks (the others wait their turn in the parser).
    static func demux(_ ts: [UInt8], chunk: Int = 0, batch: Int = 1, options: TSParser.Options = .init()) -> (events: [TSEvent], parser: TSParser) {
        var parser = TSParser(options: options)
        var events: [TSEvent] = []
        var i = 0, chunks = 0
        let size = chunk > 0 ? chunk : max(1, ts.count)
        while i < ts.count {
            parser.append(ts[i..<min(ts.count, i + size)])
            chunks += 1
            if chunks % batch == 0 { while let e = parser.next() { events.append(e) } }
            i += size
        }
        parser.finish()
        while let e = parser.next() { events.append(e) }
        return (events, parser)
    }

    static func accessUnits(_ events: [TSEvent]) -> [TSAccessUnit] {
        events.compactMap { if case .accessUnit(let au) = $0 { au } else { nil } }
    }

    static func continuityErrors(_ events: [TSEvent]) -> Int {
        events.reduce(0) { if case .continuityError = $1 { $0 + 1 } else { $0 } }
    }

    /// The picture access units' NAL payloads (delimiters left out) of an Annex-B stream.
    static func sourcePayloads(_ annexB: [UInt8]) -> [[[UInt8]]] {
        accessUnits(annexB).map { payload($0.nalUnits) }
    }
}
