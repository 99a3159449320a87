/// The start codes ahead of a reader that walks a whole buffer from front to back (the batch
/// splitter, Annex-B -> AVCC conversion), found a window at a time by a scan that reads four
/// regions of the window at once.
///
/// One sequential scan waits on memory: a core keeps only so many cache-line fills in flight
/// for one stream of addresses, and the hardware prefetcher follows a stream only within a
/// page. Four interleaved streams 16 KiB apart keep four times as many fills in flight; on a
/// buffer far larger than the caches the scan then runs at about memcpy's speed instead of
/// two-thirds of it. The positions found wait in a buffer of fixed size (allocated once), in
/// order; the reader takes them with ``next(_:from:count:)``, which answers exactly as
/// ``StartCodeScanner/find(_:from:count:third:)`` does.
///
/// Memory: 16 KiB of positions, whatever the input. Dense start codes (more than 1,024 in one
/// region: NAL units of under 16 bytes) end the window early; the work stays linear.
struct StartCodeLookahead: Sendable {
    /// Regions scanned at once.
    static let laneCount = 4
    /// Bytes of one region: a window is at most `laneCount * laneBytes` bytes.
    static let laneBytes = 16 << 10
    /// Positions one region can hold.
    static let laneCapacity = 1024
    /// Inputs shorter than this (from the reader's position) are scanned directly.
    static let minimumWindow = 4 << 10

    /// Offsets from `windowStart` of the start codes found, lane after lane (lane k's at
    /// `k * laneCapacity`), compacted in order after each fill.
    private var positions = [Int32](repeating: 0, count: laneCount * laneCapacity)
    private var windowStart = 0
    private var head = 0
    private var total = 0
    /// Every start code that begins before this index is in `positions`.
    private var scannedEnd = 0

    init() {}

    /// The index of the first `00` of the first `00 00 01` at or after `from` in
    /// `base[0..<count]`, as ``StartCodeScanner/find(_:from:count:third:)`` gives it. Calls must
    /// pass the same buffer and count, and `from` must not decrease from call to call.
    mutating func next(_ base: UnsafePointer<UInt8>, from: Int, count: Int) -> Int? {
        while true {
            while head < total {
                let j = windowStart &+ Int(positions[head])
                if j >= from { return j }
                head &+= 1
            }
            let start = Swift.max(from, scannedEnd)
            // The lanes' loads stay below count when count - start > minimumWindow + 34.
            guard count &- start > Self.minimumWindow &+ 34 else {
                return StartCodeScanner.find(base, from: start, count: count)
            }
            fill(base, from: start, count: count)
        }
    }

    /// Scans the next window from `start` (with `count - start > minimumWindow + 34`).
    private mutating func fill(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) {
        let lanes = Self.laneCount
        let capacity = Self.laneCapacity
        // Loads reach 33 bytes past a block's start: blocks start below count - 34.
        let available = count &- 34 &- start
        let laneBytes = Swift.min(Self.laneBytes, (available / lanes) & ~31)  // >= 1,024
        windowStart = start
        head = 0
        var found = SIMD4<Int>(repeating: 0)
        var stop = laneBytes  // the offset at which lane 0 is complete
        var overflowed = false
        let raw = UnsafeRawPointer(base)
        positions.withUnsafeMutableBufferPointer { out in
            var offset = 0
            scan: while offset < laneBytes {
                for lane in 0..<lanes {
                    let i = start &+ lane &* laneBytes &+ offset  // < count - 34
                    let (low, high) = StartCodeScanner.pairMasks(raw, at: i)
                    guard (low | high) != .zero else { continue }
                    // Every candidate lane of the 32-byte block, in order.
                    for word in 0..<4 {
                        var m = word < 2 ? low[word] : high[word &- 2]
                        while m != 0 {
                            let j = i &+ word &* 8 &+ StartCodeScanner.takeLowestLane(&m)
                            guard base[j &+ 2] == 1 else { continue }
                            if found[lane] == capacity {
                                // This lane is full: keep lane 0 up to here (or up to its last
                                // position when it is the full one), drop the others.
                                stop = lane == 0 ? Int(out[capacity &- 1]) &+ 1 : offset &+ 32
                                overflowed = true
                                break scan
                            }
                            out[lane &* capacity &+ found[lane]] = Int32(truncatingIfNeeded: j &- start)  // < 64 KiB
                            found[lane] &+= 1
                        }
                    }
                }
                offset &+= 32
            }
            if overflowed {
                total = found[0]
                scannedEnd = start &+ stop
                return
            }
            // Complete: move lanes 1... after lane 0, in order.
            var n = found[0]
            for lane in 1..<lanes {
                let from = lane &* capacity
                for k in 0..<found[lane] { out[n &+ k] = out[from &+ k] }
                n &+= found[lane]
            }
            total = n
            scannedEnd = start &+ lanes &* laneBytes
        }
    }
}
