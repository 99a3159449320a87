import Testing
@testable import H264

@Suite struct SEISyntaxHelperTests {
    @Test(arguments: [(1, Int32(-1)), (1, 0), (24, -16), (24, 8_388_607), (24, -8_388_608), (32, .min), (32, .max)])
    func signedElementRoundTrips(bits: Int, value: Int32) throws {
        var w = SyntaxWriter()
        var v = value
        try w.i(bits, &v, "time_offset")
        #expect(w.bitPosition == bits)
        var t = SyntaxTracer(w.writer.bytes[...])
        var back: Int32 = 0
        try t.i(bits, &back, "time_offset")
        #expect(back == value)
        #expect(t.elements == [TraceElement(bitPosition: 0, name: "time_offset", value: Int64(value))])
    }

    @Test func signedElementRejectsValuesThatDoNotFit() {
        var w = SyntaxWriter()
        var v: Int32 = 128
        #expect(throws: H264Error(.valueOutOfRange, "")) { try w.i(8, &v, "time_offset") }
        #expect(throws: H264Error(.valueOutOfRange, "")) { try w.i(0, &v, "time_offset") }
    }

    @Test func boundedCoderStopsAtItsLimit() throws {
        // ue(v) "00111" straddles the limit at bit 4.
        var b = BoundedSyntaxCoder(SyntaxReader([0b0011_1000, 0xFF][...]), limit: 4)
        var x: UInt32 = 0
        #expect(throws: H264Error(.truncated, "")) { try b.ue(&x, "pan_scan_rect_id", 0...100) }
        var b2 = BoundedSyntaxCoder(SyntaxReader([0xFF, 0xFF][...]), limit: 12)
        var y: UInt16 = 0
        try b2.u(8, &y, "x")
        #expect(throws: H264Error(.truncated, "")) { try b2.u(8, &y, "x") }
        var bytes: [UInt8] = []
        #expect(throws: H264Error(.truncated, "")) { try b2.bytes(&bytes, count: 1, "x") }
        #expect(!b2.isAtEnd && b2.bitsRemaining == 4)
    }

    @Test func peekDoesNotConsume() throws {
        var t = SyntaxTracer([0xFF, 0x01][...])
        #expect(try t.peekBits(8) == 0xFF)
        #expect(try t.peekBits(8, skipping: 8) == 0x01)
        #expect(t.bitPosition == 0 && t.elements.isEmpty)
        var x: UInt8 = 0
        try t.u(8, &x, "ff_byte")
        #expect(throws: H264Error(.truncated, "")) { try t.peekBits(16) }
        #expect(throws: H264Error(.truncated, "")) { try t.requireBits(9, "payload") }
        try t.requireBits(8, "payload")
    }

    @Test func overlongExpGolombInAPayloadIsATypedError() {
        // pan_scan_rect with 32 leading zero bits in pan_scan_rect_id.
        let nal: [UInt8] = [0x06, 0x02, 0x06, 0, 0, 0, 0, 0x80, 0x01, 0x80]
        #expect(throws: H264Error(.invalidExpGolomb, "")) { try SEI.parse(try NALUnit(nal), context: EmptySyntaxContext()) }
    }
}
