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
    /// The hash of each version's type and payload, in step with `versions` (scanned first).
    private var hashes: [UInt64] = []
    /// The bytes of `versions`' NAL units.
    private var byteCount = 0
    /// Counts uses (< 2^64: one per parameter set ingested).
    private var clock: UInt64 = 0
    /// The version found or added last (-1: none), for ``unit(matching:)``.
    private var last = -1

    /// The number of versions kept.
    var count: Int { versions.count }
    /// The NAL unit bytes kept.
    var bytes: Int { byteCount }

    /// The version of an SPS (`isSPS`) or PPS with payload `payload`, valid with the SPS
    /// generations `generations` holds by SPS id (nil: 0), marked as used: its parsed set and
    /// ``Version/spsGeneration``; nil when none is kept.
    /// - Complexity: O(``count``) hash comparisons and O(payload) to hash and compare bytes; no
    ///   allocation.
    mutating func find(payload: ArraySlice<UInt8>, isSPS: Bool,
                       generations: borrowing ParameterSetSlots<UInt64>) -> (parsed: Parsed, spsGeneration: UInt64)? {
        guard !versions.isEmpty else { return nil }
        let h = Self.hash(payload, isSPS: isSPS)
        for i in hashes.indices where hashes[i] == h {
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
        return nil
    }

    /// Keeps `unit` (an SPS or PPS that parsed to `parsed` without warnings, with `spsGeneration`
    /// as ``Version/spsGeneration``), dropping the least recently used versions to stay within
    /// the bounds; a unit over ``maximumUnitBytes`` is not kept.
    /// - Complexity: O(``count``) per version dropped, O(n) to copy and hash the unit.
    mutating func add(_ unit: NALUnit, parsed: Parsed, spsGeneration: UInt64) {
        let n = unit.count
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
        versions.append(Version(unit: Array(unit.bytes), parsed: parsed, spsGeneration: spsGeneration, lastUse: clock))
        hashes.append(Self.hash(unit.payload, isSPS: isSPS))
        byteCount &+= n
        last = versions.count &- 1
    }

    /// The version ``find(payload:isSPS:generations:)`` or ``add(_:parsed:spsGeneration:)``
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
        byteCount = 0
        last = -1
    }

    private mutating func dropLeastRecentlyUsed() {
        guard var oldest = versions.indices.first else { return }
        for i in versions.indices where versions[i].lastUse < versions[oldest].lastUse { oldest = i }
        byteCount &-= versions[oldest].unit.count  // counted when added
        let end = versions.count &- 1
        versions.swapAt(oldest, end)
        hashes.swapAt(oldest, end)
        versions.removeLast()
        hashes.removeLast()
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
