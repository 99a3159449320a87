import Testing
@testable import H264
import TestSupport

@Suite struct AVCCTests {
    static let units: [[UInt8]] = [[0x67, 0x42, 0, 0x1E], [0x68, 0xCE], [0x65] + [UInt8](repeating: 0x88, count: 300)]

    @Test(arguments: [1, 2, 4])
    func roundTrip(_ size: Int) throws {
        let lengthSize = try AVCC.LengthSize(byteCount: size)
        let nals = try Self.units.map { try NALUnit($0) }
        if size == 1 {
            #expect(throws: H264Error(.nalUnitTooLarge, "")) { try AVCC.write(nals, lengthSize: lengthSize) }
            let small = Array(nals.prefix(2))
            let bytes = try AVCC.write(small, lengthSize: lengthSize)
            #expect(bytes == [4, 0x67, 0x42, 0, 0x1E, 2, 0x68, 0xCE])
            #expect(try AVCC.split(bytes, lengthSize: lengthSize) == small)
            return
        }
        let bytes = try AVCC.write(nals, lengthSize: lengthSize)
        #expect(bytes.count == Self.units.reduce(0) { $0 + $1.count + size })
        let back = try AVCC.split(bytes, lengthSize: lengthSize)
        #expect(back.map { Array($0.bytes) } == Self.units)
        #expect(back[0].bytes.startIndex == size)  // views
    }

    @Test func invalidLengthSize() {
        for n in [0, 3, 5, 8, -1] {
            #expect(throws: H264Error(.invalidLengthSize, "")) { try AVCC.LengthSize(byteCount: n) }
        }
    }

    @Test func lengthPastEndAllocatesNothing() throws {
        let bytes: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x65, 1, 2]
        var r = AVCC.Reader(bytes[...])
        #expect(throws: H264Error(.lengthPastEnd, "")) { try r.next() }
        #expect(try r.next() == nil)
    }

    @Test func zeroLengthAndTruncatedField() throws {
        var r = AVCC.Reader([0, 0, 0, 0, 0, 0, 0, 1, 0x09, 0, 0][...])
        #expect(throws: H264Error(.emptyNALUnit, "")) { try r.next() }
        #expect(try r.next()?.type == .accessUnitDelimiter)
        #expect(throws: H264Error(.truncated, "")) { try r.next() }
        #expect(try r.next() == nil)
    }

    @Test func writeLengthPrefixed() throws {
        var out: [UInt8] = [9]
        let n = try AVCC.writeLengthPrefixed(lengthSize: .two, to: &out) { (o: inout [UInt8]) throws(H264Error) in
            o += [0x41, 1, 2]
        }
        #expect(n == 3)
        #expect(out == [9, 0, 3, 0x41, 1, 2])
        #expect(throws: H264Error(.nalUnitTooLarge, "")) {
            try AVCC.writeLengthPrefixed(lengthSize: .one, to: &out) { (o: inout [UInt8]) throws(H264Error) in
                o += [UInt8](repeating: 1, count: 256)
            }
        }
        #expect(out == [9, 0, 3, 0x41, 1, 2])
    }

    @Test func randomBytesNeverTrap() {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<2000 {
            let bytes = (0..<Int(rng.next() % 64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            for size in [AVCC.LengthSize.one, .two, .four] {
                var r = AVCC.Reader(bytes[...], lengthSize: size)
                var steps = 0
                while steps < 200 {
                    steps += 1
                    do { guard try r.next() != nil else { break } } catch {}
                }
                #expect(steps < 200)
            }
        }
    }
}
