/// A table of values by parameter-set id that holds storage only up to the highest id stored.
///
/// Streams use few ids (most only 0), while the specification allows 32 SPS and 256 PPS: a
/// table of every id made in `init` cost each new store, parser or editor several allocations
/// and tens of kilobytes zeroed before its first byte (what a service pays per stream and a fuzz
/// target per input). Reading an id never stored (or out of range, negative included) gives nil,
/// as an empty slot of a full table would.
///
/// Memory: one slot per id up to the highest stored (at most the id range its owner allows).
@usableFromInline
struct ParameterSetSlots<Element: Sendable>: Sendable {
    @usableFromInline var slots: [Element?] = []

    /// Creates an empty table (no allocation).
    @inlinable init() {}

    /// One past the highest id that may hold a value: ids at or past it hold nil.
    var count: Int { slots.count }

    /// The value at `id`, nil when none was stored there. Storing nil past ``count`` allocates
    /// nothing.
    /// - Complexity: O(1) to read; storing at a new highest id grows the table to it (amortised
    ///   O(1) per id, bounded by the owner's id range).
    @inlinable
    subscript(id: Int) -> Element? {
        get { UInt(bitPattern: id) < UInt(slots.count) ? slots[id] : nil }
        set {
            if UInt(bitPattern: id) >= UInt(slots.count) {
                guard newValue != nil, id >= 0 else { return }
                slots.append(contentsOf: repeatElement(nil, count: id &- slots.count &+ 1))
            }
            slots[id] = newValue
        }
    }

    /// True when no id holds a value.
    /// - Complexity: O(n) in ``count``.
    var isEmpty: Bool { !slots.contains { $0 != nil } }
}
