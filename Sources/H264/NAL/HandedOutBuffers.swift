/// The buffers of NAL units that ``AnnexBStreamParser`` accumulated across chunks and handed
/// out, kept so that one can be reused once every ``NALUnit`` viewing it has been dropped: a
/// caller that keeps NAL units for a while (an access unit being assembled, one waiting for
/// its presentation time) makes the parser start the next spanning NAL unit in a buffer it
/// holds already instead of a new one. (MPEGTS's `TSParser` keeps its H.264 PES payload
/// buffers, which the access units it hands out view, the same way.)
///
/// Reuse is decided by a uniqueness test; correctness does not depend on it: a buffer that is
/// still shared is only ever mutated through `Array`'s copy-on-write, so a wrong answer would
/// cost an allocation, never a NAL unit's bytes.
///
/// Memory: at most ``limit`` buffers, each of at most the parser's
/// ``AnnexBStreamParser/maximumNALUnitSize`` bytes of capacity (reserved by the parser, which
/// caps it there). The parser makes a new buffer only when no kept one is free, so the buffers
/// never outnumber the NAL units the caller once held at the same time, plus one.
package struct HandedOutBuffers: Sendable {
    /// The most buffers kept: those of NAL units the caller may still hold and those it has let
    /// go of. An access-unit pipeline holds the access unit being assembled and those waiting
    /// for their timestamps (the reorder depth): 8 covers, say, two slices per picture that
    /// span chunks with a reorder depth of 2.
    package static let limit = 8

    private var buffers: [[UInt8]] = []

    /// The number of buffers kept.
    package var count: Int { buffers.count }

    /// None kept.
    package init() {}

    /// Keeps `buffer` (handed out, perhaps still held by the caller) to reuse later. When
    /// ``limit`` are kept already, it takes the place of one the caller still holds (the
    /// caller's memory, not the parser's), or is let go when all kept ones are free already.
    package mutating func keep(_ buffer: inout [UInt8]) {
        guard buffer.capacity > 0 else { return }
        if buffers.count < Self.limit {
            if buffers.capacity == 0 { buffers.reserveCapacity(Self.limit) }
            buffers.append([])
            swap(&buffers[buffers.count &- 1], &buffer)
            return
        }
        for i in buffers.indices where !Self.isUnique(&buffers[i]) {
            swap(&buffers[i], &buffer)
            buffer = []  // the caller's copy lives on
            return
        }
        buffer = []
    }

    /// A kept buffer that nothing else refers to any more (its bytes left as they are: the
    /// parser counts the bytes it uses), or nil.
    package mutating func takeFree() -> [UInt8]? {
        var i = buffers.count
        while i > 0 {
            i &-= 1
            if Self.isUnique(&buffers[i]) {
                buffers.swapAt(i, buffers.count &- 1)
                return buffers.removeLast()
            }
        }
        return nil
    }

    /// True when `buffer` has storage that no other array, slice or ``NALUnit`` refers to:
    /// mutating it then does not copy. Conservatively false where the test is not available.
    ///
    /// On platforms without the Objective-C runtime an `Array` is one strong reference to its
    /// storage object, which `isKnownUniquelyReferenced` can test in place (without a retain).
    /// Elsewhere (bridged arrays) the answer is false: the parser then allocates, as it would
    /// without this type.
    static func isUnique<Element>(_ buffer: inout [Element]) -> Bool {
        guard buffer.capacity > 0 else { return false }  // the shared empty storage
        #if _runtime(_ObjC)
        return false
        #else
        guard MemoryLayout<[Element]>.size == MemoryLayout<AnyObject?>.size else { return false }
        // As an optional reference: tested as a plain `AnyObject`, an unoptimised Swift 6 build
        // answers false whatever the count (a copy of the existential, measured with 6.3).
        return withUnsafeMutablePointer(to: &buffer) { pointer in
            UnsafeMutableRawPointer(pointer).withMemoryRebound(to: AnyObject?.self, capacity: 1) {
                isKnownUniquelyReferenced(&$0.pointee)
            }
        }
        #endif
    }
}
