import Foundation
import Testing
@testable import H264CLI
import TestSupport

/// ``ChunkedInput`` with a framing: the chunks it hands over are the input, byte for byte, and
/// each ends where a unit (Annex-B NAL unit, length-prefixed NAL unit, FLV tag) ends, unless a
/// unit is longer than a chunk; what is held back is under 1 MiB. What an interrupted command
/// finishes its output with rests on this.
@Suite struct ChunkedInputFramingTests {
    /// Units of pseudo-random sizes (a few bytes to 1.5 MiB, so that some span whole chunks),
    /// about 5 MiB in all, framed three ways; the offsets where units end.
    static func streams() -> [(name: String, framing: InputFraming, bytes: [UInt8], boundaries: Set<Int>)] {
        var random = SplitMix64(seed: 27)
        var sizes: [Int] = []
        var total = 0
        while total < 5 << 20 {
            let size: Int = switch random.next() % 10 {
            case 0: Int(random.next() % (1_500_000)) + 1
            case 1...3: Int(random.next() % 60_000) + 1
            default: Int(random.next() % 300) + 1
            }
            sizes.append(size)
            total += size
        }
        func payload(_ n: Int) -> [UInt8] {
            // No start code inside (bytes 0x40...0xBF), a NAL unit header first.
            (0..<n).map { i in i == 0 ? 0x41 : UInt8(0x40 + (i &* 31 + n) % 0x80) }
        }
        var annexB: [UInt8] = [], avcc: [UInt8] = [], flv: [UInt8] = []
        var annexBEnds: Set<Int> = [], avccEnds: Set<Int> = [], flvEnds: Set<Int> = []
        flv = [0x46, 0x4C, 0x56, 1, 1, 0, 0, 0, 9, 0, 0, 0, 0]
        flvEnds.insert(flv.count)
        for (i, size) in sizes.enumerated() {
            if i > 0 { annexBEnds.insert(annexB.count) }
            annexB += (i % 3 == 0 ? [0, 0, 0, 1] : [0, 0, 1]) + payload(size)
            avcc += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + payload(size)
            avccEnds.insert(avcc.count)
            let body = min(size, 0xFF_FFFF)
            flv += [9, UInt8(body >> 16), UInt8(body >> 8 & 0xFF), UInt8(body & 0xFF), 0, 0, 0, 0, 0, 0, 0] + payload(body)
            flv += [UInt8((body + 11) >> 24), UInt8((body + 11) >> 16 & 0xFF), UInt8((body + 11) >> 8 & 0xFF), UInt8((body + 11) & 0xFF)]
            flvEnds.insert(flv.count)
        }
        annexBEnds.insert(annexB.count)
        return [("annexB", .annexB, annexB, annexBEnds), ("avcc", .lengthPrefixed(4), avcc, avccEnds), ("flv", .flv, flv, flvEnds)]
    }

    @Test func chunksEndOnUnitBoundaries() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for stream in Self.streams() {
            let path = dir + "/" + stream.name
            try Output.write(stream.bytes, to: path)
            for peekFirst in [false, true] {
                let input = try ChunkedInput(path)
                if peekFirst { _ = try input.peek(4) }  // convert's look at the signature, before the framing is known
                input.framing = stream.framing
                var joined: [UInt8] = []
                var inside = 0, chunks = 0
                while let chunk = try input.read() {
                    #expect(!chunk.isEmpty && chunk.count <= 2 * ChunkedInput.chunkSize)
                    joined += chunk
                    chunks += 1
                    if !stream.boundaries.contains(joined.count) { inside += 1 }
                }
                #expect(joined == stream.bytes, "\(stream.name): the chunks are not the input")
                // Only a chunk that one unit fills ends inside it: at most one per unit of 1 MiB
                // or more (below 2 MiB here).
                let long = stream.boundaries.sorted().adjacentPairs().filter { $1 - $0 >= ChunkedInput.chunkSize }.count
                #expect(long >= 1)
                #expect(chunks >= 5 && inside <= long, "\(stream.name): \(inside) chunks of \(chunks) end inside a unit")
            }
        }
    }
}

extension Sequence {
    /// Each element with the next.
    func adjacentPairs() -> [(Element, Element)] {
        var out: [(Element, Element)] = []
        var previous: Element?
        for e in self {
            if let previous { out.append((previous, e)) }
            previous = e
        }
        return out
    }
}
