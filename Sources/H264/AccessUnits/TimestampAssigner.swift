/// Gives access units decode and presentation timestamps, for an elementary stream that has no
/// container to carry them.
///
/// Durations come from the VUI timing (`num_units_in_tick`, `time_scale`) or a frame rate the
/// caller gives (default 25 fps). The time base is one field period: a frame lasts 2, a field 1.
/// Presentation order comes from picture order counts through ``PresentationOrder``;
/// `DTS` counts durations in decoding order and `PTS` in presentation order shifted by the
/// reorder delay, so that `PTS >= DTS` for every access unit and DTS strictly increases.
///
/// Streaming use (``push(_:sps:)``) must fix the delay before it sees the stream: it takes the
/// reorder depth from the caller, else from the SPS (``SequenceParameterSet/reorderDepth``:
/// `max_num_reorder_frames`, 0 for `pic_order_cnt_type` 2, else `MaxDpbFrames` of the level as
/// E.2.1 infers it).
/// Batch use (``assign(_:spsLookup:options:)``) measures the delay the stream really
/// needs, and no more.
///
/// Memory is bounded by the reorder depth: access units wait only until their PTS is known
/// (and until taken, when ready), in a ring of at most twice as many places as were ever held
/// at once, and at most ``heldAccessUnitLimit`` are held whatever the picture order counts do
/// (see ``earlyPresentationCount``).
///
/// ### The bound on waiting
///
/// An access unit leaves in decoding order once its PTS is known, so a picture that waits for
/// its turn in presentation order holds every access unit decoded after it. Real streams make
/// a picture wait behind a few more than the reorder depth: the B pictures between two
/// anchors are presented before the anchor decoded ahead of them, as are the leading pictures
/// of an open GOP (x264 `--bframes 16` holds 19 access units at reorder depth 2). A stream
/// whose order counts keep falling would hold all of them. So at most
/// ``heldAccessUnitLimit`` access units are held: the presentation order's depth + 1 (the
/// reorder depth for frames, twice it + 1 for fields, 32 with
/// ``TimestampOptions/presentationDelay``) plus 32 (room for 16 frames or 32 fields presented
/// before a picture decoded ahead of them). When the access unit just pushed would make a
/// picture wait behind more, that picture is presented at once: its PTS is the next
/// presentation time, as if the decoder output it now (after the pictures the presentation
/// order released at this push), and the pictures of smaller POC still waiting are presented
/// after it. DTS is unchanged (it strictly increases) and PTS stays >= DTS (every picture
/// decoded before the early one was presented before it). Each such picture is counted in
/// ``earlyPresentationCount`` and carries a ``H264Error/Code/limitExceeded`` diagnostic.
///
/// ### Timestamps that cannot wrap
///
/// No timestamp wraps around, whatever the options, so the order of DTS and PTS holds
/// for every delay and frame rate: DTS counts from 0 (at most 2 per access unit); PTS is the
/// presentation position plus the delay, an addition that saturates at `Int64.max` (a
/// ``TimestampOptions/presentationDelay`` near `Int64.max` gives `Int64.max` to the access units
/// past it, never a value near `Int64.min` below their DTS); a negative delay is taken as 0.
/// A ``TimestampOptions/frameRate`` gives the time base `denominator / (2 × numerator)` seconds;
/// above 2^62 frames per second (no stream has such a rate), where `2 × numerator` does not
/// fit `Int64`, the fraction is reduced and its denominator saturates at `Int64.max`: the time
/// base stays positive, so timestamps rescaled to any clock keep their order.
public struct TimestampAssigner: Sendable {
    /// The settings of the assigner, now ``TimestampOptions``.
    @available(*, deprecated, renamed: "TimestampOptions")
    public typealias Configuration = TimestampOptions

    /// The settings the assigner was created with.
    public let options: TimestampOptions
    /// The settings the assigner was created with, now ``options``.
    @available(*, deprecated, renamed: "options")
    public var configuration: TimestampOptions { options }
    /// The time base: one field period. Known after the first access unit.
    public private(set) var timeBase: TimeBase?
    /// The reorder depth in frames in force. Known after the first access unit.
    public private(set) var reorderDepth: Int?
    /// The most access units held at once (waiting for their PTS, or ready and not taken yet
    /// by ``push(_:sps:)``'s caller): the presentation order's depth + 1 + 32 (see "The bound
    /// on waiting"). Known after the first access unit.
    public private(set) var heldAccessUnitLimit: Int?
    /// Pictures presented before their turn in POC order because they would have waited behind
    /// more than ``heldAccessUnitLimit`` access units; 0 for every stream whose pictures are
    /// presented within 16 frames (32 fields) of the reorder depth.
    public var earlyPresentationCount: Int { clock?.earlyCount ?? 0 }

    private var clock: PresentationClock?
    /// The access units held, in decoding order, in a ring: `count` of them from `ringStart`
    /// (wrapping), the first `readyCount` ready (PTS known, delay added), then those waiting for
    /// their PTS. The other places hold emptied access units (those the caller traded for the
    /// ones taken), which the next access units trade places with: nothing is created, moved
    /// down or destroyed per access unit.
    private var ring: [AccessUnit] = []
    private var ringStart = 0
    private var count = 0
    private var readyCount = 0
    private var firstPosition = 0  // decode position of the access unit at ringStart
    private var pushed = 0
    private var decodeTime: Int64 = 0
    private var delay: Int64 = 0
    /// The most access units held at once so far (counted after each push).
    package private(set) var maximumHeldCount = 0

    /// Creates an assigner.
    public init(options: TimestampOptions = TimestampOptions()) {
        self.options = options
    }

    /// Creates an assigner, now ``init(options:)``.
    @available(*, deprecated, renamed: "init(options:)")
    public init(configuration: TimestampOptions) {
        self.init(options: configuration)
    }

    /// Adds the next access unit in decoding order.
    /// - Parameters:
    ///   - au: the access unit.
    ///   - sps: the SPS in force for it (for timing and reorder depth), if known.
    /// - Returns: access units whose timestamps are now known, in decoding order.
    public mutating func push(_ au: AccessUnit, sps: SequenceParameterSet?) -> [AccessUnit] {
        var out: [AccessUnit] = []
        push(au, sps: sps, into: &out)
        return out
    }

    /// ``push(_:sps:)`` that appends the access units now timed to `ready`: no allocation per
    /// access unit once the buffers have grown to the reorder depth.
    mutating func push(_ au: consuming AccessUnit, sps: @autoclosure () -> SequenceParameterSet?, into ready: inout [AccessUnit]) {
        pushInPlace(au, sps: sps())
        moveReady(into: &ready)
    }

    /// ``push(_:sps:)`` that leaves the access units now timed in place: take them with
    /// ``takeReady(into:)`` while ``hasReady``.
    mutating func pushInPlace(_ au: consuming AccessUnit, sps: @autoclosure () -> SequenceParameterSet?) {
        var au = au
        swap(&nextSlot, &au)  // `au` leaves with the emptied access unit that was there
        pushSlot(sps: sps())
    }

    /// The place of the next access unit, holding an emptied one: write (or trade) the next
    /// access unit into it, then call ``pushSlot(sps:)``.
    var nextSlot: AccessUnit {
        _read { yield count < ring.count ? ring[slotIndex(count)] : AccessUnit() }  // a full ring grows at the write
        _modify {
            if count == ring.count { grow() }
            let i = slotIndex(count)
            yield &ring[i]
        }
    }

    /// Adds the access unit written into ``nextSlot`` as the next in decoding order.
    mutating func pushSlot(sps: @autoclosure () -> SequenceParameterSet?) {
        if clock == nil { start(sps: sps(), measuring: false) }
        if count == ring.count { grow() }  // not written through nextSlot: an empty one joins
        let position = pushed
        pushed &+= 1
        count &+= 1
        if count > maximumHeldCount { maximumHeldCount = count }
        let (ringStart, count, first) = (self.ringStart, self.count, firstPosition)
        let timeBase = self.timeBase
        var decodeTime = self.decodeTime
        var clock = self.clock.take()!  // moved out, so that its buffers stay uniquely held
        ring.withUnsafeMutableBufferPointer { ring in
            let base = ring.baseAddress!
            func slot(_ k: Int) -> UnsafeMutablePointer<AccessUnit> { base + Self.ringIndex(k, from: ringStart, in: ring.count) }
            let last = slot(count &- 1)  // just pushed
            Self.time(&last.pointee, timeBase: timeBase, decodeTime: &decodeTime)
            clock.present(PresentationClock.Entry(last.pointee), at: position) { d in
                let k = d &- first
                return k >= 0 && k < count ? slot(k) : nil
            }
        }
        self.decodeTime = decodeTime
        self.clock = clock
        markReady()
    }

    /// The ring index of the `k`-th access unit held (`k` < `ring.count`).
    private func slotIndex(_ k: Int) -> Int { Self.ringIndex(k, from: ringStart, in: ring.count) }

    /// The index of the `k`-th place from `start` in a ring of `capacity` places (`start` and
    /// `k` < `capacity`): usable inside the ring's buffer access, where `self` is not.
    private static func ringIndex(_ k: Int, from start: Int, in capacity: Int) -> Int {
        let i = start &+ k
        return i >= capacity ? i &- capacity : i
    }

    /// Doubles the ring (at least 4 places), the access units held first in order.
    private mutating func grow() {
        let capacity = Swift.max(4, ring.count &* 2)  // twice the most ever held: bounded by the reorder depth
        var grown: [AccessUnit] = []
        grown.reserveCapacity(capacity)
        for k in 0..<count {
            var au = AccessUnit()
            swap(&au, &ring[slotIndex(k)])
            grown.append(au)
        }
        while grown.count < capacity { grown.append(AccessUnit()) }
        ring = grown
        ringStart = 0
    }

    /// Ends the stream: returns the access units still waiting, with timestamps.
    public mutating func finish() -> [AccessUnit] {
        var out: [AccessUnit] = []
        finish(into: &out)
        return out
    }

    /// ``finish()`` that appends the access units to `ready`.
    mutating func finish(into ready: inout [AccessUnit]) {
        finishInPlace()
        moveReady(into: &ready)
    }

    /// ``finish()`` that leaves the access units in place for ``takeReady(into:)``.
    mutating func finishInPlace() {
        guard var clock = self.clock.take() else { return }
        let (ringStart, count, first) = (self.ringStart, self.count, firstPosition)
        ring.withUnsafeMutableBufferPointer { ring in
            let base = ring.baseAddress
            clock.flush { d in
                let k = d &- first
                guard k >= 0 && k < count, let base else { return nil }
                return base + Self.ringIndex(k, from: ringStart, in: ring.count)
            }
        }
        self.clock = clock
        markReady()
    }

    /// Some access unit is ready: ``takeReady(into:)`` may be called.
    var hasReady: Bool { readyCount > 0 }

    /// Trades the first ready access unit (in decoding order) with `slot`'s value, which takes
    /// its place in the ring for a later access unit to trade with: moved, not copied. Some
    /// access unit is ready.
    mutating func takeReady(into slot: inout AccessUnit) {
        let i = ringStart
        ring.withUnsafeMutableBufferPointer { ring in swap(&slot, &ring[i]) }
        ringStart = i &+ 1 == ring.count ? 0 : i &+ 1
        count &-= 1
        readyCount &-= 1
        firstPosition &+= 1  // one per access unit
    }

    /// Moves every ready access unit to the end of `ready`.
    private mutating func moveReady(into ready: inout [AccessUnit]) {
        while readyCount > 0 {
            var au = AccessUnit()
            takeReady(into: &au)
            ready.append(au)
        }
    }

    /// Assigns timestamps to a whole stream's access units, now ``assign(_:spsLookup:options:)``.
    @available(*, deprecated, renamed: "assign(_:spsLookup:options:)")
    public static func assign(_ units: inout [AccessUnit], spsLookup: (AccessUnit) -> SequenceParameterSet?,
                              configuration: TimestampOptions) {
        assign(&units, spsLookup: spsLookup, options: configuration)
    }

    /// Assigns timestamps to a whole stream's access units: with the smallest reorder delay
    /// the stream needs (timed in place as a streaming pass with a presentation delay of 0
    /// times them, then every PTS shifted by the largest DTS - PTS found), or, when
    /// `options` sets ``TimestampOptions/reorderDepth`` or
    /// ``TimestampOptions/presentationDelay``, exactly as the streaming assigner (and
    /// ``AccessUnitParser``) with those options do.
    /// - Complexity: O(n · d) for n access units and reorder depth d; no allocation per access
    ///   unit for the smallest delay.
    public static func assign(_ units: inout [AccessUnit], spsLookup: (AccessUnit) -> SequenceParameterSet?,
                              options: TimestampOptions = TimestampOptions()) {
        guard let first = units.first else { return }
        if options.reorderDepth != nil || options.presentationDelay != nil {
            var assigner = TimestampAssigner(options: options)
            var timed: [AccessUnit] = []
            timed.reserveCapacity(units.count)
            for au in units { assigner.push(au, sps: spsLookup(au), into: &timed) }
            assigner.finish(into: &timed)
            units = timed
            return
        }
        var measuring = TimestampAssigner(options: options)
        measuring.start(sps: spsLookup(first), measuring: true)
        var clock = measuring.clock.take()!  // start(sps:measuring:) made it
        units.withUnsafeMutableBufferPointer { units in
            let base = units.baseAddress!  // not empty
            let count = units.count
            func unit(_ d: Int) -> UnsafeMutablePointer<AccessUnit>? { d >= 0 && d < count ? base + d : nil }
            let timeBase = measuring.timeBase
            for i in 0..<count {
                Self.time(&base[i], timeBase: timeBase, decodeTime: &measuring.decodeTime)
                clock.present(PresentationClock.Entry(base[i]), at: i, unit: unit)
            }
            clock.flush(unit: unit)
            // Here PTS counts from 0 in presentation order and DTS from 0 in decoding order.
            var needed: Int64 = 0
            for i in 0..<count where !base[i].flags.hasNoPicture {
                needed = Swift.max(needed, (base[i].dts ?? 0) &- (base[i].pts ?? 0))
            }
            for i in 0..<count { base[i].pts = Self.presentationTime(base[i].pts ?? 0, delay: needed) }
        }
    }

    // MARK: -

    private mutating func start(sps: SequenceParameterSet?, measuring: Bool) {
        let vui = sps?.vuiParametersPresentFlag == true ? sps?.vui : nil
        if let vui, vui.timingInfoPresentFlag, vui.numUnitsInTick > 0, vui.timeScale > 0,
           !(options.overridesStreamTiming && options.frameRate != nil) {
            timeBase = TimeBase(numerator: Int64(vui.numUnitsInTick), denominator: Int64(vui.timeScale))
        } else if let rate = options.frameRate, rate.numerator > 0, rate.denominator > 0 {
            timeBase = Self.fieldPeriod(frameRate: rate)
        } else {
            timeBase = TimeBase(numerator: 1, denominator: 50)
        }
        var depth: Int = options.reorderDepth ?? sps?.reorderDepth ?? 16
        depth = Swift.max(0, Swift.min(depth, 16))
        reorderDepth = depth
        let fields = sps.map { !$0.frameMbsOnlyFlag } ?? false
        // Measuring needs a depth that is surely large enough to find the true order; so does a
        // delay measured that way.
        let measured = measuring ? 0 : options.presentationDelay.map { Swift.max(0, $0) }
        let bumpingDepth = measured != nil ? 32 : (fields ? depth &* 2 &+ 1 : depth)
        clock = PresentationClock(reorderDepth: bumpingDepth)
        heldAccessUnitLimit = clock?.holdLimit
        delay = measured ?? Int64(depth) &* 2
    }

    /// A presentation position plus the delay (both at least 0), saturating at `Int64.max`.
    static func presentationTime(_ position: Int64, delay: Int64) -> Int64 {
        let (sum, overflow) = position.addingReportingOverflow(delay)
        return overflow ? Int64.max : sum
    }

    /// The time base of one field period at `rate` frames per second (both terms positive):
    /// `denominator / (2 × numerator)` seconds; when `2 × numerator` does not fit `Int64` (above
    /// 2^62 frames per second), the fraction reduced, and if its denominator still does not
    /// fit, that denominator saturated at `Int64.max`.
    static func fieldPeriod(frameRate rate: (numerator: Int64, denominator: Int64)) -> TimeBase {
        let (twice, overflow) = rate.numerator.multipliedReportingOverflow(by: 2)
        guard overflow else { return TimeBase(numerator: rate.denominator, denominator: twice) }
        var (a, b) = (rate.numerator, rate.denominator)
        while b != 0 { (a, b) = (b, a % b) }  // the greatest common divisor: at least 1 for positive terms
        let numerator = rate.numerator / a, denominator = rate.denominator / a
        if denominator % 2 == 0 { return TimeBase(numerator: denominator / 2, denominator: numerator) }
        let (reduced, stillOverflows) = numerator.multipliedReportingOverflow(by: 2)
        return TimeBase(numerator: denominator, denominator: stillOverflows ? Int64.max : reduced)
    }

    /// Sets the access unit's duration, time base and DTS: `decodeTime`, which it advances by the
    /// duration; and no PTS yet (a picture without one has not been presented).
    private static func time(_ au: inout AccessUnit, timeBase: TimeBase?, decodeTime: inout Int64) {
        let duration: Int64 = au.flags.hasNoPicture ? 0 : (au.structure == .frame ? 2 : 1)
        au.pts = nil
        au.duration = duration
        au.timeBase = timeBase
        au.dts = decodeTime
        decodeTime &+= duration  // two per access unit at most: cannot overflow in practice
    }

    /// Marks ready the access units after the ready ones that have a PTS, adding the delay
    /// (in place: nothing moves).
    private mutating func markReady() {
        let delay = self.delay
        let (ringStart, count) = (self.ringStart, self.count)
        var k = readyCount
        // Through the buffer (an element read through the array's subscript is copied whole).
        ring.withUnsafeMutableBufferPointer { ring in
            while k < count {
                let au = ring.baseAddress! + Self.ringIndex(k, from: ringStart, in: ring.count)
                guard let pts = au.pointee.pts else { break }
                au.pointee.pts = Self.presentationTime(pts, delay: delay)
                k &+= 1
            }
        }
        readyCount = k
    }
}

/// Presentation positions turned into PTS (before the delay): the presentation order and the
/// time the next presented access unit starts at. Access units are reached by decoding
/// position through a lookup the caller gives (nil: no longer held).
private struct PresentationClock {
    var order: PresentationOrder
    var presentationTime: Int64 = 0
    /// The pictures the order released at the last step (reused: no allocation per access unit).
    var released: [(decodeIndex: Int, presentationIndex: Int)] = []
    /// The most access units from the oldest one not presented to the newest, itself included:
    /// `reorderDepth + 1 + 32` (``TimestampAssigner``, "The bound on waiting").
    let holdLimit: Int
    /// Pictures presented early to keep within ``holdLimit``.
    var earlyCount = 0

    /// Room beyond the order's depth + 1 for pictures presented before one decoded ahead of
    /// them: 16 frames or 32 fields (B pictures between anchors, leading pictures).
    static let allowance = 32

    /// The diagnostic of a picture presented early (made once: nothing is allocated per picture).
    static let presentedEarly = H264Error.invalid(
        .limitExceeded, "presented before its turn in picture order count order: it would have waited behind more access units than the timestamp assigner holds")

    init(reorderDepth: Int) {
        order = PresentationOrder(reorderDepth: reorderDepth)
        holdLimit = order.reorderDepth &+ 1 &+ Self.allowance  // depth <= 32
    }

    /// What presentation needs of a timed access unit (no copy of its arrays).
    struct Entry {
        var hasPicture: Bool
        var poc: Int64?
        var startsPOCPeriod: Bool
        var duration: Int64

        init(_ au: borrowing AccessUnit) {
            hasPicture = !au.flags.hasNoPicture
            poc = au.poc
            startsPOCPeriod = au.startsPOCPeriod
            duration = au.duration ?? 0
        }
    }

    /// Presents the access unit at decoding position `position` (timed, and reachable through
    /// `unit`): an access unit without a picture or a POC is presented when decoded, after those
    /// waiting; a picture goes through the presentation order.
    mutating func present(_ au: Entry, at position: Int, unit: (Int) -> UnsafeMutablePointer<AccessUnit>?) {
        released.removeAllKeepingCapacity()
        if let poc = au.poc, au.hasPicture {
            order.push(decodeIndex: position, poc: poc, startsPeriod: au.startsPOCPeriod, into: &released)
            place(unit)
            presentEarlyIfNeeded(at: position, unit: unit)
        } else {
            order.flush(into: &released)
            released.sort { $0.presentationIndex < $1.presentationIndex }
            place(unit)
            unit(position)?.pointee.pts = presentationTime
            if au.hasPicture { presentationTime &+= au.duration }
        }
    }

    /// Presents the access unit decoded `holdLimit - 1` before `position` now if it still waits
    /// (no older one does: this runs at every position), so that at most `holdLimit` access
    /// units are ever held from the oldest not presented on.
    private mutating func presentEarlyIfNeeded(at position: Int, unit: (Int) -> UnsafeMutablePointer<AccessUnit>?) {
        let oldest = position &- (holdLimit &- 1)  // position >= 0, holdLimit <= 66
        guard oldest >= 0, let au = unit(oldest), au.pointee.pts == nil else { return }  // presented ones have a PTS
        released.removeAllKeepingCapacity()
        guard order.release(decodeIndex: oldest, into: &released) else { return }
        earlyCount &+= 1  // one per picture
        if au.pointee.diagnostics.count < AccessUnitAssembler.maximumDiagnostics {
            au.pointee.diagnostics.append(Self.presentedEarly)
        } else {
            au.pointee.droppedDiagnosticCount &+= 1  // one per problem
        }
        place(unit)
    }

    /// Presents every picture still waiting (end of stream).
    mutating func flush(unit: (Int) -> UnsafeMutablePointer<AccessUnit>?) {
        released.removeAllKeepingCapacity()
        order.flush(into: &released)
        place(unit)
    }

    /// Gives the released pictures their PTS, in presentation order.
    private mutating func place(_ unit: (Int) -> UnsafeMutablePointer<AccessUnit>?) {
        for r in released {
            guard let au = unit(r.decodeIndex) else { continue }
            au.pointee.pts = presentationTime
            presentationTime &+= au.pointee.duration ?? 0  // two per access unit at most
        }
    }
}
