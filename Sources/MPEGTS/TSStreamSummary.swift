import H264

/// What a transport stream holds and how healthy it is, gathered from the ``TSEvent``s of a
/// ``TSParser``: the programs and their elementary streams, the PCR of each PID that carries
/// one (count, first and last value, the largest interval between two), continuity errors and
/// discontinuities per PID, and the H.264 access units (count, keyframes, the ones that may be
/// damaged, the first and last times). `h264 inspect X.ts` prints it.
///
/// ```swift
/// var parser = TSParser()
/// var summary = TSStreamSummary()
/// parser.append(bytes)
/// parser.finish()
/// while let event = parser.next() { summary.add(event) }
/// summary.finish(parser)
/// for pcr in summary.programClockReferences { print(pcr.pid, pcr.largestInterval) }
/// ```
///
/// Memory: at most ``maximumPrograms`` program maps (each as the parser's, at most 1 KiB of
/// section) and at most ``maximumPIDs`` per-PID records of a few words (PCR, continuity);
/// events past those caps are counted in ``droppedPIDRecords`` and nowhere else. Nothing is
/// kept per access unit or per packet.
public struct TSStreamSummary: Sendable {
    /// The PCR of one PID (ISO/IEC 13818-1 2.4.3.5), on the 27 MHz clock.
    public struct ClockReferences: Sendable, Hashable {
        /// The PID whose adaptation fields carried them.
        public var pid: UInt16
        /// How many there were.
        public var count = 0
        /// The first one.
        public var first: TSProgramClockReference
        /// The last one.
        public var last: TSProgramClockReference
        /// The largest step between two consecutive PCRs of the PID, in 27 MHz ticks (modulo
        /// the 2^33 × 300 wrap), not counting a step into a PCR whose packet had
        /// `discontinuity_indicator` set; nil with fewer than two. The spec asks for at most
        /// 0.1 s (2,700,000 ticks, 2.7.2).
        public var largestInterval: Int64?

        /// The largest interval as a `Duration`.
        public var largestIntervalDuration: Duration? {
            largestInterval.map { .nanoseconds($0 &* 1000 / 27) }  // < 2^33 × 300 × 1000
        }
    }

    /// Continuity and discontinuity counts of one PID.
    public struct PIDHealth: Sendable, Hashable {
        /// The PID.
        public var pid: UInt16
        /// Continuity-counter gaps (``TSEvent/continuityError(pid:expected:found:)``).
        public var continuityErrors = 0
        /// Packets with `discontinuity_indicator` set (``TSEvent/discontinuity(pid:)``).
        public var discontinuities = 0
    }

    /// The most program maps kept (as many as the parser follows).
    public static let maximumPrograms = TSParser.maximumPrograms
    /// The most PIDs with a PCR or a continuity record kept.
    public static let maximumPIDs = 256

    /// The latest program map of each program, in the order they were first seen.
    public private(set) var programs: [TSProgramMap] = []
    /// How many times a program map was reported (the first time, and every change).
    public private(set) var programMapChanges = 0
    /// The PCRs of each PID that carried one, in the order they were first seen.
    public private(set) var programClockReferences: [ClockReferences] = []
    /// Continuity errors and discontinuities of each PID that had one, in the order seen.
    public private(set) var health: [PIDHealth] = []
    /// PCR or continuity events of PIDs past ``maximumPIDs``: counted only here.
    public private(set) var droppedPIDRecords = 0
    /// Continuity-counter gaps in all.
    public private(set) var continuityErrors = 0
    /// Discontinuities in all.
    public private(set) var discontinuities = 0
    /// Times sync was lost, and the bytes skipped to find it again.
    public private(set) var syncLosses = 0
    /// Problems the parser stepped over (``TSEvent/problem(_:)``).
    public private(set) var problems = 0
    /// The first few problems, for a report (at most ``maximumKeptProblems``).
    public private(set) var firstProblems: [TSError] = []
    /// How many problems ``firstProblems`` keeps.
    public static let maximumKeptProblems = 5
    /// H.264 access units.
    public private(set) var accessUnits = 0
    /// Access units that are sync samples (IDR).
    public private(set) var keyframes = 0
    /// Access units that are random access points (IDR or a recovery point).
    public private(set) var randomAccessPoints = 0
    /// Access units that may be damaged (``TSAccessUnit/mayBeIncomplete``).
    public private(set) var incompleteAccessUnits = 0
    /// Access units without times (not the first in their PES packet).
    public private(set) var accessUnitsWithoutTimestamps = 0
    /// The bytes of the access units' NAL units (without start codes).
    public private(set) var accessUnitBytes = 0
    /// The first access unit's times (90 kHz, unrolled).
    public private(set) var firstTimestamps: SampleTimestamps?
    /// The last access unit's times that had any.
    public private(set) var lastTimestamps: SampleTimestamps?
    /// The largest presentation time seen.
    public private(set) var latestPresentationTime: Int64?
    /// PES packets of other elementary streams.
    public private(set) var otherPackets = 0
    /// The parser's counts, once ``finish(_:)`` has been called.
    public private(set) var statistics = TSParser.Statistics()
    /// The packet size the parser found (188, or 192 for M2TS), once ``finish(_:)`` has been
    /// called.
    public private(set) var packetSize: Int?

    /// An empty summary.
    public init() {}

    /// Counts one event.
    /// - Complexity: O(1), but O(``maximumPIDs``) for a PCR or continuity event of a PID not
    ///   seen before and O(programs) for a program map.
    public mutating func add(_ event: TSEvent) {
        switch event {
        case .programMap(let map):
            programMapChanges &+= 1  // at most one per packet read
            if let i = programs.firstIndex(where: { $0.programNumber == map.programNumber }) {
                programs[i] = map
            } else if programs.count < Self.maximumPrograms {
                programs.append(map)
            }
        case .accessUnit(let au):
            add(au)
        case .elementaryStreamPacket:
            otherPackets &+= 1  // at most one per packet read
        case .programClockReference(let pcr):
            add(pcr)
        case .continuityError(let pid, _, _):
            continuityErrors &+= 1  // at most one per packet read
            update(pid) { $0.continuityErrors &+= 1 }
        case .discontinuity(let pid):
            discontinuities &+= 1  // at most one per packet read
            update(pid) { $0.discontinuities &+= 1 }
        case .syncLost:
            syncLosses &+= 1  // at most one per byte read
        case .problem(let error):
            problems &+= 1  // at most a few per packet read
            if firstProblems.count < Self.maximumKeptProblems { firstProblems.append(error) }
        }
    }

    /// Counts one access unit.
    public mutating func add(_ au: TSAccessUnit) {
        accessUnits &+= 1  // each counter below is at most one per access unit, or its bytes
        if au.flags.isSync { keyframes &+= 1 }
        if au.isRandomAccessPoint { randomAccessPoints &+= 1 }
        if au.mayBeIncomplete { incompleteAccessUnits &+= 1 }
        for unit in au.nalUnits { accessUnitBytes &+= unit.bytes.count }
        guard let t = au.timestamps else {
            accessUnitsWithoutTimestamps &+= 1
            return
        }
        if firstTimestamps == nil { firstTimestamps = t }
        lastTimestamps = t
        latestPresentationTime = max(latestPresentationTime ?? t.pts, t.pts)
    }

    /// Takes the parser's counts at the end (packets, bytes skipped, packets dropped) and its
    /// packet size.
    public mutating func finish(_ parser: TSParser) {
        statistics = parser.statistics
        packetSize = parser.packetSize
    }

    /// The span of the access units' decoding times, first to last, in 90 kHz ticks (0 for
    /// fewer than two timed access units).
    public var decodingSpan: Int64 {
        guard let first = firstTimestamps, let last = lastTimestamps else { return 0 }
        return max(0, last.dts &- first.dts)  // unrolled 90 kHz times, far below 2^62
    }

    private mutating func add(_ pcr: TSProgramClockReference) {
        if let i = programClockReferences.firstIndex(where: { $0.pid == pcr.pid }) {
            var r = programClockReferences[i]
            if !pcr.isDiscontinuity {
                let wrap: Int64 = (1 << 33) &* 300
                let step = ((pcr.value &- r.last.value) % wrap &+ wrap) % wrap  // both below wrap
                r.largestInterval = max(r.largestInterval ?? step, step)
            }
            r.count &+= 1  // at most one per packet read
            r.last = pcr
            programClockReferences[i] = r
        } else if programClockReferences.count &+ health.count < Self.maximumPIDs {
            programClockReferences.append(ClockReferences(pid: pcr.pid, count: 1, first: pcr, last: pcr))
        } else {
            droppedPIDRecords &+= 1  // at most one per packet read
        }
    }

    private mutating func update(_ pid: UInt16, _ body: (inout PIDHealth) -> Void) {
        if let i = health.firstIndex(where: { $0.pid == pid }) {
            body(&health[i])
        } else if programClockReferences.count &+ health.count < Self.maximumPIDs {
            var record = PIDHealth(pid: pid)
            body(&record)
            health.append(record)
        } else {
            droppedPIDRecords &+= 1  // at most one per packet read
        }
    }
}
