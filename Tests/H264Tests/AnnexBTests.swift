import Testing
@testable import H264

@Suite struct AnnexBTests {
    @Test func splitsThreeAndFourByteStartCodes() throws {
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 0, 1, 0x65, 4, 0, 0]
        let units = try AnnexB.split(stream)
        #expect(units.map { Array($0.bytes) } == [[0x67, 1, 2], [0x68, 3], [0x65, 4]])
        #expect(units.map(\.type) == [.sps, .pps, .idrSlice])
        #expect(units[0].bytes.startIndex == 4)
    }

    @Test func leadingGarbage() throws {
        let stream: [UInt8] = [9, 9, 0, 0, 1, 0x09, 0xF0]
        #expect(throws: H264Error(.missingStartCode, "")) { try AnnexB.split(stream) }
        #expect(try AnnexB.split(stream, leadingData: .skip).count == 1)
    }

    @Test func forbiddenBit() throws {
        var s = AnnexB.Splitter([0, 0, 1, 0x80, 0, 0, 1, 0x09, 0x10][...])
        #expect(throws: H264Error(.forbiddenBitSet, "")) { try s.next() }
        #expect(try s.next()?.type == .accessUnitDelimiter)
        #expect(try s.next() == nil)
    }

    @Test func everyPrefixIsSafe() throws {
        var stream: [UInt8] = []
        for i in 0..<200 { stream += [0, 0, 1, UInt8(0x61), UInt8(i), 0, 0, 3, 1] }
        var previous = 0
        for n in 0...stream.count {
            var s = AnnexB.Splitter(stream[..<n])
            var units = 0
            while true {
                do { guard try s.next() != nil else { break }; units += 1 } catch { continue }
            }
            // A longer prefix never loses a NAL unit a shorter one gave.
            #expect(units >= previous, "prefix of \(n) bytes")
            previous = units
        }
        #expect(previous == 200)
    }
}
