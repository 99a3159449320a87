import Foundation
import H264
import H264Fixtures
import MP4
import TestSupport

/// Helpers shared by the MP4 tests: fixture conversion and ffprobe parsing.
enum MP4TestSupport {
    /// The Annex-B fixtures a muxer can take (not the AVCC ones, not the broken ones).
    static let annexBFixtures: [Fixture] = Fixture.allCases.filter {
        $0.facts.kind == .annexB && $0 != .missingPPS && $0 != .truncated
    }

    /// Converts an Annex-B stream to MP4 in memory through the library's converter.
    static func mp4(_ annexB: [UInt8], layout: MP4Writer.Options.Layout = .fastStart,
                    fps: (Int64, Int64)? = nil) throws -> (bytes: [UInt8], summary: MP4AnnexBRecorder.Summary) {
        let file = MP4MemoryFile()
        var timing = TimestampOptions()
        if let fps { timing.frameRate = fps }
        var converter = MP4AnnexBRecorder(timing: timing) { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
            try MP4Writer(file: file, options: .init(timescale: timescale, layout: layout))
        }
        try converter.append(annexB)
        let summary = try converter.finish()
        return (file.bytes, summary)
    }

    /// Writes bytes to a fresh temporary file and returns its path.
    static func temporaryFile(_ bytes: [UInt8], name: String = "out.mp4") throws -> String {
        let path = try Support.temporaryDirectory() + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

extension MP4TestSupport {
    /// A box's bytes: size, type, payload.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + MP4FourCC(type).bytes + payload
    }

    /// A full box's bytes.
    static func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + Array(be32(flags).dropFirst()) + payload)
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }

    /// The first box at `path` (types from the top level down): its node.
    static func node(_ path: [MP4FourCC], in source: any MP4ByteSource) throws -> MP4BoxTree.Node? {
        let nodes = try MP4BoxTree.nodes(in: source)
        var depth = 0
        for node in nodes {
            guard depth < path.count else { break }
            if node.depth == depth && node.header.type == path[depth] {
                if depth == path.count - 1 { return node }
                depth += 1
            } else if node.depth < depth {
                return nil  // left the parent without finding the child
            }
        }
        return nil
    }

    /// The payload of the first box at `path`.
    static func payload(_ path: [MP4FourCC], in source: any MP4ByteSource) throws -> ArraySlice<UInt8>? {
        guard let n = try node(path, in: source) else { return nil }
        return try source.read(at: n.offset + UInt64(n.header.headerSize), count: Int(n.header.payloadSize))
    }

    /// Big-endian 32-bit value at `offset` of a slice (counted from its start).
    static func u32(_ s: ArraySlice<UInt8>, _ offset: Int) -> UInt32 {
        let i = s.startIndex + offset
        return UInt32(s[i]) << 24 | UInt32(s[i + 1]) << 16 | UInt32(s[i + 2]) << 8 | UInt32(s[i + 3])
    }

    static let stblPath: [MP4FourCC] = ["moov", "trak", "mdia", "minf", "stbl"]

    /// The samples an Annex-B fixture becomes, through the builder (the writers' input).
    static func samples(_ annexB: [UInt8]) throws -> [(MP4SampleDescription, MP4Sample)] {
        let (units, _) = AccessUnits.assemble(annexB: annexB[...], leadingData: .skip)
        guard let base = units.first?.timeBase else { return [] }
        var builder = MP4SampleBuilder(timescale: MP4SampleBuilder.suggestedTimescale(for: base))
        var out: [(MP4SampleDescription, MP4Sample)] = []
        for au in units where !au.flags.hasNoPicture {
            let (d, s) = try builder.sample(au)
            out.append((d, s))
        }
        return out
    }

    /// Non-parameter-set NAL units of an Annex-B stream, as byte arrays (what a muxer must carry).
    static func pictureNALUnits(_ annexB: [UInt8]) -> [[UInt8]] {
        var splitter = AnnexB.Splitter(annexB[...], leadingData: .skip)
        var out: [[UInt8]] = []
        while true {
            guard let unit = try? splitter.next() else { break }
            if unit.type == .sps || unit.type == .pps || unit.type == .spsExtension { continue }
            out.append(Array(unit.bytes))
        }
        return out
    }
}
