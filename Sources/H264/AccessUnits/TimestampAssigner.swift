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
/// Batch use (``assign(_:spsLookup:configuration:)``) measures the delay the stream really
/// needs, and no more.
///
/// Memory is bounded by the reorder depth: access units wait only until their PTS is known.
public struct TimestampAssigner: Sendable {
    /// Choices the caller can make.
    public struct Configuration: Sendable, Hashable {
        /// Frames per second as `numerator / denominator`, used when the SPS has no timing
        /// info (or always, with `overridesStreamTiming`).
        public var frameRate: (numerator: Int64, denominator: Int64)?
        /// Use `frameRate` even when the stream has VUI timing.
        public var overridesStreamTiming: Bool
        /// Reorder depth in frames, instead of the one the stream declares.
        public var reorderDepth: Int?
        /// A presentation delay measured beforehand, in time-base units (two per frame), instead
        /// of one taken from the reorder depth: the timestamps of batch assignment
        /// (``TimestampAssigner/assign(_:spsLookup:configuration:)``) from a streaming pass.
        ///
        /// Pictures then wait in a presentation order deep enough to find the true order (32
        /// pictures) and PTS is the presentation position plus this delay. A first streaming pass
        /// with 0 measures it: the delay a stream needs is the largest DTS - PTS of its access
        /// units with a picture (``AccessUnitParser/requiredPresentationDelay``); a second pass
        /// with that value yields batch assignment's timestamps without holding the stream.
        public var presentationDelay: Int64?

        /// Creates a configuration.
        public init(frameRate: (numerator: Int64, denominator: Int64)? = nil, overridesStreamTiming: Bool = false,
                    reorderDepth: Int? = nil, presentationDelay: Int64? = nil) {
            self.frameRate = frameRate
            self.overridesStreamTiming = overridesStreamTiming
            self.reorderDepth = reorderDepth
            self.presentationDelay = presentationDelay
        }

        public static func == (a: Configuration, b: Configuration) -> Bool {
            a.frameRate?.numerator == b.frameRate?.numerator && a.frameRate?.denominator == b.frameRate?.denominator
                && a.overridesStreamTiming == b.overridesStreamTiming && a.reorderDepth == b.reorderDepth
                && a.presentationDelay == b.presentationDelay
        }
        public func hash(into h: inout Hasher) {
            h.combine(frameRate?.numerator); h.combine(frameRate?.denominator)
            h.combine(overridesStreamTiming); h.combine(reorderDepth); h.combine(presentationDelay)
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The time base: one field period. Known after the first access unit.
    public private(set) var timeBase: TimeBase?
    /// The reorder depth in frames in force. Known after the first access unit.
    public private(set) var reorderDepth: Int?

    private var order: PresentationOrder?
    private var waiting: [AccessUnit] = []
    private var waitingStart = 0  // decode position of waiting[0]
    private var pushed = 0
    private var decodeTime: Int64 = 0
    private var presentationTime: Int64 = 0
    private var delay: Int64 = 0

    /// Creates an assigner.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Adds the next access unit in decoding order.
    /// - Parameters:
    ///   - au: the access unit.
    ///   - sps: the SPS in force for it (for timing and reorder depth), if known.
    /// - Returns: access units whose timestamps are now known, in decoding order.
    public mutating func push(_ au: AccessUnit, sps: SequenceParameterSet?) -> [AccessUnit] {
        if order == nil { start(sps: sps, measuring: false) }
        return add(au)
    }

    /// Ends the stream: returns the access units still waiting, with timestamps.
    public mutating func finish() -> [AccessUnit] {
        guard var order else { return [] }
        let released = order.flush()
        self.order = order
        place(released)
        return emitReady()
    }

    /// Assigns timestamps to a whole stream's access units: with the smallest reorder delay
    /// the stream needs, or, when `configuration` sets ``Configuration/reorderDepth`` or
    /// ``Configuration/presentationDelay``, exactly as the streaming assigner (and
    /// ``AccessUnitParser``) with that configuration does.
    /// - Complexity: O(n · d) for n access units and reorder depth d.
    public static func assign(_ units: inout [AccessUnit], spsLookup: (AccessUnit) -> SequenceParameterSet?,
                              configuration: Configuration = Configuration()) {
        guard let first = units.first else { return }
        if configuration.reorderDepth != nil || configuration.presentationDelay != nil {
            var assigner = TimestampAssigner(configuration: configuration)
            var timed: [AccessUnit] = []
            timed.reserveCapacity(units.count)
            for au in units { timed += assigner.push(au, sps: spsLookup(au)) }
            timed += assigner.finish()
            units = timed
            return
        }
        var measuring = TimestampAssigner(configuration: configuration)
        measuring.start(sps: spsLookup(first), measuring: true)
        var timed: [AccessUnit] = []
        timed.reserveCapacity(units.count)
        for au in units { timed += measuring.add(au) }
        timed += measuring.finish()
        // Here PTS counts from 0 in presentation order and DTS from 0 in decoding order.
        var needed: Int64 = 0
        for au in timed where !au.flags.hasNoPicture {
            needed = Swift.max(needed, (au.dts ?? 0) &- (au.pts ?? 0))
        }
        for i in timed.indices { timed[i].pts = (timed[i].pts ?? 0) &+ needed }
        units = timed
    }

    // MARK: -

    private mutating func start(sps: SequenceParameterSet?, measuring: Bool) {
        let vui = sps?.vuiParametersPresentFlag == true ? sps?.vui : nil
        if let vui, vui.timingInfoPresentFlag, vui.numUnitsInTick > 0, vui.timeScale > 0,
           !(configuration.overridesStreamTiming && configuration.frameRate != nil) {
            timeBase = TimeBase(numerator: Int64(vui.numUnitsInTick), denominator: Int64(vui.timeScale))
        } else if let rate = configuration.frameRate, rate.numerator > 0, rate.denominator > 0 {
            timeBase = TimeBase(numerator: rate.denominator, denominator: rate.numerator &* 2)  // rate.numerator <= Int64.max / 2 in practice; checked below
        } else {
            timeBase = TimeBase(numerator: 1, denominator: 50)
        }
        var depth: Int = configuration.reorderDepth ?? sps?.reorderDepth ?? 16
        depth = Swift.max(0, Swift.min(depth, 16))
        reorderDepth = depth
        let fields = sps.map { !$0.frameMbsOnlyFlag } ?? false
        // Measuring needs a depth that is surely large enough to find the true order; so does a
        // delay measured that way.
        let measured = measuring ? 0 : configuration.presentationDelay.map { Swift.max(0, $0) }
        let bumpingDepth = measured != nil ? 32 : (fields ? depth &* 2 &+ 1 : depth)
        order = PresentationOrder(reorderDepth: bumpingDepth)
        delay = measured ?? Int64(depth) &* 2
    }

    private mutating func add(_ au: AccessUnit) -> [AccessUnit] {
        var au = au
        let duration: Int64 = au.flags.hasNoPicture ? 0 : (au.structure == .frame ? 2 : 1)
        au.duration = duration
        au.timeBase = timeBase
        au.dts = decodeTime &- 0
        decodeTime &+= duration  // two per access unit at most: cannot overflow in practice
        let position = pushed
        pushed &+= 1
        waiting.append(au)
        if au.flags.hasNoPicture || au.poc == nil {
            // Nothing to order: present it when decoded, after those already waiting.
            var released = order?.flush() ?? []
            released.sort { $0.presentationIndex < $1.presentationIndex }
            place(released)
            waiting[position &- waitingStart].pts = au.flags.hasNoPicture ? presentationTime : presentationTime
            if !au.flags.hasNoPicture { presentationTime &+= duration }
        } else if var order {
            let released = order.push(decodeIndex: position, poc: au.poc ?? 0, startsPeriod: au.startsPOCPeriod)
            self.order = order
            place(released)
        }
        return emitReady()
    }

    private mutating func place(_ released: [(decodeIndex: Int, presentationIndex: Int)]) {
        for r in released {
            let i = r.decodeIndex &- waitingStart
            guard i >= 0 && i < waiting.count else { continue }
            waiting[i].pts = presentationTime
            presentationTime &+= waiting[i].duration ?? 0
        }
    }

    private mutating func emitReady() -> [AccessUnit] {
        var out: [AccessUnit] = []
        var n = 0
        while n < waiting.count, waiting[n].pts != nil { n &+= 1 }
        guard n > 0 else { return out }
        out = Array(waiting[0..<n])
        waiting.removeFirst(n)
        waitingStart &+= n
        for i in out.indices {
            out[i].pts = (out[i].pts ?? 0) &+ delay
        }
        return out
    }
}
