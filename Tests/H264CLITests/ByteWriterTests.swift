import Testing
@testable import H264CLI

/// `ByteWriter` writes what `String` and `InspectCommand.pad` write.
@Suite struct ByteWriterTests {
    static let values: [Int64] = {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 999_999_999, 1_000_000_000, Int64.max, Int64.min, Int64.min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power, -(power - 1)]
        }
        var seed: UInt64 = 0xB17E
        for _ in 0..<2_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            values.append(Int64(bitPattern: seed) >> Int64(seed % 64))
        }
        return values
    }()

    @Test func decimalsAreWhatStringWrites() {
        for value in Self.values {
            var bytes: [UInt8] = [7]
            ByteWriter.append(to: &bytes, atMost: ByteWriter.maximumDecimalLength) { $0.writeDecimal(value) }
            #expect(bytes == [7] + Array(String(value).utf8), "\(value)")
        }
    }

    @Test func paddedColumnsAreWhatPadWrites() {
        for value in Self.values {
            for width in [0, 1, 4, 10, 21] {
                var bytes: [UInt8] = []
                ByteWriter.append(to: &bytes, atMost: 64) { $0.writePadded(value, width: width) }
                #expect(bytes == Array(InspectCommand.pad(String(value), width).utf8), "\(value), width \(width)")
            }
        }
        for text: StaticString in ["-", "IDR", "non"] {
            for width in [0, 2, 3, 6] {
                var bytes: [UInt8] = []
                ByteWriter.append(to: &bytes, atMost: 16) { $0.writePadded(text, width: width) }
                #expect(bytes == Array(InspectCommand.pad("\(text)", width).utf8), "\(text), width \(width)")
            }
        }
    }

    @Test func textBytesAndFlagsFollowEachOther() {
        var bytes: [UInt8] = Array("x".utf8)
        ByteWriter.append(to: &bytes, atMost: 32) { w in
            w.write(#"{"a":"#)
            w.write(true)
            w.write(UInt8(ascii: ","))
            w.write([0x62, 0x63][...])
            w.write(false)
        }
        #expect(String(decoding: bytes, as: UTF8.self) == #"x{"a":true,bcfalse"#)
    }
}
