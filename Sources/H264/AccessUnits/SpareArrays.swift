/// Emptied arrays of access units handed back, kept for the next access units: those of fewer
/// than twice ``smallCapacityLimit`` elements for any access unit, and a few larger ones (the
/// stream had access units that large) that an access unit growing past its array's room takes
/// over.
///
/// Memory: at most ``smallLimit`` arrays of fewer than twice ``smallCapacityLimit`` elements and
/// ``largeLimit`` larger ones (as large as the stream's largest access units needed: at most
/// twice ``AccessUnitLimits/maxNALUnitsPerAccessUnit``).
struct SpareArrays<Element>: Sendable where Element: Sendable {
    /// The most emptied arrays kept for reuse: as many as access units can be in flight between
    /// the assembler and the caller (the timestamp assigner holds up to 33).
    static var smallLimit: Int { 34 }
    /// The size of an access unit from which its arrays may take over the larger ones kept; an
    /// array of less than twice as many elements is kept among the small ones (an array grown
    /// to this many may hold a few more: the allocator rounds up).
    static var smallCapacityLimit: Int { 256 }
    /// The most larger arrays kept: the access unit being built, and the one before it coming
    /// back while the next is built.
    static var largeLimit: Int { 2 }

    private var small: [[Element]] = []
    private var large: [[Element]] = []

    /// An emptied array (a small one), or nil when none is kept.
    mutating func take() -> [Element]? { small.popLast() }

    /// Empties `array` in place and keeps it, or frees it when it is shared, too large or the
    /// spares of its size are full: `array` is left without storage either way.
    mutating func keep(_ array: inout [Element]) {
        let capacity = array.capacity
        guard capacity > 0 else { return }
        if capacity < 2 &* Self.smallCapacityLimit {  // the allocator may round 256 up a little
            if small.count < Self.smallLimit {
                array.removeAllKeepingCapacity()
                small.append(array.takeAll())
                return
            }
        } else if large.count < Self.largeLimit && HandedOutBuffers.isUnique(&array) {
            array.removeAll(keepingCapacity: true)  // unique: in place
            large.append(array.takeAll())
            return
        }
        array = []
    }

    /// Called when `array` is full in an access unit past ``smallCapacityLimit`` NAL units (a
    /// small array grows up to that in place and is kept with its room): trades it for the
    /// roomiest larger array kept, if that has
    /// more room (the elements move over; `array`'s former storage is kept, emptied), so that
    /// an access unit as large as earlier ones grows without new storage.
    @inline(never)
    mutating func makeRoom(in array: inout [Element]) {
        guard !large.isEmpty else { return }
        var roomiest = 0
        for i in large.indices where large[i].capacity > large[roomiest].capacity { roomiest = i }
        guard large[roomiest].capacity > array.capacity else { return }
        large.swapAt(roomiest, large.count &- 1)
        var room = large.removeLast()
        room.append(contentsOf: array)  // fits: more room than `array` has elements
        swap(&room, &array)
        keep(&room)
    }
}
