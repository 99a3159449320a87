import H264

/// The MPEG-2 transport stream demuxer (ISO/IEC 13818-1), push: bytes in chunks of any size
/// (a file read, SRT messages, UDP datagrams) with ``append(_:)-(ArraySlice<UInt8>)``, events
/// out with ``next()``, ``finish()`` at the end.
///
/// ```swift
/// var parser = TSParser()
/// for chunk in chunks {
///     parser.append(chunk)
///     while let event = parser.next() { handle(event) }
/// }
/// parser.finish()
/// while let event = parser.next() { handle(event) }
/// ```
///
/// - Packets: 188-byte packets and 192-byte M2TS packets (a 4-byte `TP_extra_header` before
///   each) are told apart from where sync bytes recur (three in a row); after loss or
///   garbage the parser looks for three again (``TSEvent/syncLost(skippedBytes:)``).
///   Packets with `transport_error_indicator` or scrambled payloads are dropped (counted).
/// - Programs: the PAT and the PMTs (sections reassembled, CRC checked) choose the streams
///   (``Options/programs``: every program, one by number, or the first); a PMT is reported
///   the first time and whenever it changes (``TSEvent/programMap(_:)``).
/// - Loss: continuity-counter gaps and `discontinuity_indicator` are events, not errors
///   (``TSEvent/continuityError(pid:expected:found:)``, ``TSEvent/discontinuity(pid:)``); a
///   duplicate packet (the one repeat 2.4.3.3 allows) is dropped. The rest of a PES after a
///   gap is skipped to the next PES, and what it held is marked: an access unit with
///   ``TSAccessUnit/mayBeIncomplete``, an opaque PES with
///   ``TSElementaryStreamPacket/isComplete`` false.
/// - Times: the 33-bit PTS and DTS are unrolled per program into 64-bit 90 kHz times that keep
///   increasing across the 2^33 wrap (26.5 h): each time is the nearest to the program's
///   last one modulo 2^33. After a `discontinuity_indicator` on the program's PCR PID, or a
///   jump larger than ``Options/maximumTimestampJump``, the program's times go on one tick
///   after the latest time before it (``Statistics/timelineResets``), so they keep
///   increasing across a discontinuity too.
/// - H.264 (`stream_type` 0x1B): the PES payloads go through the core's Annex-B parser and
///   access-unit assembler; each access unit gets the PTS and DTS of the PES in which it begins
///   (2.4.3.7), as a ``TSAccessUnit`` (an `AccessUnitSample`). Other streams come out as
///   ``TSElementaryStreamPacket``s (``Options/passesOtherStreams``).
///
/// Hostile input cannot make it trap, loop or grow: a PES whose `PES_packet_length` lies is cut
/// at the length (excess ignored) or at the next payload start (marked incomplete); an opaque
/// PES longer than ``Options/maximumPESBytes`` is dropped; a PES that never ends is bounded by
/// the core's NAL unit and access unit limits; PMTs that change with every packet replace
/// streams, never add to them past ``Options/maximumStreams``; PIDs that no table names cost
/// nothing (a count).
///
/// Memory: the input handed over and not yet read: chunks held by reference (a slice keeps its
/// whole array), and a copy of short chunks and of the bytes around a chunk boundary (at most
/// four times the bytes not yet read, plus 8 KiB); plus at most 8 KiB × 7 of
/// tables per PID, one PAT and ``maximumPrograms`` PMT sections (1 KiB each), and per followed
/// stream (at most ``Options/maximumStreams``): an H.264 stream's core parser (one NAL unit,
/// at most ``Options/maximumNALUnitSize``, and one access unit, at most
/// ``Options/accessUnitLimits``) and up to 64 KiB of PES payload before it, with up to 8 such
/// buffers kept for reuse once the access units that view them are dropped, or an opaque
/// stream's PES, at most ``Options/maximumPESBytes``; and the events of one packet (or of one
/// PES's access units) waiting for ``next()``.
///
/// Throughput (Docs/Benchmarks.md, `ts_demux_gbps`): the input is read in place, PES payload
/// is appended from it without a reference per packet, and an H.264 PES goes to the core's
/// parser together with the start code that opens the next one, so that its last NAL unit is
/// handed out as a view instead of being copied across the feeds.
public struct TSParser: Sendable {
    /// Which programs and streams to follow, and the bounds.
    public struct Options: Sendable, Hashable {
        /// The programs whose streams are followed.
        public enum Programs: Sendable, Hashable {
            /// Every program the PAT lists.
            case all
            /// The first program the PAT lists.
            case first
            /// The program with this `program_number`.
            case number(UInt16)
        }

        /// The programs whose streams are followed.
        public var programs: Programs
        /// Hand out the PES packets of streams that are not H.264 (else only access units).
        public var passesOtherStreams: Bool
        /// The most elementary streams followed at once (PMT entries past it are reported
        /// and left out).
        public var maximumStreams: Int
        /// The largest PES packet of an opaque stream held; a longer one is dropped.
        public var maximumPESBytes: Int
        /// The bounds on one H.264 access unit.
        public var accessUnitLimits: AccessUnitLimits
        /// The largest H.264 NAL unit.
        public var maximumNALUnitSize: Int
        /// A step between a program's consecutive times larger than this (either way) is taken
        /// for a discontinuity that was not signalled.
        public var maximumTimestampJump: Duration

        /// Every program, other streams passed, 16 streams, 4 MiB PES packets, 32 MiB access
        /// units and NAL units, 10 s jumps.
        public init(programs: Programs = .all, passesOtherStreams: Bool = true, maximumStreams: Int = 16,
                    maximumPESBytes: Int = 4 << 20,
                    accessUnitLimits: AccessUnitLimits = AccessUnitLimits(maxAccessUnitBytes: 32 << 20),
                    maximumNALUnitSize: Int = 32 << 20, maximumTimestampJump: Duration = .seconds(10)) {
            self.programs = programs
            self.passesOtherStreams = passesOtherStreams
            self.maximumStreams = maximumStreams
            self.maximumPESBytes = maximumPESBytes
            self.accessUnitLimits = accessUnitLimits
            self.maximumNALUnitSize = maximumNALUnitSize
            self.maximumTimestampJump = maximumTimestampJump
        }
    }

    /// What the parser has counted.
    public struct Statistics: Sendable, Hashable {
        /// Transport packets read.
        public var packets = 0
        /// Bytes skipped to find sync.
        public var skippedBytes = 0
        /// Continuity-counter gaps.
        public var continuityErrors = 0
        /// Packets with `discontinuity_indicator` set.
        public var discontinuities = 0
        /// Duplicate packets dropped.
        public var duplicatePackets = 0
        /// Packets dropped for `transport_error_indicator`.
        public var transportErrors = 0
        /// Packets dropped because their payload is scrambled.
        public var scrambledPackets = 0
        /// Packets of PIDs no followed table names (and null packets).
        public var ignoredPackets = 0
        /// Problems reported as ``TSEvent/problem(_:)``.
        public var problems = 0
        /// Times a program's timeline went on after a discontinuity or a jump.
        public var timelineResets = 0

        /// No counts.
        public init() {}
    }

    /// The most programs followed (as many as a PAT section can list).
    public static let maximumPrograms = 253
    /// The most H.264 PES payload bytes gathered before they go to the core's parser.
    static let feedSize = 64 << 10

    /// The options in force.
    public let options: Options
    /// What has been counted so far.
    public internal(set) var statistics = Statistics()
    /// The packet size found: 188, or 192 for M2TS; nil before sync.
    public private(set) var packetSize: Int?
    /// The PMTs in force, by `program_number`, of the programs followed.
    public private(set) var programMaps: [UInt16: TSProgramMap] = [:]

    // Input: the chunk being read (a view of the caller's, or a join of one chunk's rest and
    // the next one's start) and the chunks waiting after it.
    var buffer: ArraySlice<UInt8> = []
    private var position = 0
    private var queued: [ArraySlice<UInt8>] = []
    /// `buffer` views `own`, the parser's copy across chunk boundaries (else a chunk handed over).
    private var ownsBuffer = false
    private var own: [UInt8] = []
    /// When `buffer` holds a copy of `queued[0]`'s first bytes: `buffer[start]` is
    /// `queued[0][from]`, and `queued[0]` is copied up to `end`.
    private var join: (start: Int, from: Int, end: Int)?
    private var finished = false
    private var drained = false
    // Output.
    var events: [TSEvent] = []
    private var eventHead = 0
    // Tables, by PID: what it is (0 none, 1 PAT, 2 PMT, 3 stream, 4 PCR only), its last continuity counter
    // (0xFF: none yet), its stream's index.
    private var roles = [UInt8](repeating: 0, count: 8192)
    private var counters = [UInt8](repeating: 0xFF, count: 8192)
    private var streamIndex = [Int16](repeating: -1, count: 8192)
    private var sections: [UInt16: [UInt8]] = [:]
    private var patVersion: (id: UInt16, version: UInt8)?
    /// PMT PID -> program number, for the programs followed.
    private var pmtPrograms: [UInt16: UInt16] = [:]
    var timelines: [UInt16: Timeline] = [:]
    var streams: [Stream] = []

    /// Creates a parser.
    public init(options: Options = Options()) {
        self.options = options
        roles[Int(TSPacketLayout.patPID)] = 1
    }

    // MARK: Input and output

    /// Hands over the next chunk (kept, not copied, until ``next()`` has read it).
    public mutating func append(_ chunk: ArraySlice<UInt8>) {
        guard !chunk.isEmpty else { return }
        if position >= buffer.endIndex && queued.isEmpty {
            buffer = chunk
            position = chunk.startIndex
            ownsBuffer = false
            join = nil
        } else if queued.isEmpty && chunk.count <= Self.joinSize {
            _ = gather(chunk)  // a short chunk after the current one's rest: copied at once
        } else {
            queued.append(chunk)
        }
    }

    /// The bytes of the next waiting chunk copied after the current one's rest at a time: more
    /// than the sync search looks ahead (two M2TS packets); after them, the chunk is read in place.
    private static let joinSize = 1024

    /// Moves on to the next waiting chunk when the current one's rest is too short to go on
    /// with; false when none waits. A packet across two chunks is read from a copy of the
    /// current chunk's rest and the next one's first ``joinSize`` bytes; once what is left of
    /// that copy lies wholly in the next chunk, the next chunk is read in place. (Chunks
    /// shorter than a packet are gathered in that copy, which is appended to in place and
    /// compacted once half of it is read: amortised O(1) per byte.)
    private mutating func advance() -> Bool {
        guard !queued.isEmpty else { return false }
        if let join, position >= join.start {
            // What is left came from the next chunk: read on in it.
            let next = queued.removeFirst()
            position = join.from &+ (position &- join.start)
            buffer = next
            ownsBuffer = false
            self.join = nil
            return true
        }
        if join == nil && position >= buffer.endIndex {
            // The current chunk is read to its end: the next one in place.
            buffer = queued.removeFirst()
            position = buffer.startIndex
            ownsBuffer = false
            return true
        }
        let next = queued[0]
        let from = join?.end ?? next.startIndex
        let take = min(next.endIndex &- from, Self.joinSize)
        let shift = gather(next[from..<(from &+ take)])
        if join != nil { join!.start &-= shift }  // what was at `shift` is at 0
        let start = own.count &- take
        if from &+ take == next.endIndex {
            queued.removeFirst()
            join = nil
        } else if join == nil {
            join = (start, from, from &+ take)
        } else {
            join!.end = from &+ take
        }
        return true
    }

    /// Appends `bytes` to the rest of the current chunk in `own`, the parser's copy (made
    /// from the rest if `buffer` is a chunk handed over; its read first half dropped once
    /// more than half is read), and reads on in it; returns by how much the indices moved.
    private mutating func gather(_ bytes: ArraySlice<UInt8>) -> Int {
        var shift = 0
        if !ownsBuffer {
            own.removeAll(keepingCapacity: true)
            own.append(contentsOf: buffer[position...])
            shift = position
            ownsBuffer = true
        } else if position > own.count / 2 {
            own.removeSubrange(0..<position)
            shift = position
        }
        buffer = []  // the copy's one reference is `own`: appended to in place
        position &-= shift
        own.append(contentsOf: bytes)
        buffer = own[...]
        return shift
    }

    /// The input has ended and all of it has been handed to the packet layer.
    private var inputEnded: Bool { finished && queued.isEmpty }

    /// Hands over the next chunk held in an array.
    public mutating func append(_ chunk: [UInt8]) { append(chunk[...]) }

    /// Marks the end of the input: ``next()`` then hands out what the streams still hold.
    public mutating func finish() { finished = true }

    /// The next event, or nil when more input is needed (or, after ``finish()``, at the end).
    public mutating func next() -> TSEvent? {
        while true {
            if eventHead < events.count {
                let event = events[eventHead]
                eventHead &+= 1
                return event
            }
            if eventHead > 0 {
                events.removeAll(keepingCapacity: true)
                eventHead = 0
            }
            guard step() else {
                if advance() { continue }
                return nil
            }
        }
    }

    // MARK: Packets

    /// Reads one packet (or finds sync); false when nothing more can be done now.
    private mutating func step() -> Bool {
        let available = buffer.endIndex &- position
        guard let size = packetSize, available > 0, buffer[position] == TSPacketLayout.syncByte else {
            if packetSize != nil, available > 0 { packetSize = nil }  // lost: look for sync again
            return synchronise()
        }
        // An M2TS packet is read once the next one's 4-byte header has come too (or the input
        // has ended), so that a chunk boundary inside that header does not look like lost sync.
        guard available >= size || (inputEnded && available >= TSPacketLayout.size) else { return endIfFinished() }
        readPacket(at: position)
        position &+= min(size, available)
        return true
    }

    /// Finds three sync bytes a packet apart (fewer at the end of the input); false when more
    /// input is needed or the input has ended.
    private mutating func synchronise() -> Bool {
        let start = position
        var i = position
        let count = buffer.endIndex
        while i < count {
            if buffer[i] == TSPacketLayout.syncByte {
                var found: Int?
                var undecided = false
                for size in [TSPacketLayout.size, TSPacketLayout.timestampedSize] {
                    if i &+ 2 &* size < count {
                        if buffer[i &+ size] == TSPacketLayout.syncByte && buffer[i &+ 2 &* size] == TSPacketLayout.syncByte {
                            found = size
                            break
                        }
                    } else if inputEnded {
                        // The end: a whole packet, and the next sync byte if there is one.
                        if i &+ TSPacketLayout.size <= count && (i &+ size >= count || buffer[i &+ size] == TSPacketLayout.syncByte) {
                            found = size
                            break
                        }
                    } else {
                        undecided = true
                    }
                }
                if let found {
                    packetSize = found
                    skip(from: start, to: i)
                    return true
                }
                if undecided {
                    skip(from: start, to: i)
                    return false
                }
            }
            i &+= 1
        }
        skip(from: start, to: count)
        return endIfFinished()
    }

    private mutating func skip(from start: Int, to end: Int) {
        position = end
        guard end > start else { return }
        statistics.skippedBytes &+= end &- start
        events.append(.syncLost(skippedBytes: end &- start))
    }

    /// At the end of the input, once: what the streams hold. True when that produced events.
    private mutating func endIfFinished() -> Bool {
        guard inputEnded, !drained else { return false }
        drained = true
        position = buffer.endIndex
        for index in streams.indices { endPES(index, atEnd: true) }
        return !events.isEmpty
    }

    /// One 188-byte packet at `p` (the whole packet lies in the buffer).
    private mutating func readPacket(at p: Int) {
        statistics.packets &+= 1
        let b1 = buffer[p &+ 1], b3 = buffer[p &+ 3]
        let pid = UInt16(b1 & 0x1F) << 8 | UInt16(buffer[p &+ 2])
        if b1 & 0x80 != 0 {
            statistics.transportErrors &+= 1
            return
        }
        let role = roles[Int(pid)]
        guard role != 0 else {
            statistics.ignoredPackets &+= 1
            return
        }
        let control = b3 >> 4 & 3
        let end = p &+ TSPacketLayout.size
        var i = p &+ 4
        var discontinuity = false
        if control & 2 != 0 {
            let length = Int(buffer[i])
            i &+= 1
            guard i &+ length <= end else {
                problem(TSError.invalid(.invalidPacket, "PID \(pid): adaptation_field_length \(length) runs past the packet"))
                return
            }
            if length > 0 {
                let flags = buffer[i]
                discontinuity = flags & 0x80 != 0
                if flags & 0x10 != 0 && length >= 7 {
                    let base = Int64(buffer[i &+ 1]) << 25 | Int64(buffer[i &+ 2]) << 17 | Int64(buffer[i &+ 3]) << 9
                        | Int64(buffer[i &+ 4]) << 1 | Int64(buffer[i &+ 5] >> 7)
                    let ext = UInt16(buffer[i &+ 5] & 1) << 8 | UInt16(buffer[i &+ 6])
                    events.append(.programClockReference(TSProgramClockReference(pid: pid, base: base, extensionValue: ext,
                                                                                 isDiscontinuity: discontinuity)))
                }
            }
            i &+= length
        }
        if discontinuity {
            statistics.discontinuities &+= 1
            events.append(.discontinuity(pid: pid))
            counters[Int(pid)] = 0xFF
            for (number, map) in programMaps where map.pcrPID == pid { timelines[number, default: Timeline()].resetPending = true }
        }
        guard control & 1 != 0 else { return }  // no payload (or the reserved value 0)
        let cc = b3 & 0x0F
        let last = counters[Int(pid)]
        counters[Int(pid)] = cc
        var lost = false
        if last != 0xFF {
            if cc == last {
                statistics.duplicatePackets &+= 1
                return
            }
            let expected = (last &+ 1) & 0x0F
            if cc != expected {
                statistics.continuityErrors &+= 1
                events.append(.continuityError(pid: pid, expected: expected, found: cc))
                lost = true
            }
        }
        if b3 & 0xC0 != 0 {
            statistics.scrambledPackets &+= 1
            if role == 3, streamIndex[Int(pid)] >= 0 { loss(Int(streamIndex[Int(pid)])) }
            return
        }
        let start = b1 & 0x40 != 0
        switch role {
        case 4:
            return
        case 1, 2:
            sectionPayload(pid: pid, from: i, to: end, start: start, lost: lost)
        default:
            let index = Int(streamIndex[Int(pid)])
            guard index >= 0 else { return }
            if lost { loss(index) }
            streamPayload(index, from: i, to: end, start: start)
        }
    }

    mutating func problem(_ error: TSError) {
        statistics.problems &+= 1
        events.append(.problem(error))
    }

    // MARK: Sections

    /// Gathers PSI sections on `pid` and reads each one that completes.
    private mutating func sectionPayload(pid: UInt16, from start: Int, to end: Int, start unitStart: Bool, lost: Bool) {
        var i = start
        var pending = sections[pid]
        if lost { pending = nil }
        if unitStart {
            guard i < end else {  // payload_unit_start_indicator with an adaptation field filling the packet
                sections[pid] = nil
                problem(TSError.invalid(.invalidSection, "PID \(pid): payload_unit_start_indicator without a pointer_field"))
                return
            }
            let pointer = Int(buffer[i])
            i &+= 1
            guard i &+ pointer <= end else {
                sections[pid] = nil
                problem(TSError.invalid(.invalidSection, "PID \(pid): pointer_field \(pointer) runs past the packet"))
                return
            }
            if pending != nil {
                pending!.append(contentsOf: buffer[i..<(i &+ pointer)])
                completeSections(pid: pid, &pending)
            }
            i &+= pointer
            pending = []
        }
        guard pending != nil else { return }
        pending!.append(contentsOf: buffer[i..<end])
        completeSections(pid: pid, &pending)
        sections[pid] = pending
    }

    /// Reads the whole sections at the front of `pending`; nil once stuffing begins or a
    /// section is malformed.
    private mutating func completeSections(pid: UInt16, _ pending: inout [UInt8]?) {
        while let bytes = pending, bytes.count >= 3 {
            guard bytes[0] != 0xFF else { pending = nil; return }
            let length = 3 &+ (Int(bytes[1] & 0x0F) << 8 | Int(bytes[2]))
            guard length <= TSSections.maximumSize else {
                pending = nil
                problem(TSError.invalid(.invalidSection, "PID \(pid): section of \(length) bytes"))
                return
            }
            guard bytes.count >= length else { return }
            readSection(pid: pid, bytes[0..<length])
            pending!.removeFirst(length)
        }
    }

    private mutating func readSection(pid: UInt16, _ section: ArraySlice<UInt8>) {
        let tableID = section[section.startIndex]
        do throws(TSError) {
            if pid == TSPacketLayout.patPID {
                guard tableID == 0 else { return }
                let pat = try TSSections.readPAT(section)
                guard pat.current else { return }
                applyPAT(id: pat.transportStreamID, version: pat.version, programs: pat.programs)
            } else if roles[Int(pid)] == 2 {
                guard tableID == 2 else { return }
                let pmt = try TSSections.readPMT(section, pmtPID: pid)
                guard pmt.current, pmtPrograms[pid] == pmt.map.programNumber else { return }
                applyPMT(pmt.map)
            }
        } catch {
            problem(error)
        }
    }

    private mutating func applyPAT(id: UInt16, version: UInt8, programs: [(number: UInt16, pmtPID: UInt16)]) {
        if let current = patVersion, current.id == id, current.version == version { return }
        patVersion = (id, version)
        var chosen: [UInt16: UInt16] = [:]
        for program in programs where chosen.count < Self.maximumPrograms {
            switch options.programs {
            case .all: break
            case .first: if !chosen.isEmpty { continue }
            case .number(let n): if program.number != n { continue }
            }
            guard program.pmtPID != TSPacketLayout.patPID, program.pmtPID != TSPacketLayout.nullPID else { continue }
            chosen[program.pmtPID] = program.number
        }
        // Programs gone: their streams and maps go too.
        for (pid, number) in pmtPrograms where chosen[pid] != number {
            roles[Int(pid)] = 0
            sections[pid] = nil
            if let old = programMaps[number]?.pcrPID, roles[Int(old)] == 4 { roles[Int(old)] = 0 }
            programMaps[number] = nil
            removeStreams { $0.programNumber == number }
        }
        for (pid, _) in chosen {
            if roles[Int(pid)] == 3 { removeStreams { $0.pid == pid } }
            roles[Int(pid)] = 2
        }
        pmtPrograms = chosen
    }

    private mutating func applyPMT(_ map: TSProgramMap) {
        guard programMaps[map.programNumber] != map else { return }
        if let old = programMaps[map.programNumber]?.pcrPID, roles[Int(old)] == 4 { roles[Int(old)] = 0 }
        programMaps[map.programNumber] = map
        events.append(.programMap(map))
        let kept = Set(map.streams.map { StreamKey(pid: $0.pid, type: $0.streamType.rawValue) })
        removeStreams { $0.programNumber == map.programNumber && !kept.contains(StreamKey(pid: $0.pid, type: $0.streamType.rawValue)) }
        var refused = 0
        for info in map.streams {
            let pid = Int(info.pid)
            guard roles[pid] != 3 || streams[Int(streamIndex[pid])].programNumber == map.programNumber else { continue }
            guard roles[pid] == 0 else { continue }  // a table's PID, or kept above
            guard info.pid >= 0x10, info.pid != TSPacketLayout.nullPID else { continue }
            guard info.streamType == .h264 || options.passesOtherStreams else { continue }
            guard streams.count < options.maximumStreams else {
                refused &+= 1
                continue
            }
            roles[pid] = 3
            streamIndex[pid] = Int16(streams.count)
            streams.append(Stream(info: info, programNumber: map.programNumber, options: options))
        }
        // The program's clock on a PID of its own.
        if roles[Int(map.pcrPID)] == 0, map.pcrPID >= 0x10, map.pcrPID != TSPacketLayout.nullPID { roles[Int(map.pcrPID)] = 4 }
        if refused > 0 {
            problem(TSError.invalid(.limitExceeded, "program \(map.programNumber): \(refused) streams past the \(options.maximumStreams) followed"))
        }
    }

    private mutating func removeStreams(where predicate: (Stream) -> Bool) {
        var index = 0
        while index < streams.count {
            guard predicate(streams[index]) else { index &+= 1; continue }
            let pid = Int(streams[index].pid)
            roles[pid] = 0
            streamIndex[pid] = -1
            counters[pid] = 0xFF
            streams.remove(at: index)
            for k in index..<streams.count { streamIndex[Int(streams[k].pid)] = Int16(k) }
        }
    }

    private struct StreamKey: Hashable {
        var pid: UInt16
        var type: UInt8
    }
}
