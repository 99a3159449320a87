import Testing
@testable import H264

/// The streaming splitter's reuse of the buffers of NAL units it handed out
/// (``HandedOutBuffers``): a buffer is reused only once nothing else refers to it, and a NAL
/// unit the caller keeps never changes.
struct HandedOutBuffersTests {
    /// The uniqueness test: true for storage only this array refers to, false while a copy,
    /// a slice or a ``NALUnit`` shares it, true again once they are gone.
    @Test func uniquenessFollowsTheOtherReferences() throws {
        // Each answer is taken before #expect, which keeps copies of what it shows.
        var empty: [UInt8] = []
        let emptyAnswer = HandedOutBuffers.isUnique(&empty)
        #expect(!emptyAnswer)
        var a = [UInt8](repeating: 0x41, count: 4)
        let alone = HandedOutBuffers.isUnique(&a)
        var copy: [UInt8]? = a
        let withCopy = HandedOutBuffers.isUnique(&a)
        copy = nil
        let copyGone = HandedOutBuffers.isUnique(&a)
        var unit: NALUnit? = try NALUnit(a[...])
        let withUnit = HandedOutBuffers.isUnique(&a)
        let unitCount = unit?.count
        unit = nil
        let unitGone = HandedOutBuffers.isUnique(&a)
        #expect(alone == Self.testAvailable && copyGone == Self.testAvailable && unitGone == Self.testAvailable)
        #expect(!withCopy && !withUnit)
        #expect(unitCount == 4 && copy == nil && unit == nil)
    }

    /// Where the test exists (no Objective-C runtime: an array is one reference to its storage).
    static var testAvailable: Bool {
        #if _runtime(_ObjC)
        return false
        #else
        return true
        #endif
    }

    /// `takeFree` returns only a buffer nothing else refers to, as it was;
    /// `keep` holds at most ``HandedOutBuffers/limit``.
    @Test(.enabled(if: testAvailable, "needs the uniqueness test (no Objective-C runtime)"))
    func takeFreeReturnsOnlyUnheldBuffers() {
        let limit = HandedOutBuffers.limit
        var buffers = HandedOutBuffers()
        var held: [[UInt8]] = []
        for i in 0..<(limit + 2) {
            var b = [UInt8](repeating: UInt8(i), count: 100 + i)
            held.append(b)
            buffers.keep(&b)
            #expect(b.capacity == 0)  // moved in, or let go
        }
        #expect(buffers.count == limit)
        #expect(buffers.takeFree() == nil)  // all still held
        // Full: the one before last took the first's slot, the last the one before last's.
        let last = held.removeLast()
        held.removeLast()
        #expect(buffers.takeFree() == nil)
        held.removeAll()
        var freed = 0
        while let free = buffers.takeFree() {
            #expect(free.count >= 100 && free.allSatisfy { $0 == free[0] })
            freed += 1
        }
        #expect(freed == limit - 1)  // the last one is still referred to by `last`
        #expect(last.count == 100 + limit + 1 && last.allSatisfy { $0 == UInt8(limit + 1) })
        // All free: a buffer kept now is let go of (the caller's), not kept in place of a free one.
        var more = [UInt8](repeating: 9, count: 50)
        buffers = HandedOutBuffers()
        for _ in 0..<limit {
            var b = [UInt8](repeating: 0, count: 10)
            buffers.keep(&b)
        }
        buffers.keep(&more)
        #expect(buffers.count == limit && more.capacity == 0)
        var capacities: [Int] = []
        while let free = buffers.takeFree() { capacities.append(free.count) }
        #expect(capacities.count == limit && capacities.allSatisfy { $0 < 50 })
    }

    /// A stream of NAL units that each span several chunks.
    static func spanningStream(units: Int, size: Int) -> [UInt8] {
        var stream: [UInt8] = []
        for i in 0..<units {
            stream += [0, 0, 0, 1, 0x41]
            stream += (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) | 0x80 }  // no zero byte
        }
        return stream
    }

    /// The base addresses of the buffers the NAL units of `stream` arrive in, when the caller
    /// keeps the last `kept` of them (dropping older ones), fed in `chunk`-byte chunks; the
    /// kept units are checked against the bytes of the stream as they leave. Each time it
    /// drops one, the caller allocates an array of its size and keeps it to the end, so that
    /// the memory of a buffer the parser did not keep goes to that array, and a new buffer of
    /// the parser shows as a new address.
    static func bufferAddresses(_ stream: [UInt8], chunk: Int, kept: Int) throws -> [UnsafeRawPointer?] {
        let expected = try AnnexB.split(stream).map { Array($0.bytes) }
        var parser = AnnexBStreamParser()
        var held: [(index: Int, unit: NALUnit)] = []
        var addresses: [UnsafeRawPointer?] = []
        var fillers: [[UInt8]] = []
        var index = 0
        func take(_ unit: NALUnit) {
            addresses.append(unit.bytes.withUnsafeBytes { $0.baseAddress })
            held.append((index, unit))
            index += 1
            while held.count > kept {
                let size = drop(held.removeFirst())  // the unit is gone after this line
                fillers.append([UInt8](repeating: 1, count: size))
            }
        }
        func drop(_ entry: (index: Int, unit: NALUnit)) -> Int {
            #expect(Array(entry.unit.bytes) == expected[entry.index], "unit \(entry.index) changed while held")
            return entry.unit.count
        }
        var i = 0
        while i < stream.count {
            parser.append(stream[i..<min(i + chunk, stream.count)])
            while let unit = try parser.next() { take(unit) }
            i += chunk
        }
        parser.finish()
        while let unit = try parser.next() { take(unit) }
        for (i, u) in held { #expect(Array(u.bytes) == expected[i], "unit \(i) changed while held") }
        #expect(index == expected.count)
        #expect(fillers.count == index - held.count)
        return addresses
    }

    /// A caller that keeps up to 7 NAL units gets them in a few buffers that take turns (no
    /// new buffer per NAL unit); one that keeps more still gets intact units.
    @Test(.enabled(if: testAvailable, "needs the uniqueness test (no Objective-C runtime)"),
          arguments: [0, 1, 3, 7, 12])
    func spanningUnitsReuseBuffersTheCallerLetGoOf(kept: Int) throws {
        let stream = Self.spanningStream(units: 40, size: 3_000)
        let addresses = try Self.bufferAddresses(stream, chunk: 1_000, kept: kept)
        #expect(addresses.count == 40)
        let distinct = Set(addresses.dropFirst(8)).count  // after the buffers have grown
        if kept < HandedOutBuffers.limit {
            #expect(distinct <= kept + 1, "kept \(kept): \(distinct) buffers")
        } else {
            #expect(distinct > HandedOutBuffers.limit)  // more held than kept: new buffers
        }
    }
}
