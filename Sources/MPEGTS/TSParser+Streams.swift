import H264

/// A program's time line: 33-bit times unrolled into 64 bits.
struct Timeline: Sendable {
    /// The last time as read (33 bits) and as unrolled.
    var lastRaw: Int64?
    var last: Int64 = 0
    /// The latest time so far.
    var highest: Int64 = .min
    /// The next time starts again after ``highest`` (a signalled discontinuity).
    var resetPending = false

    /// The unrolled value of `raw`: the nearest to the last one modulo 2^33, or one tick after
    /// the latest so far after a discontinuity or a jump beyond `maximumJump`.
    mutating func unroll(_ raw: Int64, maximumJump: Int64, reset: inout Bool) -> Int64 {
        let value: Int64
        if let lastRaw {
            var delta = (raw &- lastRaw) & (TSPacketLayout.timestampModulus &- 1)
            if delta >= TSPacketLayout.timestampModulus / 2 { delta &-= TSPacketLayout.timestampModulus }
            if resetPending || delta > maximumJump || delta < -maximumJump {
                value = highest &+ 1  // times stay below 2^62 for 10^11 years of input
                reset = true
            } else {
                value = last &+ delta
            }
        } else {
            value = raw
        }
        resetPending = false
        lastRaw = raw
        last = value
        highest = max(highest, value)
        return value
    }
}

/// One elementary stream followed: where its PES stands, and for H.264 the core's parser.
struct Stream: Sendable {
    let pid: UInt16
    let programNumber: UInt16
    let streamType: TSStreamType
    /// Inside a PES whose start was seen (else payloads wait for the next start).
    var collecting = false
    /// The PES header gathered so far (all of it once `headerDone`).
    var header: [UInt8] = []
    var headerDone = false
    /// Payload bytes still due by `PES_packet_length`; nil when it is 0 (unbounded).
    var remaining: Int?
    /// The PES lost packets, or was cut short.
    var damaged = false
    /// Payload bytes: an opaque stream's PES, or H.264 bytes not yet given to the parser.
    var pending: [UInt8] = []
    /// The PES's `stream_id` and unrolled times.
    var streamID: UInt8 = 0
    var times: SampleTimestamps?
    /// The stream is H.264 (`h264` is nil only while it is being fed).
    let isH264: Bool
    var h264: H264Track?
    /// H.264: where in `pending` the PES before the current one ended, while that is not yet
    /// fed: the current PES's first bytes tell whether its last NAL unit ends there (a start
    /// code), so that the core's parser is given it whole, not carried over to the next feed.
    var feedBoundary: Int?

    init(info: TSElementaryStreamInfo, programNumber: UInt16, options: TSParser.Options) {
        pid = info.pid
        self.programNumber = programNumber
        streamType = info.streamType
        isH264 = info.streamType == .h264
        if isH264 { h264 = H264Track(options: options) }
    }
}

/// The core's parser over one H.264 stream, and where each PES began in its bytes.
struct H264Track: Sendable {
    var splitter: AnnexBStreamParser
    var assembler: AccessUnitAssembler
    /// Bytes given to the splitters so far.
    var fed = 0
    /// Bytes given to the splitters before the current one (which counts its offsets from 0).
    var base = 0
    /// Where each PES began (offset in the stream's bytes) with its times, and whether an
    /// access unit has taken them; at most 64, oldest first.
    var marks: [(offset: Int, times: SampleTimestamps?, used: Bool)] = []
    /// Offsets where packets were lost; at most 64.
    var losses: [Int] = []
    /// The buffers of PES payload given to the splitter, which the access units handed out
    /// view: one is reused for the next PES once they are all dropped.
    var buffers = HandedOutBuffers()

    init(options: TSParser.Options) {
        splitter = AnnexBStreamParser(maximumNALUnitSize: options.maximumNALUnitSize, leadingData: .skip)
        assembler = AccessUnitAssembler(limits: options.accessUnitLimits)
    }

    /// A PES begins `pendingCount` bytes after those fed, with `times`.
    mutating func mark(pesAt pendingCount: Int, times: SampleTimestamps?) {
        if marks.count >= 64 { marks.removeFirst() }
        marks.append((fed &+ pendingCount, times, false))
    }

    /// Packets were lost `pendingCount` bytes after those fed.
    mutating func mark(lossAt pendingCount: Int) {
        if losses.count >= 64 { losses.removeFirst() }
        losses.append(fed &+ pendingCount)
    }
}

extension TSParser {
    /// A PES payload piece of stream `index`.
    mutating func streamPayload(_ index: Int, from start: Int, to end: Int, start unitStart: Bool) {
        if unitStart {
            endPES(index, atEnd: false)
            streams[index].collecting = true
            streams[index].header.removeAll(keepingCapacity: true)
            streams[index].headerDone = false
            streams[index].remaining = nil
            streams[index].damaged = false
            streams[index].times = nil
        }
        guard streams[index].collecting else { return }
        var i = start
        if !streams[index].headerDone {
            i = readHeader(index, from: i, to: end)
            guard streams[index].headerDone else { return }
        }
        var n = end &- i
        if let remaining = streams[index].remaining {
            if n > remaining {
                problem(TSError.invalid(.invalidPES, "PID \(streams[index].pid): \(n &- remaining) bytes past PES_packet_length ignored"))
                n = remaining
            }
            streams[index].remaining = remaining &- n
        }
        if streams[index].isH264 {
            appendPayload(index, from: i, count: n)
            let count = streams[index].pending.count
            if count >= Self.feedSize {
                feed(index)
            } else if let boundary = streams[index].feedBoundary, count >= boundary &+ 4 {
                feedToBoundary(index, boundary)
            }
        } else if streams[index].pending.count &+ n > options.maximumPESBytes {
            problem(TSError.invalid(.limitExceeded, "PID \(streams[index].pid): a PES longer than \(options.maximumPESBytes) bytes dropped"))
            streams[index].collecting = false
            streams[index].pending = []
            return
        } else {
            appendPayload(index, from: i, count: n)
        }
        if streams[index].remaining == 0 {
            endPES(index, atEnd: false)
        }
    }

    /// Appends `count` input bytes from `start` to stream `index`'s pending payload, straight
    /// from the input's storage (a slice of it would take a reference per packet).
    private mutating func appendPayload(_ index: Int, from start: Int, count: Int) {
        guard count > 0 else { return }
        var pending: [UInt8] = []
        swap(&pending, &streams[index].pending)  // moved out: appended to in place
        let from = start &- buffer.startIndex  // the pointer counts from the slice's start
        buffer.withUnsafeBufferPointer { input in
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: input[from..<(from &+ count)]))
        }
        streams[index].pending = pending
    }

    /// Gathers the PES header; returns where the payload begins once it is whole.
    private mutating func readHeader(_ index: Int, from start: Int, to end: Int) -> Int {
        var i = start
        while i < end {
            let have = streams[index].header.count
            var need = 9
            if have >= 6 && Self.hasNoOptionalHeader(streams[index].header[3]) { need = 6 }
            if have >= 9 && need == 9 { need = 9 &+ Int(streams[index].header[8]) }
            if have >= need { break }
            let take = min(need &- have, end &- i)
            streams[index].header.append(contentsOf: buffer[i..<(i &+ take)])
            i &+= take
            let header = streams[index].header
            if header.count >= 4 && (header[0] != 0 || header[1] != 0 || header[2] != 1) {
                streams[index].collecting = false
                problem(TSError.invalid(.invalidPES, "PID \(streams[index].pid): no packet_start_code_prefix"))
                return end
            }
        }
        let header = streams[index].header
        guard header.count >= 6 else { return end }
        let hasOptional = !Self.hasNoOptionalHeader(header[3])
        guard !hasOptional || (header.count >= 9 && header.count == 9 &+ Int(header[8])) else { return end }
        streams[index].headerDone = true
        streams[index].streamID = header[3]
        let length = Int(header[4]) << 8 | Int(header[5])
        let headerLength = hasOptional ? header.count &- 6 : 0
        if length > 0 {
            guard length >= headerLength else {
                streams[index].collecting = false
                problem(TSError.invalid(.invalidPES, "PID \(streams[index].pid): PES_packet_length \(length) shorter than its header"))
                return end
            }
            streams[index].remaining = length &- headerLength
        }
        if hasOptional {
            let flags = header[7] >> 6
            var pts: Int64?, dts: Int64?
            header.withUnsafeBufferPointer { b in
                if flags & 2 != 0 && header.count >= 14 { pts = TSPacketLayout.readTimestamp(b, at: 9) }
                if flags == 3 && header.count >= 19 { dts = TSPacketLayout.readTimestamp(b, at: 14) }
            }
            if let pts { streams[index].times = unroll(index, pts: pts, dts: dts ?? pts) }
        }
        if streams[index].isH264 {
            let pendingCount = streams[index].pending.count, times = streams[index].times
            streams[index].h264?.mark(pesAt: pendingCount, times: times)  // in place
        }
        return i
    }

    /// `stream_id`s whose PES has no optional header (Table 2-21's exceptions).
    private static func hasNoOptionalHeader(_ id: UInt8) -> Bool {
        id == 0xBC || id == 0xBE || id == 0xBF || id == 0xF0 || id == 0xF1 || id == 0xF2 || id == 0xF8 || id == 0xFF
    }

    /// The times of a PES on its program's unrolled time line.
    private mutating func unroll(_ index: Int, pts: Int64, dts: Int64) -> SampleTimestamps {
        let number = streams[index].programNumber
        var reset = false
        let jump = max(1, TSPacketLayout.ticks(options.maximumTimestampJump))
        let decode = timelines[number, default: Timeline()].unroll(dts, maximumJump: jump, reset: &reset)
        if reset { statistics.timelineResets &+= 1 }
        var offset = (pts &- dts) & (TSPacketLayout.timestampModulus &- 1)
        if offset >= TSPacketLayout.timestampModulus / 2 { offset &-= TSPacketLayout.timestampModulus }
        return SampleTimestamps(pts: decode &+ offset, dts: decode, timescale: 90_000)
    }

    /// Packets of stream `index` were lost: the rest of its PES is skipped, and what it held is
    /// marked.
    mutating func loss(_ index: Int) {
        if streams[index].collecting { streams[index].damaged = true }
        if streams[index].isH264 {
            let pendingCount = streams[index].pending.count
            streams[index].h264?.mark(lossAt: pendingCount)  // in place
            feed(index, cut: true)
        } else if streams[index].collecting {
            endPES(index, atEnd: false)
        }
        streams[index].collecting = false
    }

    /// Ends the PES of stream `index`: an opaque one goes out; an H.264 one goes to the
    /// parser (and at the end of the input, the parser is finished).
    mutating func endPES(_ index: Int, atEnd: Bool) {
        if let remaining = streams[index].remaining, remaining > 0, streams[index].collecting {
            streams[index].damaged = true
            problem(TSError.invalid(.invalidPES, "PID \(streams[index].pid): PES ended \(remaining) bytes before its PES_packet_length"))
        }
        streams[index].remaining = nil
        if streams[index].isH264 {
            if atEnd {
                feed(index, finishing: true)
            } else {
                // Fed once the next PES shows whether its start is a NAL unit's (an earlier
                // boundary still waiting, the next PES shorter than a start code, is fed now).
                let count = streams[index].pending.count
                if let boundary = streams[index].feedBoundary, boundary < count { feed(index) }
                if count > 0 { streams[index].feedBoundary = count }
            }
        } else if streams[index].collecting && streams[index].headerDone {
            let s = streams[index]
            events.append(.elementaryStreamPacket(TSElementaryStreamPacket(pid: s.pid, streamType: s.streamType, streamID: s.streamID,
                                                                           payload: s.pending, timestamps: s.times,
                                                                           isComplete: !s.damaged)))
            streams[index].pending = []
        }
        streams[index].collecting = false
    }

    /// Gives the gathered H.264 bytes to the core's parser and hands out the access units
    /// that completes. `cut` (after a loss) also ends the NAL unit and the access unit in
    /// progress, whose rest is lost: they come out marked, and what follows starts afresh
    /// (else an access unit that lost its slices would take in the next one's).
    mutating func feed(_ index: Int, upTo end: Int? = nil, finishing: Bool = false, cut: Bool = false) {
        // Moved out while it works (swapped, not copied: a copy would retain all its buffers).
        var track: H264Track?
        swap(&track, &streams[index].h264)
        guard track != nil else { return }
        streams[index].feedBoundary = nil
        var pending: [UInt8] = []
        swap(&pending, &streams[index].pending)
        if !pending.isEmpty {
            let end = end ?? pending.count
            // The next pending buffer: one of the earlier ones if nothing views it any more.
            var next = track!.buffers.takeFree() ?? []
            next.removeAll(keepingCapacity: true)
            if end < pending.count { next.append(contentsOf: pending[end...]) }
            if end > 0 {
                track!.fed &+= end
                track!.splitter.append(pending[..<end])
                track!.buffers.keep(&pending)
            }
            streams[index].pending = next
        }
        if finishing || cut { track!.splitter.finish() }
        while true {
            let unit: NALUnit?
            do throws(H264Error) {
                unit = try track!.splitter.next()
            } catch {
                problem(TSError.h264(error, "PID \(streams[index].pid)"))
                continue
            }
            guard let unit else { break }
            let offset = track!.base &+ track!.splitter.lastNALUnitOffset &- track!.splitter.lastStartCodeLength
            do throws(H264Error) {
                if let au = try track!.assembler.push(unit, offset: offset) { emit(au, end: offset, track: &track!, index: index) }
            } catch {
                problem(TSError.h264(error, "PID \(streams[index].pid)"))
            }
        }
        if finishing || cut, let au = track!.assembler.finish() { emit(au, end: track!.fed, track: &track!, index: index) }
        if cut {
            track!.splitter = AnnexBStreamParser(maximumNALUnitSize: options.maximumNALUnitSize, leadingData: .skip)
            track!.base = track!.fed
        }
        swap(&track, &streams[index].h264)
    }

    /// Feeds stream `index`'s bytes up to the end of its previous PES at `boundary`, and the
    /// start code that follows there if there is one (the current PES has 4 bytes at least).
    private mutating func feedToBoundary(_ index: Int, _ boundary: Int) {
        var end = boundary
        streams[index].pending.withUnsafeBufferPointer { b in
            if b[boundary] == 0 && b[boundary &+ 1] == 0 {
                if b[boundary &+ 2] == 1 {
                    end = boundary &+ 3
                } else if b[boundary &+ 2] == 0 && b[boundary &+ 3] == 1 {
                    end = boundary &+ 4
                }
            }
        }
        feed(index, upTo: end)
    }

    /// Hands out an access unit that spans its stream's bytes up to `end`, with the times of
    /// the PES it began in.
    private mutating func emit(_ au: AccessUnit, end: Int, track: inout H264Track, index: Int) {
        let start = au.byteOffset ?? end
        var times: SampleTimestamps?
        if let m = track.marks.lastIndex(where: { $0.offset <= start }) {
            if !track.marks[m].used {
                times = track.marks[m].times
                track.marks[m].used = true
            }
            track.marks.removeFirst(m)  // older PES starts can take no later access unit
        }
        let damaged = track.losses.contains { $0 > start && $0 <= end }
        track.losses.removeAll { $0 <= start }
        events.append(.accessUnit(TSAccessUnit(accessUnit: au, pid: streams[index].pid, programNumber: streams[index].programNumber,
                                               timestamps: times, mayBeIncomplete: damaged)))
    }
}
