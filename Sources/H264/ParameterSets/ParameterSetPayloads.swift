/// The payload bytes of the SPS and PPS that a ``ParameterSetStore`` parsed and stored, by slot
/// (SPS id, or 32 + PPS id), so that a parameter set received again with the same bytes is
/// recognised without parsing it.
struct ParameterSetPayloads: Sendable {
    /// The first PPS slot.
    static let ppsBase = ParameterSetStore.spsIDCount
    /// The number of slots.
    static let slotCount = ParameterSetStore.spsIDCount &+ ParameterSetStore.ppsIDCount

    /// The payload of each slot; empty when unknown (and no storage before the first).
    private var payloads: [[UInt8]] = []
    /// Bit `s` of word `s / 64` is set when slot `s` holds a payload.
    private var occupied: [UInt64] = []

    /// Keeps `payload` as slot `slot`'s.
    mutating func remember(_ payload: ArraySlice<UInt8>, slot: Int) {
        guard slot >= 0, slot < Self.slotCount, !payload.isEmpty else { return }
        if payloads.isEmpty {
            payloads = Array(repeating: [], count: Self.slotCount)
            occupied = Array(repeating: 0, count: (Self.slotCount &+ 63) / 64)
        }
        payloads[slot].removeAll(keepingCapacity: true)
        payloads[slot].append(contentsOf: payload)
        occupied[slot >> 6] |= 1 << UInt64(slot & 63)
    }

    /// Forgets slot `slot`'s payload. Its storage is kept for the slot's next payload (a changed
    /// set is forgotten when stored, then remembered): no allocation per change of a set of the
    /// same size or smaller.
    mutating func forget(slot: Int) {
        guard slot >= 0, slot < Self.slotCount, !payloads.isEmpty, occupied[slot >> 6] >> UInt64(slot & 63) & 1 != 0 else { return }
        payloads[slot].removeAll(keepingCapacity: true)
        occupied[slot >> 6] &= ~(1 << UInt64(slot & 63))
    }

    /// Calls `body` with each slot that holds a payload, in slot order, and its payload.
    func forEachPayload(_ body: (Int, ArraySlice<UInt8>) -> Void) {
        for (word, bits) in occupied.enumerated() {
            var bits = bits
            while bits != 0 {
                let slot = word << 6 | bits.trailingZeroBitCount  // < slotCount
                bits &= bits &- 1
                body(slot, payloads[slot][...])
            }
        }
    }

    /// Forgets every payload.
    mutating func forgetAll() {
        payloads = []
        occupied = []
    }

    /// True when a slot in `slots` holds exactly `payload`. Equal bytes name the same id, so a
    /// match is the slot of `payload`'s own id (no id is read).
    /// - Complexity: O(occupied slots in `slots`) comparisons of lengths, O(payload) bytes for
    ///   the one that matches; no allocation.
    func contains(_ payload: ArraySlice<UInt8>, in slots: Range<Int>) -> Bool {
        guard !payloads.isEmpty, !payload.isEmpty, slots.lowerBound >= 0, slots.upperBound <= Self.slotCount,
              !slots.isEmpty else { return false }
        for word in (slots.lowerBound >> 6)...((slots.upperBound &- 1) >> 6) {
            var bits = occupied[word]
            while bits != 0 {
                let slot = word << 6 | bits.trailingZeroBitCount  // < slotCount
                bits &= bits &- 1
                if slots.contains(slot) && Self.sameBytes(payloads[slot][...], payload) { return true }
            }
        }
        return false
    }

    /// True when `a` and `b` hold the same bytes.
    /// - Complexity: O(n), eight bytes at a time.
    static func sameBytes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                let n = x.count
                var i = 0
                while i &+ 8 <= n {  // i + 8 <= n: no overflow
                    if x.loadUnaligned(fromByteOffset: i, as: UInt64.self) != y.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                        return false
                    }
                    i &+= 8
                }
                while i < n {
                    if x[i] != y[i] { return false }
                    i &+= 1
                }
                return true
            }
        }
    }
}
