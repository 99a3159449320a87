/// The start codes ahead of a reader that walks a whole buffer from front to back (the batch
/// splitter, the streaming splitter inside a large chunk), found a window at a time by a scan that reads four
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
    /// Regions scanned at once (the scan loop is written out for four).
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

    /// Forgets the positions found: the next call may pass another buffer.
    mutating func reset() {
        windowStart = 0
        head = 0
        total = 0
        scannedEnd = 0
    }

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
        // Loads reach 33 bytes past a block's start: blocks start below count - 34.
        let available = count &- 34 &- start
        let laneBytes = Swift.min(Self.laneBytes, (available / Self.laneCount) & ~31)  // >= 1,024
        windowStart = start
        head = 0
        let raw = UnsafeRawPointer(base)
        let (total, scanned) = positions.withUnsafeMutableBufferPointer { out -> (Int, Int) in
            var lanes = Lanes(out: out, start: start)
            var offset = 0
            // The four lanes' blocks at the same offset, one test for all 128 positions.
            while offset < laneBytes {
                let i0 = start &+ offset  // i3 = i0 + 3 * laneBytes < count - 34
                let i1 = i0 &+ laneBytes
                let i2 = i1 &+ laneBytes
                let i3 = i2 &+ laneBytes
                let m0 = StartCodeScanner.matchMasks(raw, at: i0, third: 1)
                let m1 = StartCodeScanner.matchMasks(raw, at: i1, third: 1)
                let m2 = StartCodeScanner.matchMasks(raw, at: i2, third: 1)
                let m3 = StartCodeScanner.matchMasks(raw, at: i3, third: 1)
                let any = (m0.low | m0.high) | (m1.low | m1.high) | (m2.low | m2.high) | (m3.low | m3.high)
                if any[0] | any[1] != 0 {
                    guard lanes.record(m0, lane: 0, at: i0), lanes.record(m1, lane: 1, at: i1),
                          lanes.record(m2, lane: 2, at: i2), lanes.record(m3, lane: 3, at: i3) else {
                        // A lane is full: keep lane 0 up to here (up to its last position when
                        // it is the full one); the others are scanned again in the next window.
                        let stop = lanes.fullLane == 0 ? Int(out[Self.laneCapacity &- 1]) &+ 1 : offset &+ 32
                        return (lanes.found[0], start &+ stop)
                    }
                }
                offset &+= 32
            }
            return (lanes.compact(), start &+ Self.laneCount &* laneBytes)
        }
        self.total = total
        scannedEnd = scanned
    }

    /// The positions of one window, lane by lane.
    private struct Lanes {
        let out: UnsafeMutableBufferPointer<Int32>
        let start: Int
        var found = SIMD4<Int>(repeating: 0)
        var fullLane = -1

        init(out: UnsafeMutableBufferPointer<Int32>, start: Int) {
            self.out = out
            self.start = start
        }

        /// Records the start codes of `lane`'s block at `i`; false when the lane is full.
        mutating func record(_ masks: (low: SIMD2<UInt64>, high: SIMD2<UInt64>), lane: Int, at i: Int) -> Bool {
            var bits = StartCodeScanner.laneBits(masks.low[0]) | StartCodeScanner.laneBits(masks.low[1]) &<< 8
                | StartCodeScanner.laneBits(masks.high[0]) &<< 16 | StartCodeScanner.laneBits(masks.high[1]) &<< 24
            let capacity = StartCodeLookahead.laneCapacity
            while bits != 0 {
                let j = i &+ bits.trailingZeroBitCount
                bits &= bits &- 1
                if found[lane] == capacity {
                    fullLane = lane
                    return false
                }
                out[lane &* capacity &+ found[lane]] = Int32(truncatingIfNeeded: j &- start)  // < 64 KiB
                found[lane] &+= 1
            }
            return true
        }

        /// Moves lanes 1... up behind lane 0, in order; returns the number of positions.
        func compact() -> Int {
            var n = found[0]
            for lane in 1..<StartCodeLookahead.laneCount {
                let from = lane &* StartCodeLookahead.laneCapacity
                for k in 0..<found[lane] { out[n &+ k] = out[from &+ k] }
                n &+= found[lane]
            }
            return n
        }
    }
}
