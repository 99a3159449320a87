import Testing
import H264
@testable import FLV

@Suite struct AMF0Tests {
    static let values: [AMF0Value] = [
        .number(29.97), .number(-0.0), .boolean(true), .boolean(false), .string(""), .string("héllo"),
        .string(String(repeating: "x", count: 70_000)), .null, .undefined,
        .object([AMF0Property("app", .string("live")), AMF0Property("n", .number(1))]),
        .ecmaArray([AMF0Property("width", .number(640)), AMF0Property("nested", .object([AMF0Property("a", .null)]))]),
        .strictArray([.number(1), .string("two"), .strictArray([])]),
        .date(milliseconds: 1_700_000_000_000, timeZone: -60),
    ]

    @Test(arguments: values) func roundTrip(_ value: AMF0Value) throws {
        var out: [UInt8] = []
        AMF0.encode(value, into: &out)
        var slice = out[...]
        #expect(try AMF0.decode(from: &slice) == value)
        #expect(slice.isEmpty)
    }

    @Test func knownBytes() throws {
        // "connect", 1.0, {app: "a"}: the start of every RTMP session.
        let bytes = AMF0.encode([.string("connect"), .number(1), .object([AMF0Property("app", .string("a"))])])
        #expect(bytes == [0x02, 0, 7] + Array("connect".utf8) + [0x00, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0]
            + [0x03, 0, 3] + Array("app".utf8) + [0x02, 0, 1, 0x61, 0, 0, 9])
    }

    @Test func everyPrefixThrowsTruncated() throws {
        let bytes = AMF0.encode([.ecmaArray([AMF0Property("k", .strictArray([.number(1), .string("s")]))])])
        #expect(try AMF0.decodeAll(bytes[..<0]).isEmpty)
        for n in 1..<bytes.count {
            #expect(throws: FLVError(.truncated, "")) { try AMF0.decodeAll(bytes[..<n]) }
        }
    }

    @Test func hostileInput() throws {
        // A strict array claiming 4 billion elements in 5 bytes: no allocation, a typed error.
        #expect(throws: FLVError(.truncated, "")) { try AMF0.decodeAll([0x0A, 0xFF, 0xFF, 0xFF, 0xFF]) }
        // Nesting beyond the cap.
        let deep: [UInt8] = (0..<100).flatMap { _ in [0x0A, 0, 0, 0, 1] as [UInt8] } + [0x05]
        #expect(throws: FLVError(.limitExceeded, "")) { try AMF0.decodeAll(deep[...]) }
        #expect(throws: FLVError(.invalidContainer, "")) { try AMF0.decodeAll([0x07, 0, 1]) }
        #expect(throws: FLVError(.invalidContainer, "")) { try AMF0.decodeAll([0x42]) }
    }
}
