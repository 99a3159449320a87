/// The lists of a ``SliceHeader`` that most slices leave empty — both reference list
/// modifications and `pred_weight_table()` — behind one reference that is nil while they are
/// all empty.
///
/// Four arrays held by the header itself cost four reference-count operations to copy a header
/// and four to drop one, empty or not. Here a header
/// whose lists are empty holds one nil reference: making, copying and dropping it costs
/// almost nothing. The storage is shared between copies of a header and copied when a shared
/// one is changed (copy on write).
///
/// A header parsed into again (``SliceHeader/parse(_:context:into:)``) keeps its storage and the
/// capacity of its lists. The weight table is absent by flag, so that a slice that does not
/// code it keeps its storage for the next one that does. (`dec_ref_pic_marking()`, coded by
/// every reference slice, stays in the header itself: it is coded in place there.) Equality and hashing
/// see the values only: whether there is storage, and what an absent table's storage holds, are
/// not part of the value.
///
/// Memory: one storage object per header that has non-empty lists or was parsed into, holding
/// at most the syntax's caps (64 modifications per list, 32 weight entries per list).
struct SliceHeaderLists: Hashable, Sendable {
    /// The lists' storage. Changed only through a reference known to be unique (copy on write):
    /// a storage shared between headers, or threads, is never changed.
    final class Storage: @unchecked Sendable {
        // The slice header's syntax codes these in place through the unique reference, one
        // access at a time: no dynamic exclusivity check is needed.
        /// `ref_pic_list_modification()` of list 0.
        @exclusivity(unchecked) var modificationL0 = RefPicListModification()
        /// `ref_pic_list_modification()` of list 1.
        @exclusivity(unchecked) var modificationL1 = RefPicListModification()
        /// `pred_weight_table()` while ``SliceHeaderLists/hasPredWeightTable``, storage otherwise.
        @exclusivity(unchecked) var predWeightTable = PredWeightTable()

        init() {}

        init(copying other: Storage) {
            modificationL0 = other.modificationL0
            modificationL1 = other.modificationL1
            predWeightTable = other.predWeightTable
        }
    }

    /// The storage; nil means every list empty and the table equal to `PredWeightTable()`.
    var storage: Storage?
    /// Whether `pred_weight_table()` is there.
    var hasPredWeightTable = false

    /// Empty lists, no table: no storage.
    init() {}

    /// The list 0 modifications.
    var modificationL0: RefPicListModification { storage?.modificationL0 ?? RefPicListModification() }
    /// The list 1 modifications.
    var modificationL1: RefPicListModification { storage?.modificationL1 ?? RefPicListModification() }
    /// The weight table's content, whether or not it is there.
    var predWeightTableContent: PredWeightTable { storage?.predWeightTable ?? PredWeightTable() }

    /// The storage, made (or copied, when shared) so that it can be changed.
    mutating func uniqueStorage() -> Storage {
        if storage == nil {
            storage = Storage()
        } else if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(copying: storage.unsafelyUnwrapped)
        }
        return storage.unsafelyUnwrapped
    }

    /// Copies a shared storage, so that coding can change it in place; nothing when there is
    /// none.
    mutating func makeStorageUnique() {
        if storage != nil && !isKnownUniquelyReferenced(&storage) {
            storage = Storage(copying: storage.unsafelyUnwrapped)
        }
    }

    /// Empty lists, no table (``SliceHeader/resetForReading(nalUnitHeader:keepingStorage:)``):
    /// with `keepingStorage`, a unique storage stays, its lists emptied with their capacity
    /// kept, and a header without unique storage gets new (empty) storage; otherwise the storage
    /// is let go (a fresh header has none).
    mutating func resetForReading(keepingStorage: Bool) {
        hasPredWeightTable = false
        guard keepingStorage else {
            storage = nil
            return
        }
        guard storage != nil, isKnownUniquelyReferenced(&storage) else {
            storage = Storage()
            return
        }
        unowned(unsafe) let s = storage.unsafelyUnwrapped  // held by `storage`: no retain
        if !s.modificationL0.operations.isEmpty { s.modificationL0.operations.removeAll(keepingCapacity: true) }
        if !s.modificationL1.operations.isEmpty { s.modificationL1.operations.removeAll(keepingCapacity: true) }
    }

    /// Sets one of the storage's structures; an empty value needs no storage.
    mutating func set<T: SyntaxDefaultValue & Equatable>(_ field: ReferenceWritableKeyPath<Storage, T>, _ value: T) {
        if storage != nil || value != T() { uniqueStorage()[keyPath: field] = value }
    }

    /// The table at `field`, moved out of the storage (no copy of its arrays) when
    /// the flag `present` is set, which it clears; nil when absent.
    mutating func take<T: SyntaxDefaultValue & Equatable>(_ field: ReferenceWritableKeyPath<Storage, T>,
                                                          present: WritableKeyPath<Self, Bool>) -> T? {
        guard self[keyPath: present] else { return nil }
        self[keyPath: present] = false
        guard storage != nil else { return T() }
        var out = T()
        swap(&out, &uniqueStorage()[keyPath: field])
        return out
    }

    static func == (a: Self, b: Self) -> Bool {
        guard a.hasPredWeightTable == b.hasPredWeightTable else { return false }
        if a.storage === b.storage { return true }
        return a.modificationL0 == b.modificationL0 && a.modificationL1 == b.modificationL1
            && (!a.hasPredWeightTable || a.predWeightTableContent == b.predWeightTableContent)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(modificationL0)
        hasher.combine(modificationL1)
        hasher.combine(hasPredWeightTable ? predWeightTableContent : nil)
    }
}

/// A structure of a slice header's lists, with an empty value to code into.
protocol SyntaxDefaultValue { init() }
extension RefPicListModification: SyntaxDefaultValue {
    init() { self.init(operations: []) }
}
extension PredWeightTable: SyntaxDefaultValue {
    /// Equal to `PredWeightTable()` (checked without making one).
    var isEmpty: Bool { l0.isEmpty && l1.isEmpty && lumaLog2WeightDenom == 0 && chromaLog2WeightDenom == 0 }
}
extension DecRefPicMarking: SyntaxDefaultValue {}
