import H264
import MediaSupport

/// Writes an MPEG-2 transport stream (ISO/IEC 13818-1) of one program into memory: H.264
/// video from any `AccessUnitSample` (encoded frames, parsed access units, RTP or RTMP input),
/// and PES packets of other elementary streams passed through as they are (audio), so that
/// nothing a service receives is lost.
///
/// What it writes:
/// - a PAT and a PMT (H.264 as `stream_type` 0x1B, then ``Options/otherStreams``) before the
///   first packet, before every random access point and at least every
///   ``Options/tableInterval`` of decoding time;
/// - one PES packet per access unit (`stream_id` 0xE0, `data_alignment_indicator` 1), with its
///   PTS, and its DTS only when it differs, on the 90 kHz clock, modulo 2^33 (the 33-bit fields
///   wrap every 26.5 hours, as every demuxer expects);
/// - an access unit delimiter at the start of every access unit that has none (HLS requires
///   it: RFC 8216 3.4; H.222.0 2.14.1 asks for it), with the `primary_pic_type` of its
///   slices when the sample is an `AccessUnit`, else 7 (any slice type), written by the core's
///   `AccessUnitDelimiter`, as the core's stream editor writes it;
/// - the PCR in the adaptation field of the video PID (or of its own PID,
///   ``Options/pcrPID``): in the first packet of every random access point and at least every
///   ``Options/pcrInterval`` (at most 100 ms, 2.7.2), with PCR-only packets between access
///   units that lie further apart (up to ``maximumPCRFill`` of them); the PCR runs
///   ``Options/delay`` behind the DTS;
/// - `random_access_indicator` in the first packet of every random access point (IDR or
///   recovery point), continuity counters per PID, and adaptation-field stuffing to fill the
///   last packet of each PES.
///
/// Output: 188-byte packets appended to ``bytes``; a caller takes them whenever it likes with
/// ``takeBytes()`` (as `FLVWriter`'s), or in groups of whole packets with
/// ``takePackets(upTo:)`` (seven for a UDP datagram).
///
/// ```swift
/// var ts = try TSWriter()
/// for au in accessUnits { try ts.write(au) }
/// file += ts.takeBytes()
/// ```
///
/// Memory: the bytes not yet taken, one access unit's PES payload (kept for the next), and an
/// 8 KiB table of continuity counters. Output per access unit: its bytes with 4-byte start
/// codes, an AUD and the parameter sets given, 19 bytes of PES header, in packets of 184
/// payload bytes, plus two table packets (more for a PMT longer than a packet) and at most
/// ``maximumPCRFill`` + 1 PCR packets.
public struct TSWriter: Sendable {
    /// The program and its timing.
    public struct Options: Sendable, Hashable {
        /// `transport_stream_id` in the PAT.
        public var transportStreamID: UInt16
        /// `program_number` of the one program (1...65535).
        public var programNumber: UInt16
        /// The PMT's PID.
        public var pmtPID: UInt16
        /// The H.264 stream's PID.
        public var videoPID: UInt16
        /// The PID that carries the PCR: nil for the video PID (the usual choice); another
        /// PID, used by no stream, gets PCR-only packets.
        public var pcrPID: UInt16?
        /// Other elementary streams of the program, listed in the PMT after the video, whose
        /// PES packets ``TSWriter/write(_:)-(TSElementaryStreamPacket)`` passes through.
        public var otherStreams: [TSElementaryStreamInfo]
        /// The longest decoding time between two PAT/PMT pairs (also written before every
        /// random access point).
        public var tableInterval: Duration
        /// The longest time between two PCRs: at most 100 ms (ISO/IEC 13818-1 2.7.2).
        public var pcrInterval: Duration
        /// How far the PCR runs behind the decoding times (a decoder's buffering time):
        /// every PTS and DTS is written this much later than the PCR that comes with it.
        public var delay: Duration

        /// Options for one program on PIDs 0x1000 (PMT) and 0x100 (video), as FFmpeg's
        /// muxer numbers them; tables every 100 ms, PCR every 40 ms, 700 ms of delay.
        public init(transportStreamID: UInt16 = 1, programNumber: UInt16 = 1, pmtPID: UInt16 = 0x1000, videoPID: UInt16 = 0x100,
                    pcrPID: UInt16? = nil, otherStreams: [TSElementaryStreamInfo] = [],
                    tableInterval: Duration = .milliseconds(100), pcrInterval: Duration = .milliseconds(40),
                    delay: Duration = .milliseconds(700)) {
            self.transportStreamID = transportStreamID
            self.programNumber = programNumber
            self.pmtPID = pmtPID
            self.videoPID = videoPID
            self.pcrPID = pcrPID
            self.otherStreams = otherStreams
            self.tableInterval = tableInterval
            self.pcrInterval = pcrInterval
            self.delay = delay
        }
    }

    /// The most PCR-only packets written between two access units (10 s at the default
    /// interval); a longer gap (a paused source) is left without PCRs.
    public static let maximumPCRFill = 250

    /// The options in force.
    public let options: Options
    /// What ``write(_:parameterSets:)`` adds to every time (in 90 kHz ticks) once the first
    /// has come: what brings the earliest of the first DTS and PTS up to ``Options/delay``, so
    /// that the first PCR is not negative (an encoder's first decoding time is negative with
    /// B-frames); 0 when the first times are already that late, so that a stream remuxed from
    /// a transport stream keeps its times; nil before the first timestamp.
    public private(set) var timestampOffset: Int64?
    /// Access units written.
    public private(set) var accessUnitCount = 0
    /// Transport packets written (taken or not).
    public private(set) var packetCount = 0

    private var storage: [UInt8] = []
    private var head = 0
    private var continuity = [UInt8](repeating: 0, count: 8192)
    private var scratch: [UInt8] = []
    private var lastDTS: Int64?
    private var lastTables: Int64?
    private var lastPCR: Int64?
    private let patPacket: [UInt8]
    private let pmtSection: [UInt8]
    private let delayTicks: Int64
    private let tableTicks: Int64
    private let pcrTicks: Int64
    private let pcrPID: UInt16
    private let otherPIDs: [UInt16: TSElementaryStreamInfo]
    /// The access unit delimiter with `primary_pic_type` 7, written as the core writes it.
    private let anyDelimiter: [UInt8]

    /// Creates a writer; nothing is written before the first access unit or packet.
    /// - Throws: ``TSError/Code/invalidArgument`` for a PID outside 0x0010...0x1FFE or used
    ///   twice, program number 0, a PCR interval outside (0, 100 ms], a table interval or delay
    ///   that is negative, or a PMT longer than a section (1,021 bytes of descriptors and
    ///   streams).
    public init(options: Options = Options()) throws(TSError) {
        self.options = options
        var pids: Set<UInt16> = [options.pmtPID, options.videoPID]
        guard pids.count == 2 else { throw TSError.invalid(.invalidArgument, "the PMT and video PIDs are the same") }
        for stream in options.otherStreams {
            guard pids.insert(stream.pid).inserted else { throw TSError.invalid(.invalidArgument, "PID \(stream.pid) is used twice") }
        }
        if let pcr = options.pcrPID, pcr != options.videoPID {
            guard pids.insert(pcr).inserted else { throw TSError.invalid(.invalidArgument, "the PCR PID \(pcr) is used by another stream") }
        }
        for pid in pids where !(0x0010...0x1FFE).contains(pid) {
            throw TSError.invalid(.invalidArgument, "PID \(pid) is outside 0x0010...0x1FFE")
        }
        guard options.programNumber != 0 else { throw TSError.invalid(.invalidArgument, "program_number 0 is the network PID's") }
        guard options.pcrInterval > .zero, options.pcrInterval <= .milliseconds(100) else {
            throw TSError.invalid(.invalidArgument, "PCR interval \(options.pcrInterval) is outside (0, 100 ms] (ISO/IEC 13818-1 2.7.2)")
        }
        guard options.tableInterval >= .zero, options.delay >= .zero else {
            throw TSError.invalid(.invalidArgument, "a negative table interval or delay")
        }
        pcrPID = options.pcrPID ?? options.videoPID
        delayTicks = TSPacketLayout.ticks(options.delay)
        tableTicks = TSPacketLayout.ticks(options.tableInterval)
        pcrTicks = max(1, TSPacketLayout.ticks(options.pcrInterval))
        var others: [UInt16: TSElementaryStreamInfo] = [:]
        for stream in options.otherStreams { others[stream.pid] = stream }
        otherPIDs = others
        let streams = [TSElementaryStreamInfo(pid: options.videoPID, streamType: .h264)] + options.otherStreams
        let map = TSProgramMap(programNumber: options.programNumber, pmtPID: options.pmtPID, pcrPID: pcrPID, streams: streams)
        pmtSection = TSSections.pmt(map)
        guard pmtSection.count <= TSSections.maximumSize else {
            throw TSError.invalid(.invalidArgument, "the PMT takes \(pmtSection.count) bytes, more than a section's \(TSSections.maximumSize)")
        }
        let pat = TSSections.pat(transportStreamID: options.transportStreamID, version: 0,
                                 programs: [(options.programNumber, options.pmtPID)])
        patPacket = pat
        do throws(H264Error) {
            anyDelimiter = Array(try AccessUnitDelimiter().nalUnit().bytes)
        } catch {
            throw TSError.h264(error, "access unit delimiter")
        }
    }

    // MARK: Output

    /// The packets written and not yet taken (a whole number of 188-byte packets).
    public var bytes: ArraySlice<UInt8> { storage[head...] }

    /// Returns the packets written so far and empties ``bytes``.
    public mutating func takeBytes() -> [UInt8] {
        defer { storage.removeAll(keepingCapacity: true); head = 0 }
        return Array(storage[head...])
    }

    /// Takes up to `count` whole packets from the front of ``bytes`` (fewer when fewer are
    /// waiting; empty when none): seven make a UDP datagram of 1,316 bytes.
    /// - Complexity: O(taken bytes); the storage is compacted when the next access unit comes.
    public mutating func takePackets(upTo count: Int) -> ArraySlice<UInt8> {
        let n = min(max(0, count), (storage.count &- head) / TSPacketLayout.size)  // both in memory
        let start = head
        head &+= n &* TSPacketLayout.size
        return storage[start..<head]
    }

    /// Hands every waiting packet to `body` in groups of `count` whole packets (the last
    /// group with the rest), each taken from ``bytes`` once `body` returns: the send loop of a
    /// transport (seven packets to a UDP datagram or an SRT message). When `body` throws, the
    /// group it was given and those after it stay.
    /// - Parameters:
    ///   - count: packets per group, at least 1.
    ///   - body: sends one group.
    /// - Returns: the groups handed over.
    /// - Complexity: O(taken bytes) besides `body`.
    @discardableResult
    public mutating func takePackets<E: Error>(inGroupsOf count: Int,
                                               _ body: (ArraySlice<UInt8>) throws(E) -> Void) throws(E) -> Int {
        let perGroup = max(1, count)
        var groups = 0
        while storage.count &- head >= TSPacketLayout.size {
            let n = min(perGroup, (storage.count &- head) / TSPacketLayout.size)  // both in memory
            try body(storage[head..<(head &+ n &* TSPacketLayout.size)])
            head &+= n &* TSPacketLayout.size
            groups &+= 1  // at most the packets held
        }
        return groups
    }

    private mutating func compact() {
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 0 {
            storage.removeSubrange(0..<head)
            head = 0
        }
    }

    // MARK: Writing

    /// Writes one access unit as a PES packet (and the tables and PCRs due before it).
    /// - Parameters:
    ///   - sample: the access unit, with timestamps on any clock (converted to 90 kHz, nearest).
    ///   - parameterSets: SPS and PPS (an encoder's `parameterSets`) to write after the
    ///     delimiter of every random access point that does not carry them, so that a player
    ///     joining there can decode; empty (the default) writes the sample as it is.
    /// - Throws: ``TSError/Code/invalidArgument`` for a sample without timestamps, a
    ///   decoding time before the previous one, or times beyond ±2^62 ticks; nothing is
    ///   written then.
    public mutating func write(_ sample: some AccessUnitSample, parameterSets: [NALUnit] = []) throws(TSError) {
        guard let t = sample.timestamps?.rescaled(to: 90_000) else {
            throw TSError.invalid(.invalidArgument, "an access unit without timestamps")
        }
        if let lastDTS, t.dts < lastDTS {
            throw TSError.invalid(.invalidArgument, "DTS \(t.dts) goes back from \(lastDTS) (90 kHz)")
        }
        let (dts, pts) = try written(dts: t.dts, pts: t.pts)
        compact()
        let randomAccess = sample.isRandomAccessPoint
        let pcr = dts &- delayTicks  // dts >= delayTicks: see written(dts:pts:)
        writeTablesIfDue(at: pcr, force: randomAccess)
        var pcrInPES: Int64?
        if let last = lastPCR, pcr &- last > pcrTicks, (pcr &- last) / pcrTicks <= Int64(Self.maximumPCRFill) {
            var next = last &+ pcrTicks
            while pcr &- next > 0 {  // at most maximumPCRFill: checked above
                writePCRPacket(next)
                next &+= pcrTicks
            }
            lastPCR = next &- pcrTicks
        }
        if randomAccess || lastPCR.map({ pcr &- $0 >= pcrTicks }) ?? true {
            if pcrPID == options.videoPID { pcrInPES = pcr } else { writePCRPacket(pcr) }
            lastPCR = pcr
        }

        // The PES packet: header, delimiter, parameter sets at a random access point, the units.
        scratch.removeAll(keepingCapacity: true)
        let hasDTS = dts != pts
        appendPESHeader(streamID: 0xE0, pts: pts, dts: hasDTS ? dts : nil, aligned: true)
        let units = sample.nalUnits
        let flags = sample.flags
        var index = 0
        if units.first?.type == .accessUnitDelimiter {
            AnnexB.append(units[0], to: &scratch)
            index = 1
        } else if !flags.hasNoPicture {
            scratch += [0, 0, 0, 1]
            scratch += delimiter(for: sample, units: units)
        }
        if randomAccess, !parameterSets.isEmpty, !units.contains(where: { $0.type == .sps }) {
            for set in parameterSets { AnnexB.append(set, to: &scratch) }
        }
        while index < units.count {
            AnnexB.append(units[index], to: &scratch)
            index &+= 1
        }
        setPESLength(streamID: 0xE0)
        packetize(pid: options.videoPID, pcr: pcrInPES, randomAccess: randomAccess)
        lastDTS = t.dts
        accessUnitCount &+= 1
    }

    /// Writes one PES packet of another elementary stream, as it is, on its PID.
    /// - Throws: ``TSError/Code/invalidArgument`` for a PID ``Options/otherStreams`` does
    ///   not declare, or times beyond ±2^62 ticks; ``TSError/Code/limitExceeded`` for a
    ///   payload a PES cannot hold (65,535 bytes with its header, but for video `stream_id`s).
    public mutating func write(_ packet: TSElementaryStreamPacket) throws(TSError) {
        guard otherPIDs[packet.pid] != nil else {
            throw TSError.invalid(.invalidArgument, "PID \(packet.pid) is not one of the options' other streams")
        }
        var times: (dts: Int64, pts: Int64)?
        if let t = packet.timestamps?.rescaled(to: 90_000) { times = try written(dts: t.dts, pts: t.pts) }
        let isVideo = packet.streamID & 0xF0 == 0xE0
        let header = times == nil ? 9 : (times!.dts == times!.pts ? 14 : 19)
        guard isVideo || packet.payload.count <= 65_535 &+ 6 &- header else {
            throw TSError.invalid(.limitExceeded, "a PES payload of \(packet.payload.count) bytes on PID \(packet.pid) exceeds PES_packet_length")
        }
        compact()
        if let times { writeTablesIfDue(at: times.dts &- delayTicks, force: false) } else if lastTables == nil {
            writeTablesIfDue(at: 0, force: true)
        }
        scratch.removeAll(keepingCapacity: true)
        appendPESHeader(streamID: packet.streamID, pts: times?.pts, dts: times.flatMap { $0.dts != $0.pts ? $0.dts : nil }, aligned: false)
        scratch += packet.payload
        setPESLength(streamID: packet.streamID)
        packetize(pid: packet.pid, pcr: nil, randomAccess: false)
    }

    /// Writes a PAT and a PMT now (the writer also does when they are due): a segmenter calls it
    /// at the start of a segment that does not start at a random access point.
    public mutating func writeTables() {
        compact()
        writeTablesIfDue(at: lastTables ?? 0, force: true)
    }

    // MARK: Pieces

    /// The times as written: plus the offset fixed by the first time seen.
    private mutating func written(dts: Int64, pts: Int64) throws(TSError) -> (dts: Int64, pts: Int64) {
        let limit: Int64 = 1 << 62
        guard abs(dts) < limit, abs(pts) < limit else {
            throw TSError.invalid(.invalidArgument, "timestamps \(dts), \(pts) beyond ±2^62 ticks")
        }
        let offset = timestampOffset ?? max(0, delayTicks &- min(dts, pts))  // each below 2^62
        timestampOffset = offset
        return (dts &+ offset, pts &+ offset)
    }

    /// The delimiter of `sample`: with the `primary_pic_type` of its slices when it is an
    /// `AccessUnit` whose slices were all parsed, else 7.
    private func delimiter(for sample: some AccessUnitSample, units: [NALUnit]) -> [UInt8] {
        guard let au = sample as? AccessUnit, !au.sliceTypes.isEmpty else { return anyDelimiter }
        var slices = 0
        for unit in units where unit.type == .slice || unit.type == .idrSlice { slices &+= 1 }
        guard au.sliceTypes.count >= slices, let nal = try? AccessUnitDelimiter(sliceKinds: au.sliceTypes).nalUnit() else {
            return anyDelimiter
        }
        return Array(nal.bytes)
    }

    private mutating func writeTablesIfDue(at time: Int64, force: Bool) {
        if !force, let last = lastTables, time &- last < tableTicks { return }
        lastTables = time
        packetizeSection(pid: TSPacketLayout.patPID, patPacket)
        packetizeSection(pid: options.pmtPID, pmtSection)
    }

    /// `packet_start_code_prefix`, `stream_id`, a `PES_packet_length` to fill in, and the
    /// optional header with the times (2.4.3.6).
    private mutating func appendPESHeader(streamID: UInt8, pts: Int64?, dts: Int64?, aligned: Bool) {
        scratch += [0, 0, 1, streamID, 0, 0]
        scratch.append(aligned ? 0x84 : 0x80)  // '10', data_alignment_indicator
        switch (pts, dts) {
        case (let pts?, let dts?):
            scratch += [0xC0, 10]
            TSPacketLayout.appendTimestamp(pts, prefix: 0b0011, to: &scratch)
            TSPacketLayout.appendTimestamp(dts, prefix: 0b0001, to: &scratch)
        case (let pts?, nil):
            scratch += [0x80, 5]
            TSPacketLayout.appendTimestamp(pts, prefix: 0b0010, to: &scratch)
        default:
            scratch += [0x00, 0]
        }
    }

    /// Fills in `PES_packet_length`: the bytes after it, or 0 (unbounded, video only) when
    /// they do not fit 16 bits.
    private mutating func setPESLength(streamID: UInt8) {
        let length = scratch.count &- 6
        let field = length <= 0xFFFF ? UInt16(length) : 0
        scratch[4] = UInt8(truncatingIfNeeded: field >> 8)
        scratch[5] = UInt8(truncatingIfNeeded: field)
    }

    private mutating func nextContinuity(_ pid: UInt16) -> UInt8 {
        let cc = continuity[Int(pid)]
        continuity[Int(pid)] = (cc &+ 1) & 0x0F
        return cc
    }

    /// Splits `scratch` (a PES packet) into transport packets on `pid`: the first with
    /// `payload_unit_start_indicator`, the PCR and `random_access_indicator` when given, the
    /// last filled with adaptation-field stuffing.
    private mutating func packetize(pid: UInt16, pcr: Int64?, randomAccess: Bool) {
        let n = scratch.count
        let packets = (n &+ 8 &+ TSPacketLayout.payloadCapacity &- 1) / TSPacketLayout.payloadCapacity  // n in memory
        storage.reserveCapacity(storage.count &+ packets &* TSPacketLayout.size)
        var i = 0
        var first = true
        while first || i < n {
            var flags: UInt8 = 0
            if first {
                if randomAccess { flags |= 0x40 }
                if pcr != nil { flags |= 0x10 }
            }
            let fieldBytes = flags == 0 ? 0 : (flags & 0x10 != 0 ? 8 : 2)  // length, flags, PCR
            let capacity = TSPacketLayout.payloadCapacity &- fieldBytes
            let take = min(n &- i, capacity)
            let adaptation = take < capacity ? TSPacketLayout.payloadCapacity &- take : fieldBytes
            storage.append(TSPacketLayout.syncByte)
            storage.append((first ? 0x40 : 0) | UInt8(truncatingIfNeeded: pid >> 8))
            storage.append(UInt8(truncatingIfNeeded: pid))
            storage.append((adaptation > 0 ? 0x30 : 0x10) | nextContinuity(pid))
            if adaptation > 0 {
                storage.append(UInt8(truncatingIfNeeded: adaptation &- 1))  // adaptation_field_length
                if adaptation > 1 {
                    storage.append(flags)
                    if flags & 0x10 != 0, let pcr { TSPacketLayout.appendPCR(base: pcr, to: &storage) }
                    let stuffing = adaptation &- max(2, fieldBytes)
                    if stuffing > 0 { storage.append(contentsOf: repeatElement(0xFF, count: stuffing)) }
                }
            }
            storage.append(contentsOf: scratch[i..<(i &+ take)])
            i &+= take
            first = false
            packetCount &+= 1
        }
    }

    /// A PSI section in packets on `pid`: `pointer_field` 0 in the first, 0xFF after the end.
    private mutating func packetizeSection(pid: UInt16, _ section: [UInt8]) {
        var i = 0
        var first = true
        while i < section.count {
            storage.append(TSPacketLayout.syncByte)
            storage.append((first ? 0x40 : 0) | UInt8(truncatingIfNeeded: pid >> 8))
            storage.append(UInt8(truncatingIfNeeded: pid))
            storage.append(0x10 | nextContinuity(pid))
            var room = TSPacketLayout.payloadCapacity
            if first {
                storage.append(0)  // pointer_field
                room &-= 1
            }
            let take = min(room, section.count &- i)
            storage.append(contentsOf: section[i..<(i &+ take)])
            if take < room { storage.append(contentsOf: repeatElement(0xFF, count: room &- take)) }
            i &+= take
            first = false
            packetCount &+= 1
        }
    }

    /// A packet of the PCR PID with only an adaptation field carrying `pcr` (its continuity
    /// counter is the last one's: a packet without payload does not advance it).
    private mutating func writePCRPacket(_ pcr: Int64) {
        storage.append(TSPacketLayout.syncByte)
        storage.append(UInt8(truncatingIfNeeded: pcrPID >> 8))
        storage.append(UInt8(truncatingIfNeeded: pcrPID))
        storage.append(0x20 | (continuity[Int(pcrPID)] &- 1) & 0x0F)
        storage.append(183)
        storage.append(0x10)
        TSPacketLayout.appendPCR(base: pcr, to: &storage)
        storage.append(contentsOf: repeatElement(0xFF, count: 176))
        packetCount &+= 1
    }
}
