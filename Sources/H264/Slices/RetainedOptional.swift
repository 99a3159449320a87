/// An optional sub-structure of a slice header (`dec_ref_pic_marking()`)
/// that keeps its storage while absent.
///
/// A header parsed into again (``SliceHeader/parse(_:context:into:)``) goes from a slice that
/// codes the structure to one that does not and back; an `Optional` would drop the structure's
/// arrays at nil and allocate them again at the next slice that codes it. Here absence is a flag:
/// the arrays stay, and equality and hashing see exactly what the `Optional` would (an absent
/// value's storage is not part of the value).
struct RetainedOptional<Wrapped: SyntaxDefaultValue & Hashable & Sendable>: Hashable, Sendable {
    /// The structure while ``isPresent``; storage (of no meaning) otherwise.
    var storage: Wrapped
    /// Whether the structure is there.
    var isPresent = false

    /// An absent structure (empty storage: no allocation).
    init() { storage = Wrapped() }

    /// The structure as an optional. Setting nil keeps the storage; changing it in place
    /// (`value?.field = x`) moves it out and back, without copying its arrays.
    var value: Wrapped? {
        get { isPresent ? storage : nil }
        set {
            if let newValue { storage = newValue }
            isPresent = newValue != nil
        }
        _modify {
            var moved = take()
            defer { value = moved }
            yield &moved
        }
    }

    /// The structure, moved out (its storage with it: no copy of its arrays), leaving an absent
    /// one; nil when absent (the storage stays).
    mutating func take() -> Wrapped? {
        guard isPresent else { return nil }
        isPresent = false
        var out = Wrapped()
        swap(&out, &storage)
        return out
    }

    static func == (a: Self, b: Self) -> Bool {
        a.isPresent == b.isPresent && (!a.isPresent || a.storage == b.storage)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
