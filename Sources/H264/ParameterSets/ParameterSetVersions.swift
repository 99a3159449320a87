/// Earlier versions of the SPS and PPS a ``ParameterSetStore`` parsed, each kept with its NAL
/// unit bytes, so that a set whose bytes switch back to ones seen before under its id is
/// restored without a parse (and without the parse's allocations).
///
/// A version is what parsing its bytes gives under the store's ``ParameterSetStore/parseMode``
/// (the owner forgets every version when the mode changes). An SPS depends on nothing else; a
/// PPS's parse depends on the SPS it names, so a PPS version holds the generation of the SPS it
/// was parsed against and is valid only while that SPS id holds the same generation (every
/// SPS stored gets a new generation, except one restored from here, which gets its own back).
///
/// Memory: at most ``capacity`` versions holding at most ``byteBudget`` NAL unit bytes in total
/// (a NAL unit over ``maximumUnitBytes`` is not kept), each with its parsed set; least recently
/// used versions are dropped first, so a stream that cycles ids and bytes cannot grow it.
struct ParameterSetVersions: Sendable {
    /// The most versions kept: as many as a store has SPS and PPS ids.
    static let capacity = ParameterSetStore.spsIDCount &+ ParameterSetStore.ppsIDCount
    /// The most NAL unit bytes kept, over all versions.
    static let byteBudget = 64 << 10
    /// The largest NAL unit kept (an SPS with 255 reference frame offsets is about 2 KB).
    static let maximumUnitBytes = 4 << 10

    /// A parsed set.
    enum Parsed: Sendable {
        case sps(SequenceParameterSet)
        case pps(PictureParameterSet)
    }

    /// One version: its NAL unit, what it parses to, and when it was last used.
    struct Version: Sendable {
        /// The NAL unit: the header byte, then the payload as carried.
        let unit: [UInt8]
        let parsed: Parsed
        /// For an SPS, its generation; for a PPS, the generation of the SPS it was parsed
        /// against (0: no such SPS).
        let spsGeneration: UInt64
        /// The `clock` value of its last use.
        var lastUse: UInt64
    }

    private var versions: [Version] = []
    /// The hash of each version's type and payload, in step with `versions`.
    private var hashes: [UInt64] = []
    /// An open-addressing index of `versions` by hash (linear probing): 0 for an empty entry,
    /// else a version's index + 1. ``tableSize`` entries once a version is added, at most
    /// ``capacity`` in use.
    private var table: [Int16] = []
    /// The size of `table`: a power of two at least three times ``capacity`` (short probes).
    static let tableSize = 1024
    /// The bytes of `versions`' NAL units.
    private var byteCount = 0
    /// Counts uses (< 2^64: one per parameter set ingested).
    private var clock: UInt64 = 0
    /// The version found or added last (-1: none), for ``unit(matching:)``.
    private var last = -1

    /// The number of versions kept.
    var count: Int { versions.count }
    /// True when no version is kept.
    var isEmpty: Bool { versions.isEmpty }
    /// The NAL unit bytes kept.
    var bytes: Int { byteCount }

    /// The version of an SPS (`isSPS`) or PPS with payload `payload`, valid with the SPS
    /// generations `generations` holds by SPS id (nil: 0), marked as used: its parsed set and
    /// ``Version/spsGeneration``; nil when none is kept.
    /// - Complexity: O(payload) to hash and compare bytes, and a probe of a table at most 28%
    ///   full; no allocation.
    mutating func find(payload: ArraySlice<UInt8>, isSPS: Bool,
                       generations: borrowing ParameterSetSlots<UInt64>) -> (parsed: Parsed, spsGeneration: UInt64)? {
        guard !versions.isEmpty else { return nil }
        let h = Self.hash(payload, isSPS: isSPS)
        var p = Self.home(h)
        while true {
            let entry = Int(table[p])
            guard entry != 0 else { return nil }
            p = (p &+ 1) & (Self.tableSize &- 1)
            let i = entry &- 1
            guard hashes[i] == h else { continue }
            guard ParameterSetPayloads.sameBytes(versions[i].unit.dropFirst(), payload) else { continue }
            switch versions[i].parsed {
            case .sps:
                guard isSPS else { continue }
            case .pps(let pps):
                guard !isSPS, generations[Int(pps.spsID)] ?? 0 == versions[i].spsGeneration else { continue }
            }
            clock &+= 1  // one per parameter set: cannot reach 2^64
            versions[i].lastUse = clock
            last = i
            return (versions[i].parsed, versions[i].spsGeneration)
        }
    }

    /// Keeps the NAL unit of header byte `header` and payload `payload` (an SPS or PPS that
    /// parsed to `parsed` without warnings, with `spsGeneration` as ``Version/spsGeneration``),
    /// dropping the least recently used versions to stay within the bounds; a unit over
    /// ``maximumUnitBytes`` is not kept.
    /// - Complexity: O(``count``) per version dropped (the least recently used is searched for),
    ///   O(n) to copy and hash the unit.
    mutating func add(header: UInt8, payload: ArraySlice<UInt8>, parsed: Parsed, spsGeneration: UInt64) {
        let n = payload.count &+ 1  // a payload in memory: no overflow
        last = -1
        guard n > 1, n <= Self.maximumUnitBytes else { return }
        while versions.count >= Self.capacity || byteCount &+ n > Self.byteBudget {  // both bounded: no overflow
            dropLeastRecentlyUsed()
        }
        clock &+= 1
        let isSPS: Bool
        switch parsed {
        case .sps: isSPS = true
        case .pps: isSPS = false
        }
        if table.isEmpty { table = Array(repeating: 0, count: Self.tableSize) }
        let h = Self.hash(payload, isSPS: isSPS)
        var unit: [UInt8] = []
        unit.reserveCapacity(n)
        unit.append(header)
        unit.append(contentsOf: payload)
        versions.append(Version(unit: unit, parsed: parsed, spsGeneration: spsGeneration, lastUse: clock))
        hashes.append(h)
        byteCount &+= n
        last = versions.count &- 1
        var p = Self.home(h)
        while table[p] != 0 { p = (p &+ 1) & (Self.tableSize &- 1) }  // at most capacity entries in use
        table[p] = Int16(versions.count)  // <= capacity
    }

    /// The version ``find(payload:isSPS:generations:)`` or ``add(header:payload:parsed:spsGeneration:)``
    /// last returned or kept, when its bytes are `unit`'s, header byte included: its id and its
    /// NAL unit over the storage kept here (no copy).
    func unit(matching unit: NALUnit) -> (id: Int, unit: NALUnit)? {
        guard last >= 0, last < versions.count else { return nil }
        let kept = versions[last].unit
        guard ParameterSetPayloads.sameBytes(kept[...], unit.bytes) else { return nil }
        let id: Int
        switch versions[last].parsed {
        case .sps(let sps): id = Int(sps.id)
        case .pps(let pps): id = Int(pps.id)
        }
        return (id, NALUnit(unchecked: kept[...]))
    }

    /// Forgets every version.
    mutating func forgetAll() {
        versions = []
        hashes = []
        table = []
        byteCount = 0
        last = -1
    }

    private mutating func dropLeastRecentlyUsed() {
        guard var oldest = versions.indices.first else { return }
        for i in versions.indices where versions[i].lastUse < versions[oldest].lastUse { oldest = i }
        byteCount &-= versions[oldest].unit.count  // counted when added
        let end = versions.count &- 1
        removeFromTable(oldest)
        if oldest != end {
            // The last version moves to the freed index.
            table[position(of: end)] = Int16(oldest &+ 1)  // < capacity
            versions.swapAt(oldest, end)
            hashes.swapAt(oldest, end)
        }
        versions.removeLast()
        hashes.removeLast()
    }

    /// True when the index finds every version from its hash, holds nothing else, and the byte
    /// count is the sum of the versions' (what the tests check after every change).
    var isConsistent: Bool {
        let mask = Self.tableSize &- 1
        for i in versions.indices {
            var p = Self.home(hashes[i])
            while Int(table[p]) != i &+ 1 {
                if table[p] == 0 { return false }
                p = (p &+ 1) & mask
            }
        }
        return table.count { $0 != 0 } == versions.count && versions.reduce(0) { $0 + $1.unit.count } == byteCount
    }

    /// The first `table` entry a hash probes.
    private static func home(_ h: UInt64) -> Int { Int(truncatingIfNeeded: h) & (tableSize &- 1) }

    /// The `table` position holding version `i`.
    private func position(of i: Int) -> Int {
        var p = Self.home(hashes[i])
        while Int(table[p]) != i &+ 1 { p = (p &+ 1) & (Self.tableSize &- 1) }  // version i is in the table
        return p
    }

    /// Empties version `i`'s `table` entry, moving later entries of its probe run back so that
    /// every version stays reachable from its home (deletion in linear probing, no tombstones).
    private mutating func removeFromTable(_ i: Int) {
        let mask = Self.tableSize &- 1
        var hole = position(of: i)
        var q = (hole &+ 1) & mask
        while table[q] != 0 {
            let home = Self.home(hashes[Int(table[q]) &- 1])
            // The entry at q may fill the hole when its home is not in (hole, q], cyclically.
            let distanceToQ = (q &- home) & mask
            let distanceToHole = (hole &- home) & mask
            if distanceToHole < distanceToQ {
                table[hole] = table[q]
                hole = q
            }
            q = (q &+ 1) & mask
        }
        table[hole] = 0
    }

    /// FNV-1a over the payload, seeded apart for SPS and PPS.
    private static func hash(_ payload: ArraySlice<UInt8>, isSPS: Bool) -> UInt64 {
        var h: UInt64 = isSPS ? 0xcbf2_9ce4_8422_2325 : 0x84222325_cbf29ce4
        for b in payload {
            h = (h ^ UInt64(b)) &* 0x100_0000_01b3
        }
        return h
    }
}
