import MediaSupport
import Testing

/// The shared big-endian reader: every read at every truncation point throws the neutral error
/// without moving, reads at the edges of every width, signed values, counts out of range, and a
/// module's mapping of the failure.
@Suite struct ByteReaderTests {
    typealias Reader = ByteReader<ByteReadError>

    /// Bytes at a non-zero start index: a reader must count from the slice's start.
    static func slice(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        ([0xEE, 0xEE, 0xEE] + bytes + [0xDD])[3..<(3 + bytes.count)]
    }

    /// Every read of a fixed width, with that width.
    static var reads: [(name: String, width: Int, read: (inout Reader) throws(ByteReadError) -> Void)] { [
        ("readUInt8", 1, { (r: inout Reader) throws(ByteReadError) in _ = try r.readUInt8() }),
        ("readInt8", 1, { (r: inout Reader) throws(ByteReadError) in _ = try r.readInt8() }),
        ("readUInt16", 2, { (r: inout Reader) throws(ByteReadError) in _ = try r.readUInt16() }),
        ("readInt16", 2, { (r: inout Reader) throws(ByteReadError) in _ = try r.readInt16() }),
        ("readUInt24", 3, { (r: inout Reader) throws(ByteReadError) in _ = try r.readUInt24() }),
        ("readInt24", 3, { (r: inout Reader) throws(ByteReadError) in _ = try r.readInt24() }),
        ("readUInt32", 4, { (r: inout Reader) throws(ByteReadError) in _ = try r.readUInt32() }),
        ("readInt32", 4, { (r: inout Reader) throws(ByteReadError) in _ = try r.readInt32() }),
        ("readUInt64", 8, { (r: inout Reader) throws(ByteReadError) in _ = try r.readUInt64() }),
        ("readInt64", 8, { (r: inout Reader) throws(ByteReadError) in _ = try r.readInt64() }),
        ("readBytes(5)", 5, { (r: inout Reader) throws(ByteReadError) in _ = try r.readBytes(5) }),
        ("skip(6)", 6, { (r: inout Reader) throws(ByteReadError) in try r.skip(6) }),
    ] }

    @Test func everyReadAtEveryTruncationPointThrowsTruncated() {
        for (name, width, read) in Self.reads {
            for available in 0..<width {
                var r = Reader(Self.slice(Array(repeating: 0xA5, count: available)))
                let before = r.position
                do throws(ByteReadError) {
                    try read(&r)
                    Issue.record("\(name) with \(available) of \(width) bytes did not throw")
                } catch {
                    #expect(error.kind == .truncated, "\(name)")
                    #expect(error.requested == width && error.available == available, "\(name): \(error)")
                }
                #expect(r.position == before && r.count == available, "\(name) moved on a failed read")
            }
            // The whole width is enough, and consumes exactly it.
            var r = Reader(Self.slice(Array(repeating: 0xA5, count: width + 1)))
            #expect(throws: Never.self) { try read(&r) }
            #expect(r.count == 1 && r.position == 3 + width, "\(name)")
        }
    }

    @Test func unsignedRoundTripsAtTheEdgesOfEachWidth() throws {
        var out: [UInt8] = []
        let u16: [UInt16] = [0, 1, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, .max - 1, .max]
        let u24: [UInt32] = [0, 1, 0xFF, 0x100, 0xFFFF, 0x1_0000, 0x7F_FFFF, 0x80_0000, 0xFF_FFFE, 0xFF_FFFF]
        let u32: [UInt32] = [0, 1, 0xFF, 0x100, 0x7FFF_FFFF, 0x8000_0000, .max - 1, .max]
        let u64: [UInt64] = [0, 1, 0xFFFF_FFFF, 0x1_0000_0000, 0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, .max - 1, .max]
        for v in u16 { out.writeUInt16(v) }
        for v in u24 { out.writeUInt24(v) }
        for v in u32 { out.writeUInt32(v) }
        for v in u64 { out.writeUInt64(v) }
        #expect(out.count == u16.count * 2 + u24.count * 3 + u32.count * 4 + u64.count * 8)
        var r = Reader(Self.slice(out))
        for v in u16 { #expect(try r.readUInt16() == v) }
        for v in u24 { #expect(try r.readUInt24() == v) }
        for v in u32 { #expect(try r.readUInt32() == v) }
        for v in u64 { #expect(try r.readUInt64() == v) }
        #expect(r.isAtEnd)
    }

    @Test func signedRoundTripsAtTheEdgesOfEachWidth() throws {
        var out: [UInt8] = []
        let i16: [Int16] = [0, 1, -1, 0x7F, -0x80, .max, .min, .min + 1]
        let i24: [Int32] = [0, 1, -1, 0x7F_FFFF, -0x80_0000, -0x7F_FFFF, 0x7F, -0x80]
        let i32: [Int32] = [0, 1, -1, .max, .min, .min + 1]
        let i64: [Int64] = [0, 1, -1, .max, .min, .min + 1, Int64(Int32.min) - 1]
        for v in i16 { out.writeInt16(v) }
        for v in i24 { out.writeInt24(v) }
        for v in i32 { out.writeInt32(v) }
        for v in i64 { out.writeInt64(v) }
        var r = Reader(Self.slice(out))
        for v in i16 { #expect(try r.readInt16() == v) }
        for v in i24 { #expect(try r.readInt24() == v) }
        for v in i32 { #expect(try r.readInt32() == v) }
        for v in i64 { #expect(try r.readInt64() == v) }
        #expect(r.isAtEnd)
    }

    @Test func bytesAreMostSignificantFirst() throws {
        var out: [UInt8] = []
        out.writeUInt16(0x0102)
        out.writeUInt24(0x03_0405)
        out.writeUInt32(0x0607_0809)
        out.writeUInt64(0x0A0B_0C0D_0E0F_1011)
        out.writeInt24(-2)
        out.writeUInt24(0xAB_CD_EF_12)  // the low 24 bits
        out.writeInteger(UInt8(0x13))
        #expect(out == Array(1...0x11) + [0xFF, 0xFF, 0xFE] + [0xCD, 0xEF, 0x12, 0x13])
        var header: [UInt8] = [0xAA]
        header.writeMultipleIntegers(UInt64(0x8060_1234_0000_5678), UInt32(0xDEAD_BEEF))
        header.writeMultipleIntegers(Int16(-2), UInt8(7))
        #expect(header == [0xAA, 0x80, 0x60, 0x12, 0x34, 0x00, 0x00, 0x56, 0x78, 0xDE, 0xAD, 0xBE, 0xEF, 0xFF, 0xFE, 7])
        var r = Reader(Self.slice([0xFF, 0xFE, 0x80, 0x00, 0x00, 0x80, 0x7F, 0xFF, 0xFF, 0xFF]))
        #expect(try r.readInt16() == -2)
        #expect(try r.readInt24() == -0x80_0000)
        #expect(try r.readInt8() == -128)
        #expect(try r.readInt32() == 0x7FFF_FFFF)
        #expect(r.isAtEnd)
    }

    @Test func countsOutOfRangeThrowOutOfRange() throws {
        var r = Reader(Self.slice([1, 2, 3]))
        #expect(throws: ByteReadError.self) { try r.readBytes(-1) }
        #expect(throws: ByteReadError.self) { try r.skip(-1) }
        #expect(throws: ByteReadError.self) { try r.readBytes(UInt64.max) }
        func expectOutOfRange(_ what: String, _ attempt: (inout Reader) throws(ByteReadError) -> Void) {
            do throws(ByteReadError) {
                try attempt(&r)
                Issue.record("\(what) did not throw")
            } catch {
                #expect(error.kind == .outOfRange, "\(what)")
            }
        }
        expectOutOfRange("readBytes(-1)") { (r: inout Reader) throws(ByteReadError) in _ = try r.readBytes(-1) }
        expectOutOfRange("skip(-4)") { (r: inout Reader) throws(ByteReadError) in try r.skip(-4) }
        expectOutOfRange("readBytes(UInt64.max)") { (r: inout Reader) throws(ByteReadError) in _ = try r.readBytes(UInt64.max) }
        expectOutOfRange("readBytes(Int64.min)") { (r: inout Reader) throws(ByteReadError) in _ = try r.readBytes(Int64.min) }
        // A count beyond the bytes but within Int is truncated, not out of range.
        do throws(ByteReadError) { _ = try r.readBytes(UInt32(4)) } catch { #expect(error.kind == .truncated) }
        #expect(r.count == 3)
        #expect(try r.readBytes(UInt16(3)) == [1, 2, 3])
    }

    @Test func readBytesAreViewsIndexedFromTheSliceStart() throws {
        let s = Self.slice([10, 11, 12, 13, 14])
        var r = Reader(s)
        #expect(r.position == s.startIndex)
        let first = try r.readBytes(2)
        #expect(first.startIndex == s.startIndex && first == [10, 11])
        #expect(r.peekUInt8() == 12)
        #expect(r.remaining == [12, 13, 14] && r.remaining.startIndex == s.startIndex + 2)
        #expect(r.readRemaining() == [12, 13, 14])
        #expect(r.isAtEnd && r.peekUInt8() == nil)
        #expect(r.readRemaining().isEmpty)
    }

    @Test func peeksLookWithoutConsuming() {
        let r = Reader(Self.slice([0x01, 0x02, 0x03, 0x04, 0x05]))
        #expect(r.peekInteger(as: UInt32.self) == 0x0102_0304)
        #expect(r.peekInteger(at: 1, as: UInt32.self) == 0x0203_0405)
        #expect(r.peekInteger(at: 2, as: UInt32.self) == nil)
        #expect(r.peekInteger(at: -1, as: UInt8.self) == nil)
        #expect(r.peekInteger(at: 4, as: UInt8.self) == 5)
        #expect(r.peekInteger(at: 5, as: UInt8.self) == nil)
        #expect(r.peekUInt24(at: 2) == 0x03_0405)
        #expect(r.peekUInt24(at: 3) == nil)
        #expect(r.peekUInt(byteCount: 1) == 1)
        #expect(r.peekUInt(byteCount: 2, at: 3) == 0x0405)
        #expect(r.peekUInt(byteCount: 5) == 0x01_0203_0405)
        #expect(r.peekUInt(byteCount: 6) == nil)
        #expect(r.peekUInt(byteCount: 0) == nil && r.peekUInt(byteCount: 9) == nil)
        #expect(r.count == 5)
        // The same load on a slice in place, counted from its start.
        let slice = Self.slice([0x01, 0x02, 0x03, 0x04, 0x05])
        #expect(slice.peekInteger(at: 1, as: UInt32.self) == 0x0203_0405)
        #expect(slice.peekInteger(at: 2, as: UInt32.self) == nil && slice.peekInteger(at: -1, as: UInt8.self) == nil)
        #expect(slice.peekInteger(at: 0, as: Int16.self) == 0x0102)
        let empty = Reader([][...])
        #expect(empty.peekInteger(as: UInt8.self) == nil && empty.peekUInt24() == nil && empty.peekUInt(byteCount: 1) == nil)
    }

    @Test func setOverwritesInPlace() {
        var out: [UInt8] = [0, 0, 0, 0, 0, 0]
        out.setUInt32(0xDEAD_BEEF, at: 1)
        #expect(out == [0, 0xDE, 0xAD, 0xBE, 0xEF, 0])
        out.setUInt32(0x0102_0304, at: 2)
        #expect(out == [0, 0xDE, 1, 2, 3, 4])
        out.writeZeros(3)
        #expect(out.count == 9 && out.suffix(3) == [0, 0, 0])
    }

    /// A module's error, made by its mapping: what the reader throws.
    struct ModuleError: Error, Equatable {
        var truncated: Bool
        var text: String
    }

    enum ModuleReads: ByteReadErrorMapping {
        static func failure(_ error: ByteReadError) -> ModuleError {
            ModuleError(truncated: error.kind == .truncated, text: error.description)
        }
    }

    @Test func aMappingTurnsTheFailureIntoTheModulesError() throws {
        var r = ByteReader<ModuleReads>(Self.slice([1, 2]))
        #expect(throws: ModuleError(truncated: true, text: "tag size: needs 3 bytes, 2 left")) { try r.readUInt24("tag size") }
        #expect(throws: ModuleError(truncated: false, text: "body: -2 is out of range (2 bytes left)")) { try r.readBytes(-2, "body") }
        #expect(try r.readUInt16("tag size") == 0x0102)
    }
}
